import type { DataSource, EntityManager } from 'typeorm';
import { Dialect, literal, type JsonMember, type LogPosition, type SearchParts, type Send } from '../common/persistence/dialect.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { rowMaker } from '../common/persistence/codegen.js';
import { type TextQuery, toFts5Match } from '../common/persistence/text-search.js';
import { primaryLanguage } from '../common/i18n/locale-lookup.js';
import { SqlStatementSpans, startStatementSpan } from '../tracing/sql-spans.js';
import { failSpan } from '../tracing/spans.js';
import { tracingState } from '../tracing/tracing-state.js';

interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
  columns(): { name: string }[];
  raw(raw: boolean): SqliteStatement;
}

/** A prepared statement, and for one that returns rows, what makes a row object of its values. */
interface Prepared {
  statement: SqliteStatement;
  toRow: ((values: unknown[]) => Record<string, unknown>) | null;
}

interface SqliteConnection {
  prepare(text: string): SqliteStatement;
}

/** How much more a title hit weighs than a body hit in the search's bm25 rank. */
const SEARCH_TITLE_WEIGHT = '10.0';

/**
 * The FTS5 tables (migration 1765950000000), each a post's language reads in: English posts in
 * `posts_fts` (Porter stems), every other post in `posts_fts_plain` (words only).
 */
const SEARCH_TABLES = ['posts_fts', 'posts_fts_plain'] as const;
type SearchTable = (typeof SEARCH_TABLES)[number];

/** The table a locale's posts are in, and its query is read by. */
const searchTableOf = (locale: string): SearchTable => (primaryLanguage(locale) === 'en' ? 'posts_fts' : 'posts_fts_plain');

/** The bm25 of a search's match in `table` (negated: higher is better). */
const bm25 = (table: SearchTable) => `-bm25(${table}, ${SEARCH_TITLE_WEIGHT}, 1.0)`;

/** How often the search matches in a column: highlight() adds one char(1) before each match, nothing else. */
const matchesIn = (table: SearchTable, column: number, name: string) => `(length(highlight(${table}, ${column}, char(1), '')) - length(${table}.${name}))`;

/**
 * The rank of a search's match. FTS5 clamps the idf of a term that more than half the posts hold
 * to 1e-6, so such a word gives every post a bm25 of a few millionths whose order follows the
 * posts' lengths rather than the word's occurrences (a long post with it five times ranks with a
 * short one holding it once). Below RANK_FLOOR a bm25 is that clamp's noise and counts as 0 (the
 * most a clamped term can give is 1e-6 × (k1 + 1) × the title weight = 2.2e-5); ties are broken
 * by the occurrences (a title one weighing as bm25 weighs it), each worth 1e-9, which never
 * reaches the floor; then by id, as every order. PostgreSQL's ts_rank_cd counts occurrences itself.
 * Each table's bm25 weighs its words against its own posts.
 */
const RANK_FLOOR = '1e-4';
const searchRank = (table: SearchTable) =>
  `(CASE WHEN ${bm25(table)} >= ${RANK_FLOOR} THEN ${bm25(table)} ELSE 0 END + 1e-9 * (${SEARCH_TITLE_WEIGHT} * ${matchesIn(table, 0, 'title')} + ${matchesIn(table, 1, 'body')}))`;

/** The snippet of post `p.id` from `table`, around the best match of `p.query`. */
const snippetFrom = (table: SearchTable) => `(SELECT snippet(${table}, -1, '', '', '…', 24) FROM ${table} WHERE ${table} MATCH p.query AND ${table}.rowid = p.id)`;

/** Past this many distinct texts (an `IN (…)` list has one per length), statements are prepared afresh each time. */
const PREPARED_STATEMENTS_MAX = 500;

/**
 * SQLite through better-sqlite3: one connection that TypeORM opened and every caller shares, one
 * writer at a time. Transactions are therefore queued here, one at a time: two started together
 * on the shared connection would nest as savepoints of each other, and one's rollback could take
 * the other's acknowledged write with it.
 */
export class SqliteDialect extends Dialect {
  readonly shared = false;
  readonly writesWith = false;
  /** Reads of the log wait their turn in the queue (`single`), so no transaction is open meanwhile. */
  readonly eventsVisible = null;
  private readonly prepared = new Map<string, Prepared>();
  /** Per table, the new row of insertWith's companion. */
  private readonly newRows = new Map<string, Fragment>();
  private tail: Promise<unknown> = Promise.resolve();
  /** What waits for the end of the transaction now open (whenTransactionEnds); null when none is. */
  private ending: ((committed: boolean) => void)[] | null = null;

