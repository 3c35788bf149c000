import { ANY_TAG, recordReadTags } from '../cache/read-tags.js';
import { DomainError } from '../errors/domain-error.js';
import { type Page, type PageRequest, toPage } from '../pagination/cursor.js';
import type { Statement } from './dialect.js';
import type { EntityTable, TableColumn } from './entity-table.js';
import type { Executor, Sql } from './sql.js';
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
 * `INSERT … SELECT … FROM ${source}` (the new row being `r` there), its parameters numbered
 * from `next`.
 */
export type Companion<T> = (row: NewRow<T>, source: string, next: number) => Statement;

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
  protected readonly select: string;
  /** The columns alone (for a statement that locks rows: no subquery). */
  protected readonly columnList: string;
  protected readonly from: string;
  private readonly statements = new Map<string, string>();
  private newRow?: NewRow<T>;

  protected constructor(
    protected readonly sql: Sql,
    entity: new () => T,
    private readonly computed: readonly ComputedColumn[] = [],
  ) {
    this.table = sql.table(entity);
    this.columnList = this.table.selectList('t');
    this.select = [this.columnList, ...computed.map((column) => `${column.expression('t')} AS ${column.name}`)].join(', ');
    this.from = `${this.table.name} t`;
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
    const statement = this.cached('byId', () => `SELECT ${this.select} FROM ${this.from} WHERE t.id = $1`);
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [id], executor);
    return row ? this.fromRow(row) : null;
  }

  async exists(id: number, executor?: Executor): Promise<boolean> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const statement = this.cached('exists', () => `SELECT 1 AS found FROM ${this.table.name} WHERE id = $1`);
    return (await this.sql.rows(statement, [id], executor)).length > 0;
  }

  /** For batching: the rows with these ids, in no particular order (with `join`, each with its joined row). */
  async findByIds<J extends object>(ids: readonly number[], join?: Join<T, J>): Promise<T[]> {
    if (ids.length === 0) return [];
    this.recordReads({ kind: 'ids', ids });
    const statement = this.cached(
      `byIds:${ids.length}:${join?.property ?? ''}`,
      () => `SELECT ${this.select}${this.joinedList(join)} FROM ${this.from}${this.joinClause(join)} WHERE t.id IN (${this.sql.placeholders(ids.length)})`,
    );
    const rows = await this.sql.rows<Record<string, unknown>>(statement, ids);
    return rows.map((row) => this.withJoined(row, join));
  }

  /** One page in id order (`desc`: newest first), keyset-paged on the id, optionally filtered. */
  async page(request: PageRequest, order: Order, filter?: Filter<T>): Promise<Page<T>> {
    this.recordReads(this.filtered(filter));
    const params: number[] = [];
    const where: string[] = [];
    if (filter) where.push(`t.${this.table.column(filter.column).name} = $${params.push(filter.value)}`);
    if (request.after !== undefined) where.push(`t.id ${order === 'desc' ? '<' : '>'} $${params.push(request.after)}`);
    params.push(request.limit + 1);
    const key = `page:${order}:${filter?.column ?? ''}:${request.after !== undefined}`;
    const statement = this.cached(
      key,
      () => `SELECT ${this.select} FROM ${this.from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY t.id ${order.toUpperCase()} LIMIT $${params.length}`,
    );
    const page = toPage(this.map(await this.sql.rows(statement, params)), request.limit);
    const { after } = request;
    if (after !== undefined) page.hasPrevious = () => this.anyUpTo(after, order, filter);
    return page;
  }

  /** Whether a row comes before the one with id `after` (or is that row) in id order. */
  private async anyUpTo(after: number, order: Order, filter?: Filter<T>): Promise<boolean> {
    this.recordReads(this.filtered(filter));
    const params: number[] = [];
    const where: string[] = [];
    if (filter) where.push(`${this.table.column(filter.column).name} = $${params.push(filter.value)}`);
    where.push(`id ${order === 'desc' ? '>=' : '<='} $${params.push(after)}`);
    const statement = this.cached(
      `upTo:${order}:${filter?.column ?? ''}`,
      () => `SELECT 1 AS found FROM ${this.table.name} WHERE ${where.join(' AND ')} LIMIT 1`,
    );
    return (await this.sql.rows(statement, params)).length > 0;
  }

  async count(filter?: Filter<T>): Promise<number> {
    this.recordReads(this.filtered(filter));
    const statement = this.cached(
      `count:${filter?.column ?? ''}`,
      () => `SELECT COUNT(*) AS count FROM ${this.table.name}${filter ? ` WHERE ${this.table.column(filter.column).name} = $1` : ''}`,
    );
    const [row] = await this.sql.rows<{ count: number | string }>(statement, filter ? [filter.value] : []);
    return Number(row.count);
  }

  /** One `INSERT … RETURNING`, atomic by itself; the first version and (unless given) the timestamps are set here. */
  async insert(values: Omit<Partial<T>, 'id' | 'version'>, executor?: Executor): Promise<T> {
    const insert = this.insertStatement(values);
    const [inserted] = await this.sql.rows<Record<string, unknown>>(this.cached(insert.key, () => insert.text), insert.params, executor);
    return this.table.fromRow(inserted);
  }

  /**
   * The same INSERT and a second one made from the new row (its `created` event, see
   * EventPublisher.created), atomically: on PostgreSQL one statement (a data-modifying WITH), on
   * SQLite one transaction of the two (Dialect.insertWith).
   */
  async insertRecorded(values: Omit<Partial<T>, 'id' | 'version'>, companion: Companion<T>): Promise<T> {
    const insert = this.insertStatement(values);
    const newRow = (this.newRow ??= {
      column: (property) => `r.${this.table.column(property).name}`,
      json: this.sql.dialect.jsonObject(this.table.fields.map((column) => ({ key: column.property, expression: `r.${column.name}`, timestamp: column.timestamp }))),
    });
    const inserted = await this.sql.insertWith(insert, this.table.name, (source, next) => companion(newRow, source, next));
    return this.table.fromRow(inserted);
  }

  /** `INSERT INTO posts (title, body, …) VALUES ($1, $2, …) RETURNING id, title, …` of the given columns. */
  private insertStatement(values: Omit<Partial<T>, 'id' | 'version'>): Statement & { key: string } {
    const now = new Date();
    const row = { ...values, version: 1 } as Record<string, unknown>;
    row.createdAt = this.sql.timestamp(values.createdAt ?? now);
    row.updatedAt = this.sql.timestamp(values.updatedAt ?? values.createdAt ?? now);
    const columns = this.table.columns.concat(this.hiddenWritten(row)).filter((column) => row[column.property] !== undefined);
    return {
      key: `insert:${columns.map((column) => column.property).join(',')}`,
      text:
        `INSERT INTO ${this.table.name} (${columns.map((column) => column.name).join(', ')}) ` +
        `VALUES (${this.sql.placeholders(columns.length)}) RETURNING ${this.table.returningList}`,
      params: this.parameters(columns, row),
    };
  }

  /**
   * Applies `changes` to one row and bumps its version; with `expectedVersion`, only if the row
   * is still at that version. Returns the row as it now is, or null when no row matched.
   */
  async update(id: number, changes: Omit<Partial<T>, keyof Versioned>, expectedVersion?: number, executor?: Executor): Promise<T | null> {
    const row = changes as Record<string, unknown>;
    const columns = this.table.columns.concat(this.hiddenWritten(row)).filter((column) => row[column.property] !== undefined);
    const params = this.parameters(columns, row);
    params.push(this.sql.timestamp(new Date()), id);
    if (expectedVersion !== undefined) params.push(expectedVersion);
    const statement = this.cached(
      `update:${columns.map((column) => column.property).join(',')}:${expectedVersion !== undefined}`,
      () => {
        const set = columns.map((column, index) => `${column.name} = $${index + 1}`);
        set.push(`updated_at = $${columns.length + 1}`, 'version = version + 1');
        const version = expectedVersion === undefined ? '' : ` AND version = $${columns.length + 3}`;
        return `UPDATE ${this.table.name} SET ${set.join(', ')} WHERE id = $${columns.length + 2}${version} RETURNING ${this.table.returningList}`;
      },
    );
    const [updated] = await this.sql.written<Record<string, unknown>>(statement, params, executor);
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
    const statement = this.cached('delete', () => `DELETE FROM ${this.table.name} WHERE id = $1 RETURNING id`);
    return (await this.sql.written(statement, [id], executor)).length > 0;
  }

  private joinedList<J extends object>(join: Join<T, J> | undefined): string {
    return join ? `, ${join.table.selectList('j', 'j_')}` : '';
  }

  private joinClause<J extends object>(join: Join<T, J> | undefined): string {
    return join ? ` JOIN ${join.table.name} j ON j.id = t.${this.table.column(join.foreignKey).name}` : '';
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

  /**
   * A fixed statement, built (and adapted to the database) once. `IN (…)` lists have one per
   * length (at most MAX_BATCH_SIZE of them), so a statement's text is never rebuilt per call.
   */
  protected cached(key: string, build: () => string): string {
    let statement = this.statements.get(key);
    if (statement === undefined) {
      statement = this.sql.statement(build());
      this.statements.set(key, statement);
    }
    return statement;
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
