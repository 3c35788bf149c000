import { Injectable } from '@nestjs/common';
import { encodeTimeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import type { EntityTable } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { normalizeEmail } from '../common/validation/transforms.js';
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

/** What stands for an erased user's name and e-mail in their entries. */
export const ERASED = '[erased]';

/** Rows of one user's entries read per statement (an export, an erasure). */
const USER_PAGE = 500;

/** Ids named by one erasure statement, at most (the drivers bound the parameters of one). */
const ERASURE_CHUNK = 1000;

const INSERT = sql.raw('INSERT INTO audit_entries (at, actor_id, actor_credential, actor_key_id, action, resource_type, resource_id, changes, ip, user_agent, request_id, trace_id)');

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

  /** Appends entries (one statement), in the caller's transaction (none: a statement of its own). */
  async append(executor: Executor | undefined, entries: readonly NewAuditEntry[]): Promise<void> {
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

  // A user's entries: the personal data export reads them, the user's deletion erases them.

  /** The entries whose actor or resource is the user, in id order, one page after `after` (an id). */
  async pageOfUser(userId: number, after: number, limit = USER_PAGE): Promise<AuditEntry[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(
      sql`SELECT ${this.select} FROM audit_entries a WHERE (a.actor_id = ${userId} OR (a.resource_type = 'user' AND a.resource_id = ${userId})) AND a.id > ${after} ORDER BY a.id LIMIT ${limit}`,
    );
    return rows.map((row) => this.fromRow(row));
  }

  /**
   * Removes a user's name and e-mail from the entries whose actor or resource they are, and from
   * the failed sign-ins that tried their e-mail before it named any user: any value equal to either
   * becomes ERASED, and so do the values of `name` and `email` where the user is the resource (their
   * former names and addresses; a tag's or a key's `name` is not theirs). Read and rewritten a page at a time
   * (two statements per USER_PAGE entries), in the caller's transaction.
   */
  async eraseUser(executor: Executor, userId: number, identity: { name: string; email: string }): Promise<void> {
    const email = normalizeEmail(identity.email);
    const personal = new Set([identity.name, identity.email, email]);
    const tried = `%${JSON.stringify(email).slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    await this.rewrite(executor, sql`(actor_id = ${userId} OR (resource_type = 'user' AND resource_id = ${userId}) OR (action = 'auth.signInFailed' AND resource_id IS NULL AND LOWER(changes) LIKE ${tried} ESCAPE '\\'))`, (row) => {
      const aboutThem = row.resource_type === 'user' && Number(row.resource_id) === userId;
      // A failed sign-in of nobody's e-mail matched by its text: only one that tried exactly theirs.
      const triedTheirs = !aboutThem && Number(row.actor_id) !== userId && triedEmail(row.changes, email);
      if (!aboutThem && Number(row.actor_id) !== userId && !triedTheirs) return row.changes;
      return erased(row.changes, (field, value) => ((aboutThem || triedTheirs) && (field === 'name' || field === 'email')) || (typeof value === 'string' && personal.has(value)));
    });
  }

  /**
   * Removes the text of deleted content (CONTRACT §7, v3 Privacy: a post or comment deleted for
   * good, a deleted user's writing) from the entries about it: every string value but those of
   * `kept` fields (states, times, locales: no one's words) becomes ERASED. `posts` and `comments`
   * are the resources' ids; `authors`, users whose every post and comment entry is erased (as
   * their actor: what they wrote). A page at a time, in the deletion's transaction.
   */
  async eraseContent(executor: Executor, scope: { posts?: readonly number[]; comments?: readonly number[]; authors?: readonly number[] }, kept: ReadonlySet<string>): Promise<void> {
    const reached: Fragment[] = [];
    for (let start = 0; start < (scope.posts?.length ?? 0); start += ERASURE_CHUNK) reached.push(sql`(resource_type = 'post' AND resource_id IN (${sql.in(scope.posts!.slice(start, start + ERASURE_CHUNK))}))`);
    for (let start = 0; start < (scope.comments?.length ?? 0); start += ERASURE_CHUNK) reached.push(sql`(resource_type = 'comment' AND resource_id IN (${sql.in(scope.comments!.slice(start, start + ERASURE_CHUNK))}))`);
    if (scope.authors && scope.authors.length > 0) reached.push(sql`(actor_id IN (${sql.in(scope.authors)}) AND resource_type IN ('post', 'comment'))`);
    for (const where of reached) await this.rewrite(executor, where, (row) => erased(row.changes, (field, value) => typeof value === 'string' && !kept.has(field)));
  }

  /** Rewrites the `changes` of the entries `where` selects, page by page in id order (two statements per page at most): `rewritten` returns the new text, or the same text to leave it. */
  private async rewrite(executor: Executor, where: Fragment, rewritten: (row: RewrittenRow) => string): Promise<void> {
    let after = 0;
    for (;;) {
      const rows = await this.sql.rows<RewrittenRow>(sql`SELECT id, actor_id, resource_type, resource_id, changes FROM audit_entries WHERE ${where} AND id > ${after} ORDER BY id LIMIT ${USER_PAGE}`, executor);
      const changed: { id: number; changes: string }[] = [];
      for (const row of rows) {
        const changes = rewritten(row);
        if (changes !== row.changes) changed.push({ id: Number(row.id), changes });
      }
      if (changed.length > 0) {
        const cases = changed.map(({ id, changes }) => sql`WHEN ${id} THEN ${changes}`);
        await this.sql.written(sql`UPDATE audit_entries SET changes = CASE id ${sql.join(cases, ' ')} END WHERE id IN (${sql.in(changed.map(({ id }) => id))}) RETURNING id`, executor);
      }
      if (rows.length < USER_PAGE) return;
      after = Number(rows[rows.length - 1].id);
    }
  }
}

interface RewrittenRow {
  id: number | string;
  actor_id: number | null;
  resource_type: string;
  resource_id: number | null;
  changes: string;
}

/** Whether a failed sign-in's `changes` tried this (normalized) e-mail. */
function triedEmail(text: string, email: string): boolean {
  const tried = (JSON.parse(text) as { email?: { to?: unknown } }).email?.to;
  return typeof tried === 'string' && normalizeEmail(tried) === email;
}

/** `changes` (JSON text) with ERASED for each value `erases` picks; the same text when it picks none. */
function erased(text: string, erases: (field: string, value: unknown) => boolean): string {
  const changes = JSON.parse(text) as Record<string, { from: unknown; to: unknown }>;
  let touched = false;
  for (const [field, change] of Object.entries(changes)) {
    for (const side of ['from', 'to'] as const) {
      const value = change?.[side];
      if (value === null || value === undefined || value === ERASED) continue;
      if (erases(field, value)) {
        change[side] = ERASED;
        touched = true;
      }
    }
  }
  return touched ? JSON.stringify(changes) : text;
}
