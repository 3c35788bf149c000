import { Injectable } from '@nestjs/common';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { AuditCredential } from './audit-entry.entity.js';

/** An entry as AuditLog hands it to be written. */
export interface NewAuditEntry {
  at: Date;
  actorId: number | null;
  actorCredential: AuditCredential | null;
  actorKeyId: number | null;
  action: string;
  resourceType: string;
  resourceId: number | null;
  /** JSON text. */
  changes: string;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  traceId: string | null;
}

const INSERT = sql.raw('INSERT INTO audit_entries (at, actor_id, actor_credential, actor_key_id, action, resource_type, resource_id, changes, ip, user_agent, request_id, trace_id)');

/** `audit_entries`: appended to in the transaction of each change; never updated but for an erasure. */
@Injectable()
export class AuditEntriesRepository {
  constructor(private readonly sql: Sql) {}

  /** Appends entries (one statement), in the caller's transaction. */
  async append(executor: Executor, entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((entry) => sql`(${sql.in(this.values(entry, entry.resourceId))})`);
    await this.sql.rows(sql`${INSERT} VALUES ${sql.join(rows)}`, executor);
  }

  /**
   * The INSERT of a new row's entry, made from that row in the same write (`source` holds it, its
   * id being `idColumn`; see ResourceRepository.insertRecorded). Sends nothing.
   */
  appendFrom(source: Fragment, entry: NewAuditEntry, idColumn: string): Fragment {
    return sql`${INSERT} SELECT ${sql.in(this.values(entry, sql.raw(idColumn)))} FROM ${source}`;
  }

  /** An entry's values in the INSERT's column order, as parameters; the resource id a parameter or a column of the new row (a Fragment). */
  private values(entry: NewAuditEntry, resourceId: number | null | Fragment): unknown[] {
    return [
      this.sql.timestamp(entry.at),
      entry.actorId,
      entry.actorCredential,
      entry.actorKeyId,
      entry.action,
      entry.resourceType,
      resourceId,
      entry.changes,
      entry.ip,
      entry.userAgent,
      entry.requestId,
      entry.traceId,
    ];
  }
}
