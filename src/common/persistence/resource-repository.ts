import { ANY_TAG, recordReadTags } from '../cache/read-tags.js';
import { DomainError } from '../errors/domain-error.js';
import { type Page, type PageRequest, toPage } from '../pagination/cursor.js';
import type { EntityTable, TableColumn } from './entity-table.js';
import type { Executor, Sql } from './sql.js';
import { type Fragment, sql } from './sql-template.js';

const ASC = sql.raw('ASC');
const DESC = sql.raw('DESC');
const VERSION_BUMP = sql.raw('version = version + 1');
const NEW_ROW = sql.raw('r');
import { preconditionFailed } from './write-options.js';

/** A new row, as a write made from it in the same statement sees it (see `insertRecorded`). */
export interface NewRow<T> {
  /** One of its columns (`r.title`). */
  column(property: keyof T & string): string;
  /** Its fields (neither secrets nor the version) as a JSON object, timestamps in ISO 8601. */
  json: string;
}

/**
 * A second INSERT made from a new row, atomically with it (its `created` event): an
 * `INSERT … SELECT … FROM ${source}` (the new row being `r` there).
 */
export type Companion<T> = (row: NewRow<T>, source: Fragment) => Fragment;

/** What every resource's entity has: an id, a version (its ETag) and timestamps. */
export interface Versioned {
  id: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type Order = 'asc' | 'desc';

/**
 * A value read with each row beside its columns, in the same statement (a post's tag slugs by a
 * correlated subquery): `expression` over the row's alias, read back by `read`, set on the item
 * under `property`. Rows written (RETURNING) do not carry it.
 */
export interface ComputedColumn {
  property: string;
  /** Its name in the statement (snake_case: PostgreSQL folds unquoted names to lower case). */
  name: string;
  expression: (alias: string) => string;
  /** The value to set; it may set more of the item (a post's tag ids beside its slugs). */
  read: (value: unknown, item: object) => unknown;
}

/** A list restricted to the rows whose `column` equals `value`. */
export interface Filter<T> {
  column: keyof T & string;
  value: number;
}

/** Another table joined into each row, set on `property` (e.g. a comment's author). */
export interface Join<T, J extends object> {
  property: keyof T & string;
  table: EntityTable<J>;
  /** The column of this table that holds the joined row's id. */
  foreignKey: keyof T & string;
  /** Only these columns of the joined row (a partial row); every readable one without. */
  columns?: readonly (keyof J & string)[];
}

/**
 * What a read reads, for the tags of the cached answer it goes into (read-tags.ts): rows by id
 * (`ids`), the rows whose `column` holds one of `ids` (a post's comments: `postId`), or any
 * other read (`list`: pages, counts, searches).
 */
export type ReadScope = { kind: 'ids'; ids: readonly number[] } | { kind: 'of'; column: string; ids: readonly number[] } | { kind: 'list' };

/**
 * The SQL every resource needs, derived from its entity's table: by id and by ids, keyset
 * pages (one list, or one page per parent in one statement), counts, and versioned writes.
 * A resource's repository extends it with what only that resource needs.
 */
export abstract class ResourceRepository<T extends Versioned> {
  readonly table: EntityTable<T>;
  /** `t.id, t.title, …`: this table's columns under the alias `t`, and its computed columns. */
  protected readonly select: Fragment;
  /** The columns alone (for a statement that locks rows: no subquery). */
  protected readonly columnList: Fragment;
  /** `posts t`. */
  protected readonly from: Fragment;
  /** `posts`. */
  protected readonly tableName: Fragment;
  /** For RETURNING: the columns without an alias. */
  protected readonly returning: Fragment;
  /** Each column's name, by property. */
  private readonly names = new Map<string, Fragment>();
  private newRow?: NewRow<T>;
  protected readonly sql: Sql;

  protected constructor(
    db: Sql,
    entity: new () => T,
    private readonly computed: readonly ComputedColumn[] = [],
  ) {
    this.sql = db;
    this.table = db.table(entity);
    const columns = this.table.selectList('t');
    this.columnList = sql.raw(columns);
    this.select = sql.raw([columns, ...computed.map((column) => `${column.expression('t')} AS ${column.name}`)].join(', '));
    this.from = sql.raw(`${this.table.name} t`);
    this.tableName = sql.raw(this.table.name);
    this.returning = sql.raw(this.table.returningList);
  }

  /** A column's name (`author_id`), for a statement. */
  protected name(property: keyof T & string): Fragment {
    let name = this.names.get(property);
    if (name === undefined) this.names.set(property, (name = sql.raw(this.table.column(property).name)));
    return name;
  }

  /**
   * Called by every read method before it reads: records the tags of what it reads on the cached
   * answer being collected, if any. `*` unless a repository says better (any write drops it).
   */
  protected recordReads(_read: ReadScope): void {
    recordReadTags(ANY_TAG);
  }

  /** The scope of a read of the rows `filter` selects (all of them without one). */
  private filtered(filter: Filter<T> | undefined): ReadScope {
    return filter ? { kind: 'of', column: filter.column, ids: [filter.value] } : { kind: 'list' };
  }

