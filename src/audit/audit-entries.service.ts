import { Injectable } from '@nestjs/common';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from './audit-actions.js';
import type { AuditEntry } from './audit-entry.entity.js';
import { AuditEntriesRepository, type AuditFilter, type AuditKey } from './audit-entries.repository.js';

/** Entries read per statement by an export: each batch is written out before the next is read. */
export const EXPORT_BATCH = 1000;
/**
 * Entries written as one piece of text: each piece stays under V8's large-object size (about
 * 128 KiB; an entry is some 500 bytes), so that it dies young. Pieces of a whole batch (half a
 * megabyte) went to the large-object space, collected only by full collections: the resident
 * memory of an export of a million entries then grew by up to 200 MB under load (bench/audit-export.mjs).
 */
const EXPORT_PIECE = 100;

/**
 * The reads of the audit log (CONTRACT §16), admins only (`audit.read`: 401 anonymous, 403
 * otherwise, as webhooks): a page, one entry, a count, and the whole filtered log as NDJSON,
 * streamed batch by batch so that however large the export, it is never held whole. Entries are
 * written by AuditLog.record, in the transaction of each change; nothing here changes them.
 */
@Injectable()
export class AuditEntries {
  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly policy: AuthorizationPolicy,
  ) {}

  /** A page, newest first. */
  list(filter: AuditFilter, request: PageRequest, actor: Actor | null | undefined): Promise<Page<AuditEntry>> {
    this.policy.authorizeRead(actor, 'audit.read');
    return this.entries.page(checked(filter), request);
  }

  async get(id: number, actor: Actor | null | undefined): Promise<AuditEntry> {
    this.policy.authorizeRead(actor, 'audit.read');
    const entry = await this.entries.find(id);
    if (!entry) throw DomainError.notFound('AuditEntry', id);
    return entry;
  }

  count(filter: AuditFilter, actor: Actor | null | undefined): Promise<number> {
    this.policy.authorizeRead(actor, 'audit.read');
    return this.entries.count(checked(filter));
  }

  /**
   * Every entry the filter keeps, newest first, one JSON text a line (`view` makes each entry's),
   * in pieces of EXPORT_PIECE entries, read (EXPORT_BATCH at a time) as they are consumed. Checks who asks and the filter before
   * it returns: nothing is written when it refuses. Entries recorded once it started are not in
   * it (they come before its first batch); entries pruned meanwhile may be missing.
   */
  export(filter: AuditFilter, actor: Actor | null | undefined, view: (entry: AuditEntry) => object): AsyncIterable<string> {
    this.policy.authorizeRead(actor, 'audit.read');
    return this.lines(checked(filter), view);
  }

  private async *lines(filter: AuditFilter, view: (entry: AuditEntry) => object): AsyncGenerator<string> {
    let after: AuditKey | undefined;
    for (;;) {
      const batch = await this.entries.batch(filter, after, EXPORT_BATCH);
      for (let start = 0; start < batch.length; start += EXPORT_PIECE) {
        let text = '';
        for (const entry of batch.slice(start, start + EXPORT_PIECE)) text += `${JSON.stringify(view(entry))}\n`;
        yield text;
      }
      if (batch.length < EXPORT_BATCH) return;
      const last = batch[batch.length - 1];
      after = { at: last.at, id: last.id };
    }
  }
}

/** The filter, if its names are of the vocabulary (400 naming the field otherwise), whichever the door. */
function checked(filter: AuditFilter): AuditFilter {
  if (filter.action !== undefined && !Object.hasOwn(AUDIT_ACTIONS, filter.action)) {
    throw DomainError.badInput(`action must be one of the audit actions (docs/audit.md): ${Object.keys(AUDIT_ACTIONS).join(', ')}`, [
      { field: 'action', message: 'is not an audit action' },
    ]);
  }
  if (filter.resourceType !== undefined && !(AUDIT_RESOURCE_TYPES as readonly string[]).includes(filter.resourceType)) {
    throw DomainError.badInput(`resourceType must be one of ${AUDIT_RESOURCE_TYPES.join(', ')}`, [{ field: 'resourceType', message: 'is not a resource type of the audit log' }]);
  }
  if (filter.resourceId !== undefined && filter.resourceType === undefined) {
    throw DomainError.badInput('resourceId needs resourceType: ids are per type', [{ field: 'resourceId', message: 'needs resourceType' }]);
  }
  return filter;
}