  /** No instrumentation traces better-sqlite3: the spans of its statements are ours (`send`, SqlStatementSpans). */
  readonly dbSystemName = 'sqlite';

  constructor(private readonly dataSource: DataSource) {
    super();
    // With tracing on, a span per statement TypeORM's query runner sends.
    if (tracingState.enabled) dataSource.subscribers.push(new SqlStatementSpans(this.dbSystemName));
  }

  placeholder(): string {
    return '?';
  }

  /** A UTC `YYYY-MM-DD HH:MM:SS.SSS` text, as TypeORM writes a `datetime`. */
  timestamp(date: Date): string {
    return date.toISOString().replace('T', ' ').replace('Z', '');
  }

  lockRows(): string {
    return '';
  }

  jsonObject(members: readonly JsonMember[]): string {
    const pairs = members.map(({ key, expression, timestamp }) => `${literal(key)}, ${timestamp ? `strftime('%Y-%m-%dT%H:%M:%fZ', ${expression})` : expression}`);
    return `json_object(${pairs.join(', ')})`;
  }

  // One string joined by U+001F (cheaper to read than JSON); NULL when there are no rows.
  arrayOf(expression: string, from: string): string {
    return `(SELECT group_concat(${expression}, char(31)) ${from})`;
  }

  readArray(value: unknown): string[] {
    return typeof value === 'string' ? value.split('\x1f') : [];
  }

  jsonRows(values: readonly string[], from: Fragment): Fragment {
    return sql`(SELECT json_group_array(json_array(${sql.raw(values.join(', '))})) ${from})`;
  }

  // The single writer leaves every event's tx at 0, so the id alone orders the log; a row-value
  // comparison on (tx, id) would make SQLite read the whole index.
  eventOrder(direction: 'asc' | 'desc'): string {
    return direction === 'asc' ? 'id' : 'id DESC';
  }

  eventsAfter(position: LogPosition): Fragment {
    return sql`id > ${position.id}`;
  }

  notify(): null {
    return null;
  }

  searchText(query: TextQuery): string {
    return toFts5Match(query);
  }

  /**
   * FTS5 ranks by bm25 (negated: higher is better; searchRank), a title hit weighing ten body hits. The
   * match is read first, then the filters and the keyset over its rows; the snippet (around the
   * best match, no markers: plain text) is cut for the page's rows only, after the limit: it
   * weighs every term against every token of a post, the most costly part of a search when
   * computed for every match. The query text comes along from `q` into the page's rows, where
   * each snippet is one more lookup of its own post, in the table it matched in (`source`).
   */
  searchStatement({ query, languages, select, where, order, limit }: SearchParts): Fragment {
    const inner = (text: string) => text.replace(/\bRANK\b/g, 's.rank');
    const outer = (text: string) => text.replace(/\bRANK\b/g, 'p.rank');
    const filters = where.length > 0 ? sql` WHERE ${sql.join(where.map((condition) => condition.mapText(inner)), ' AND ')}` : sql.empty;
    const tables = this.searchTables(languages);
    const matches = sql.join(
      tables.map(
        (table, source) =>
          sql`SELECT ${sql.raw(table)}.rowid AS id, ${sql.raw(searchRank(table))} AS rank, q.query, ${sql.raw(String(source))} AS source FROM (SELECT ${query} AS query) q CROSS JOIN ${sql.raw(table)} WHERE ${sql.raw(table)} MATCH q.query`,
      ),
      ' UNION ALL ',
    );
    const snippet = tables.length === 1 ? snippetFrom(tables[0]) : `CASE p.source ${tables.map((table, source) => `WHEN ${source} THEN ${snippetFrom(table)}`).join(' ')} END`;
    return sql`SELECT ${select}, p.rank AS search_rank, ${sql.raw(snippet)} AS search_snippet FROM (SELECT t.id, s.rank, s.query, s.source FROM (${matches}) s JOIN posts t ON t.id = s.id${filters} ORDER BY ${sql.raw(inner(order))} LIMIT ${limit}) p JOIN posts t ON t.id = p.id ORDER BY ${sql.raw(outer(order))}`;
  }