  async findById(id: number, executor?: Executor): Promise<T | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM ${this.from} WHERE t.id = ${id}`, executor);
    return row ? this.fromRow(row) : null;
  }

  async exists(id: number, executor?: Executor): Promise<boolean> {
    this.recordReads({ kind: 'ids', ids: [id] });
    return (await this.sql.rows(sql`SELECT 1 AS found FROM ${this.tableName} WHERE id = ${id}`, executor)).length > 0;
  }

  /** For batching: the rows with these ids, in no particular order (with `join`, each with its joined row). */
  async findByIds<J extends object>(ids: readonly number[], join?: Join<T, J>): Promise<T[]> {
    if (ids.length === 0) return [];
    this.recordReads({ kind: 'ids', ids });
    const joined = join
      ? sql`, ${sql.raw(join.table.selectList('j', 'j_'))} FROM ${this.from} JOIN ${sql.raw(join.table.name)} j ON j.id = t.${this.name(join.foreignKey)}`
      : sql` FROM ${this.from}`;
    const rows = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select}${joined} WHERE t.id IN (${sql.in(ids)})`);
    return rows.map((row) => this.withJoined(row, join));
  }

  /** One page in id order (`desc`: newest first), keyset-paged on the id, optionally filtered. */
  async page(request: PageRequest, order: Order, filter?: Filter<T>): Promise<Page<T>> {
    this.recordReads(this.filtered(filter));
    const where: Fragment[] = [];
    if (filter) where.push(sql`t.${this.name(filter.column)} = ${filter.value}`);
    if (request.after !== undefined) where.push(order === 'desc' ? sql`t.id < ${request.after}` : sql`t.id > ${request.after}`);
    const direction = order === 'desc' ? DESC : ASC;
    const statement = sql`SELECT ${this.select} FROM ${this.from}${sql.where(where)} ORDER BY t.id ${direction} LIMIT ${request.limit + 1}`;
    const page = toPage(this.map(await this.sql.rows(statement)), request.limit);
    const { after } = request;
    if (after !== undefined) page.hasPrevious = () => this.anyUpTo(after, order, filter);
    return page;
  }

  /** Whether a row comes before the one with id `after` (or is that row) in id order. */
  private async anyUpTo(after: number, order: Order, filter?: Filter<T>): Promise<boolean> {
    this.recordReads(this.filtered(filter));
    const where: Fragment[] = [];
    if (filter) where.push(sql`${this.name(filter.column)} = ${filter.value}`);
    where.push(order === 'desc' ? sql`id >= ${after}` : sql`id <= ${after}`);
    return (await this.sql.rows(sql`SELECT 1 AS found FROM ${this.tableName}${sql.where(where)} LIMIT 1`)).length > 0;
  }

  async count(filter?: Filter<T>): Promise<number> {
    this.recordReads(this.filtered(filter));
    const statement = filter
      ? sql`SELECT COUNT(*) AS count FROM ${this.tableName} WHERE ${this.name(filter.column)} = ${filter.value}`
      : sql`SELECT COUNT(*) AS count FROM ${this.tableName}`;
    const [row] = await this.sql.rows<{ count: number | string }>(statement);
    return Number(row.count);
  }

  /** One `INSERT … RETURNING`, atomic by itself; the first version and (unless given) the timestamps are set here. */
  async insert(values: Omit<Partial<T>, 'id' | 'version'>, executor?: Executor): Promise<T> {
    const [inserted] = await this.sql.rows<Record<string, unknown>>(this.insertStatement(values), executor);
    return this.table.fromRow(inserted);
  }

  /**
   * The same INSERT and further ones made from the new row (its `created` event, see
   * EventPublisher.created; its audit entry, AuditLog.created), atomically: on PostgreSQL one
   * statement (a data-modifying WITH), on SQLite one transaction of them (Dialect.insertWith).
   */
  async insertRecorded(values: Omit<Partial<T>, 'id' | 'version'>, ...companions: Companion<T>[]): Promise<T> {
    const newRow = this.recordedRow();
    const inserted = await this.sql.insertWith(
      this.insertStatement(values),
      this.table.name,
      companions.map((companion) => (source: Fragment) => companion(newRow, source)),
    );
    return this.table.fromRow(inserted);
  }

  /**
   * Where the dialect writes companions in the row's statement (Dialect.writesWith): the INSERT,
   * `guard` (an INSERT made from the new row that may write nothing: `ON CONFLICT DO NOTHING
   * RETURNING …`) and the companions, which hold only if the guard wrote its row, in one
   * data-modifying WITH. Returns the new row and whether the guard (and so each companion) wrote.
   */
  protected async insertGuarded(values: Omit<Partial<T>, 'id' | 'version'>, guard: Companion<T>, companions: readonly Companion<T>[], executor: Executor): Promise<{ row: T; held: boolean }> {
    if (!this.sql.dialect.writesWith) throw new Error('insertGuarded: this dialect writes no INSERT inside WITH');
    const newRow = this.recordedRow();
    const guarded = sql`r WHERE EXISTS (SELECT 1 FROM guard)`;
    const fed = companions.map((companion, index) => sql`, ${sql.raw(`companion_${index + 1}`)} AS (${companion(newRow, guarded)})`);
    const statement = sql`WITH r AS (${this.insertStatement(values)}), guard AS (${guard(newRow, NEW_ROW)})${sql.join(fed, '')} SELECT r.*, EXISTS (SELECT 1 FROM guard) AS guard_held FROM r`;
    const [inserted] = await this.sql.rows<Record<string, unknown>>(statement, executor);
    return { row: this.table.fromRow(inserted), held: inserted.guard_held === true };
  }

  /** The new row of a companion (see NewRow). */
  private recordedRow(): NewRow<T> {
    return (this.newRow ??= {
      column: (property) => `r.${this.table.column(property).name}`,
      json: this.sql.dialect.jsonObject(this.table.fields.map((column) => ({ key: column.property, expression: `r.${column.name}`, timestamp: column.timestamp }))),
    });
  }

  /** `INSERT INTO posts (title, body, …) VALUES ($1, $2, …) RETURNING id, title, …` of the given columns. */
  private insertStatement(values: Omit<Partial<T>, 'id' | 'version'>): Fragment {
    const now = new Date();
    const row = { ...values, version: 1 } as Record<string, unknown>;
    row.createdAt = this.sql.timestamp(values.createdAt ?? now);
    row.updatedAt = this.sql.timestamp(values.updatedAt ?? values.createdAt ?? now);
    const columns = this.table.columns.concat(this.hiddenWritten(row)).filter((column) => row[column.property] !== undefined);
    const names = sql.raw(columns.map((column) => column.name).join(', '));
    return sql`INSERT INTO ${this.tableName} (${names}) VALUES (${sql.in(this.parameters(columns, row))}) RETURNING ${this.returning}`;
  }

  /**
   * Applies `changes` to one row and bumps its version; with `expectedVersion`, only if the row
   * is still at that version. Returns the row as it now is, or null when no row matched.
   */
  async update(id: number, changes: Omit<Partial<T>, keyof Versioned>, expectedVersion?: number, executor?: Executor): Promise<T | null> {
    const row = changes as Record<string, unknown>;
    const columns = this.table.columns.concat(this.hiddenWritten(row)).filter((column) => row[column.property] !== undefined);
    const params = this.parameters(columns, row);
    const set = columns.map((column, index) => sql`${this.name(column.property as keyof T & string)} = ${params[index]}`);
    set.push(sql`updated_at = ${this.sql.timestamp(new Date())}`, VERSION_BUMP);
    const version = expectedVersion === undefined ? sql.empty : sql` AND version = ${expectedVersion}`;
    const statement = sql`UPDATE ${this.tableName} SET ${sql.join(set)} WHERE id = ${id}${version} RETURNING ${this.returning}`;
    const [updated] = await this.sql.written<Record<string, unknown>>(statement, executor);
    return updated ? this.table.fromRow(updated) : null;
  }

  /**
   * `update` of a row read in the same transaction: with `expectedVersion` (If-Match), of two
   * writers with the same version exactly one wins and the other gets 412 with nothing changed;
   * without it, a row deleted meanwhile is a 404.
   */
  async updateVersioned(current: T, changes: Omit<Partial<T>, keyof Versioned>, expectedVersion: number | undefined, executor: Executor): Promise<T> {
    if (expectedVersion !== undefined && expectedVersion !== current.version) throw preconditionFailed();
    const updated = await this.update(current.id, changes, expectedVersion, executor);
    if (!updated) throw expectedVersion === undefined ? DomainError.notFound(this.table.entityName, current.id) : preconditionFailed();
    return updated;
  }

  /** Deletes one row; false when there was none (a concurrent delete got there first). */
  async delete(id: number, executor?: Executor): Promise<boolean> {
    return (await this.sql.written(sql`DELETE FROM ${this.tableName} WHERE id = ${id} RETURNING id`, executor)).length > 0;
  }

  private withJoined<J extends object>(row: Record<string, unknown>, join: Join<T, J> | undefined): T {
    const item = this.fromRow(row);
    if (join) (item as Record<string, unknown>)[join.property] = join.table.fromRow(row, 'j_');
    return item;
  }

  protected map(rows: Record<string, unknown>[]): T[] {
    return rows.map((row) => this.fromRow(row));
  }

  /** A row read with `select`: the entity, with its computed columns. */
  protected fromRow(row: Record<string, unknown>): T {
    const item = this.table.fromRow(row);
    for (const column of this.computed) {
      // A statement that does not select it (one that locks rows) leaves it unset rather than empty.
      const value = row[column.name];
      if (value !== undefined) (item as Record<string, unknown>)[column.property] = column.read(value, item);
    }
    return item;
  }

  private parameters(columns: readonly TableColumn[], row: Record<string, unknown>): unknown[] {
    return columns.map((column) => {
      const value = row[column.property];
      return column.timestamp && value instanceof Date ? this.sql.timestamp(value) : value;
    });
  }

  /** Hidden columns (secrets) are written when given, never read back. */
  private hiddenWritten(row: Record<string, unknown>) {
    return this.table.hiddenColumns.filter((column) => row[column.property] !== undefined);
  }
}
