import { Injectable } from '@nestjs/common';
import { encodeTimeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { type AuditCredential, AuditEntry } from './audit-entry.entity.js';

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

/** What GET /audit and auditEntries filter by; times exclusive. */
export interface AuditFilter {
  actorId?: number;
  action?: string;
  resourceType?: string;
  /** Only with `resourceType` (ids are per type; the index is on both). */
  resourceId?: number;
  after?: Date;
  before?: Date;
}

/** Where a page in list order (newest first) starts: after the entry of this time and id. */
export interface AuditKey {
  at: Date;
  id: number;
}

/** The cursor of an entry in a list (newest first): its time and id. */
export const auditCursor = (entry: AuditEntry) => encodeTimeCursor(entry.at, entry.id);

/** sql.raw, where the constructor's `sql` (the Sql) hides the tag. */
const raw = (text: string): Fragment => sql.raw(text);

/**
 * `audit_entries`: appended to in the transaction of each change; never updated but for an
 * erasure. Read newest first, keyset-paged on (at, id): each filter is served by one of the
 * table's indexes, which also gives the order (test/audit-indexes.e2e-spec.ts).
 */
@Injectable()
export class AuditEntriesRepository {
  private readonly table: EntityTable<AuditEntry>;
  private readonly select: Fragment;

  constructor(private readonly sql: Sql) {
    this.table = sql.table(AuditEntry);
    this.select = raw(this.table.selectList('a'));
  }

  /** Appends entries (one statement), in the caller's transaction. */
  async append(executor: Executor, entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map(
      (entry) =>
        sql`(${sql.in([
          this.sql.timestamp(entry.at),
          entry.actorId,
          entry.actorCredential,
          entry.actorKeyId,
          entry.action,
          entry.resourceType,
          entry.resourceId,
          entry.changes,
          entry.ip,
          entry.userAgent,
          entry.requestId,
          entry.traceId,
        ])})`,
    );
    await this.sql.rows(
      sql`INSERT INTO audit_entries (at, actor_id, actor_credential, actor_key_id, action, resource_type, resource_id, changes, ip, user_agent, request_id, trace_id) VALUES ${sql.join(rows)}`,
      executor,
    );
  }

  /** A page of entries, newest first; `request.after` (with `afterTime`, or the time of that entry) is the last one seen. */
  async page(filter: AuditFilter, request: PageRequest): Promise<Page<AuditEntry>> {
    const key = request.after === undefined ? undefined : this.keyOf(request.after, request.afterTime);
    const rows = await this.read(filter, key, request.limit + 1);
    return toPage(rows, request.limit, auditCursor);
  }

  /** Up to `limit` entries after `after` (in list order, newest first), for an export read batch by batch. */
  batch(filter: AuditFilter, after: AuditKey | undefined, limit: number): Promise<AuditEntry[]> {
    return this.read(filter, after && sql`(${this.sql.timestamp(after.at)}, ${after.id})`, limit);
  }

  async find(id: number): Promise<AuditEntry | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM audit_entries a WHERE a.id = ${id}`);
    return row ? this.fromRow(row) : null;
  }

  async count(filter: AuditFilter): Promise<number> {
    const [row] = await this.sql.rows<{ count: number | string }>(sql`SELECT COUNT(*) AS count FROM audit_entries a${sql.where(this.conditions(filter))}`);
    return Number(row.count);
  }

  /** Deletes up to `limit` of the entries recorded before `before`, oldest first (idx_audit_entries_at); returns how many. */
  async pruneBatch(before: Date, limit: number): Promise<number> {
    const statement = sql`DELETE FROM audit_entries WHERE id IN (SELECT p.id FROM audit_entries p WHERE p.at < ${this.sql.timestamp(before)} ORDER BY p.at, p.id LIMIT ${limit}) RETURNING id`;
    return (await this.sql.written(statement)).length;
  }

  private async read(filter: AuditFilter, key: Fragment | undefined, limit: number): Promise<AuditEntry[]> {
    const where = this.conditions(filter);
    if (key !== undefined) where.push(sql`(a.at, a.id) < ${key}`);
    const statement = sql`SELECT ${this.select} FROM audit_entries a${sql.where(where)} ORDER BY a.at DESC, a.id DESC LIMIT ${limit}`;
    return (await this.sql.rows<Record<string, unknown>>(statement)).map((row) => this.fromRow(row));
  }

  private conditions(filter: AuditFilter): Fragment[] {
    const where: Fragment[] = [];
    if (filter.actorId !== undefined) where.push(sql`a.actor_id = ${filter.actorId}`);
    if (filter.action !== undefined) where.push(sql`a.action = ${filter.action}`);
    if (filter.resourceType !== undefined) where.push(sql`a.resource_type = ${filter.resourceType}`);
    if (filter.resourceId !== undefined) where.push(sql`a.resource_id = ${filter.resourceId}`);
    if (filter.after !== undefined) where.push(sql`a.at > ${this.sql.timestamp(filter.after)}`);
    if (filter.before !== undefined) where.push(sql`a.at < ${this.sql.timestamp(filter.before)}`);
    return where;
  }

  /**
   * The (at, id) of a cursor as SQL: its own time, or for an id-only cursor the time of that
   * entry, read in the same statement.
   */
  private keyOf(after: number, afterTime: Date | undefined): Fragment {
    if (afterTime !== undefined) return sql`(${this.sql.timestamp(afterTime)}, ${after})`;
    // Each parameter once: SQLite numbers them by position.
    return sql`((SELECT k.at FROM audit_entries k WHERE k.id = ${after}), ${after})`;
  }

  /** PostgreSQL's ids are BIGSERIAL: the driver reads them as text. */
  private fromRow(row: Record<string, unknown>): AuditEntry {
    const entry = this.table.fromRow(row);
    entry.id = Number(entry.id);
    return entry;
  }
}
