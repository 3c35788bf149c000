import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import type { Companion } from '../common/persistence/resource-repository.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { traceIdsOfActiveSpan } from '../tracing/spans.js';
import type { AuditActionName } from './audit-actions.js';
import { requestSource } from '../common/http/request-source.js';
import type { AuditCredential } from './audit-entry.entity.js';
import { AuditEntriesRepository, type NewAuditEntry } from './audit-entries.repository.js';

/** The actor of the scheduler's and the retention jobs' changes. */
export const SYSTEM = Symbol('system');

/** Who made a change: an actor, the system, or nobody (a failed sign-in, a sign-up). */
export type AuditActor = Actor | typeof SYSTEM | null;

/** `{field: {from, to}}`. */
export type AuditChanges = Record<string, { from: unknown; to: unknown }>;

/** What stands for the value of a secret field, before and after. */
export const REDACTED = '[redacted]';

/**
 * Fields whose values never reach an entry, whoever records it: they are named, their values
 * are REDACTED. The one place that guarantees no password, token, key or secret is in the log.
 */
const SECRET_FIELDS = new Set(['password', 'passwordHash', 'currentPassword', 'newPassword', 'secret', 'keyHash', 'key', 'token', 'accessToken', 'refreshToken', 'authorization']);

const USER_AGENT_MAX = 512;

/** The fields of a post's or comment's entries whose text is no one's words: kept when the content is erased. */
const NOT_CONTENT = new Set(['status', 'publishAt', 'publishedAt', 'locale', 'bodyFormat', 'decision']);

export interface AuditRecord {
  action: AuditActionName;
  resource: { type: string; id: number | null };
  changes?: AuditChanges;
}

/**
 * The audit log (CONTRACT §16). Services record each change in the change's own transaction, so
 * a change that rolls back leaves no entry; where it comes from (address, user agent, request id)
 * is the request's or the GraphQL operation's (requestSource), the trace id the active span's.
 */
@Injectable()
export class AuditLog {
  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Records one entry (or several: one statement), in the caller's transaction. */
  record(executor: Executor, actor: AuditActor, ...records: AuditRecord[]): Promise<void> {
    return this.entries.append(executor, this.rowsOf(actor, records));
  }

  /** Records entries of an event that writes nothing else (a sign-in, a failed one): one statement of its own. */
  recordAlone(actor: AuditActor, ...records: AuditRecord[]): Promise<void> {
    const rows = this.rowsOf(actor, records);
    return this.transactions.single(() => this.entries.append(undefined, rows));
  }

  private rowsOf(actor: AuditActor, records: readonly AuditRecord[]): NewAuditEntry[] {
    const at = new Date();
    const who = actorOf(actor);
    const where = whereFrom();
    return records.map((record) => entryOf(at, who, where, record));
  }

  /**
   * The entry of a new row, for its repository to write with the row, atomically
   * (ResourceRepository.insertRecorded, beside its `created` event): the resource's id is the new row's.
   */
  created<T extends { id: number }>(actor: AuditActor, action: AuditActionName, resourceType: string, changes: AuditChanges): Companion<T> {
    const entry = entryOf(new Date(), actorOf(actor), whereFrom(), { action, resource: { type: resourceType, id: null }, changes });
    return (row, source) => this.entries.appendFrom(source, entry, row.column('id'));
  }

  /**
   * A deleted user's name and e-mail out of every entry that names them, as actor or as resource
   * (CONTRACT §16); the entries stay, with their id. In the deletion's transaction.
   */
  eraseUser(executor: Executor, userId: number, identity: { name: string; email: string }): Promise<void> {
    return this.entries.eraseUser(executor, userId, identity);
  }

  /**
   * The text of content deleted for good out of the entries about it (v3 Privacy: no copy of it
   * stays anywhere), in the deletion's transaction, after its own entry: the posts and comments
   * of these ids, and what these authors wrote. Their states, times and ids stay.
   */
  eraseContent(executor: Executor, scope: { posts?: readonly number[]; comments?: readonly number[]; authors?: readonly number[] }): Promise<void> {
    return this.entries.eraseContent(executor, scope, NOT_CONTENT);
  }
}

type Who = Pick<NewAuditEntry, 'actorId' | 'actorCredential' | 'actorKeyId'>;
type Where = Pick<NewAuditEntry, 'ip' | 'userAgent' | 'requestId' | 'traceId'>;

/** Where the change came from: the request's or the operation's source, the active span's trace. */
function whereFrom(): Where {
  const source = requestSource.getStore();
  const userAgent = source?.headers['user-agent'];
  return {
    ip: source?.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, USER_AGENT_MAX) : null,
    requestId: source?.id ?? null,
    traceId: traceIdsOfActiveSpan().traceId ?? null,
  };
}

function entryOf(at: Date, who: Who, where: Where, { action, resource, changes = {} }: AuditRecord): NewAuditEntry {
  return { at, ...who, action, resourceType: resource.type, resourceId: resource.id, changes: JSON.stringify(redacted(changes)), ...where };
}

function actorOf(actor: AuditActor): Who {
  if (actor === SYSTEM) return { actorId: null, actorCredential: 'system', actorKeyId: null };
  if (actor === null) return { actorId: null, actorCredential: null, actorKeyId: null };
  const credential: AuditCredential = actor.apiKeyId !== undefined ? 'api-key' : actor.external ? 'sso' : 'token';
  return { actorId: actor.id, actorCredential: credential, actorKeyId: actor.apiKeyId ?? null };
}

function redacted(changes: AuditChanges): AuditChanges {
  let copy: AuditChanges | undefined;
  for (const field of Object.keys(changes)) {
    if (!SECRET_FIELDS.has(field)) continue;
    copy ??= { ...changes };
    copy[field] = { from: REDACTED, to: REDACTED };
  }
  return copy ?? changes;
}

/** A value as an entry keeps it: times as ISO 8601, absent as null. */
function auditValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * The fields that differ between `before` (null: a new resource) and `after` (null: a deleted
 * one), as `{field: {from, to}}`; arrays and objects compare by their JSON.
 */
export function changesOf<T extends object>(before: T | null, after: T | null, fields: readonly (keyof T & string)[]): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of fields) {
    const from = auditValue(before?.[field]);
    const to = auditValue(after?.[field]);
    if (from === to || (typeof from === 'object' && typeof to === 'object' && JSON.stringify(from) === JSON.stringify(to))) continue;
    changes[field] = { from, to };
  }
  return changes;
}

/** A secret field that changed, named: its values are never recorded. */
export function secretChange(field: string): AuditChanges {
  return { [field]: { from: REDACTED, to: REDACTED } };
}