  searchCondition(query: string, languages: readonly string[], alias = 't'): Fragment {
    const matches = this.searchTables(languages).map((table) => sql`SELECT rowid FROM ${sql.raw(table)} WHERE ${sql.raw(table)} MATCH ${query}`);
    return sql`${sql.raw(alias)}.id IN (${sql.join(matches, ' UNION ALL ')})`;
  }

  /** The tables of the languages a search reads its query in (in SEARCH_TABLES' order, each once). */
  private searchTables(languages: readonly string[]): SearchTable[] {
    const wanted = new Set(languages.map(searchTableOf));
    return SEARCH_TABLES.filter((table) => wanted.has(table));
  }

  send(text: string, params: readonly unknown[]): unknown[] {
    // better-sqlite3 binds no booleans (TypeORM's runner turns them into 0/1 too).
    const values = params.some((value) => typeof value === 'boolean') ? params.map((value) => (typeof value === 'boolean' ? Number(value) : value)) : params;
    // With tracing on, a span per statement (TypeORM's own statements get theirs from SqlStatementSpans).
    const span = tracingState.enabled ? startStatementSpan(this.dbSystemName, text) : undefined;
    try {
      const { statement, toRow } = this.prepare(text);
      if (!statement.reader) {
        statement.run(...values);
        return [];
      }
      const rows = statement.all(...values);
      if (toRow !== null) for (let index = 0; index < rows.length; index += 1) rows[index] = toRow(rows[index] as unknown[]);
      return rows;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span?.end();
    }
  }

  writtenRows(result: unknown): unknown[] {
    return result as unknown[];
  }

  /**
   * BEGIN … COMMIT on the one connection, as prepared statements (counted and traced as any
   * other): the queue already keeps every other transaction out, so TypeORM's transaction
   * machinery would only add time to each write. Statements inside run on `dataSource.manager`,
   * which Sql sends over the same connection.
   */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.queued(async () => {
      const ending: ((committed: boolean) => void)[] = [];
      this.ending = ending;
      let committed = false;
      try {
        this.control('BEGIN');
        const result = await work(this.dataSource.manager);
        this.control('COMMIT');
        committed = true;
        return result;
      } catch (error) {
        // A failed COMMIT leaves the transaction open too.
        try {
          this.control('ROLLBACK');
        } catch {
          // No transaction was open (BEGIN failed, or SQLite already rolled it back).
        }
        throw error;
      } finally {
        this.ending = null;
        for (const callback of ending) callback(committed);
      }
    });
  }

  whenTransactionEnds(callback: (committed: boolean) => void): boolean {
    if (!this.ending) return false;
    this.ending.push(callback);
    return true;
  }

  /** A transaction control statement: counted (db_queries_total) as Sql counts the others. */
  private control(text: 'BEGIN' | 'COMMIT' | 'ROLLBACK'): void {
    this.dataSource.logger.logQuery(text, []);
    this.send(text, []);
  }

  /** Waits its turn, so that it never runs inside another caller's open transaction, whose rollback would take it along. */
  single<T>(work: () => Promise<T>): Promise<T> {
    return this.queued(work);
  }

  /**
   * No INSERT inside WITH here: a transaction of them all, each companion reading the new row by
   * its id (not by last_insert_rowid(), which the first companion's INSERT moves on).
   */
  insertWith(insert: Fragment, table: string, companions: readonly ((source: Fragment) => Fragment)[], send: Send): Promise<Record<string, unknown>> {
    return this.transaction(async (manager) => {
      const [row] = await send<Record<string, unknown>>(insert, manager);
      let from = this.newRows.get(table);
      if (from === undefined) this.newRows.set(table, (from = sql.raw(`${table} r WHERE r.id = `)));
      const source = sql`${from}${row.id}`;
      for (const companion of companions) await send(companion(source), manager);
      return row;
    });
  }

  listen(): null {
    return null;
  }

  private queued<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private prepare(text: string): Prepared {
    let prepared = this.prepared.get(text);
    if (prepared === undefined) {
      const connection = (this.dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
      const statement = connection.prepare(text);
      const kept = this.prepared.size < PREPARED_STATEMENTS_MAX;
      // A row maker is compiled once per kept statement; one prepared afresh each time keeps better-sqlite3's rows.
      const toRow = kept && statement.reader ? rowMaker(statement.columns().map((column) => column.name)) : null;
      if (toRow !== null) statement.raw(true);
      prepared = { statement, toRow };
      if (kept) this.prepared.set(text, prepared);
    }
    return prepared;
  }
}
