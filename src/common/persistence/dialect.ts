import type { EntityManager } from 'typeorm';
import type { Fragment } from './sql-template.js';
import type { TextQuery } from './text-search.js';

/** Where a statement runs: the pool, or the connection of an open transaction. */
export type Executor = Pick<EntityManager, 'query'>;

/** Sends one statement and returns its rows (Sql.rows). */
export type Send = <R>(statement: Fragment, executor?: Executor) => Promise<R[]>;

/** A member of a JSON object built in SQL: `key` is a literal, `expression` SQL. */
export interface JsonMember {
  key: string;
  expression: string;
  /** A timestamp column: written as ISO 8601. */
  timestamp: boolean;
}

/** The parts of a search statement (Dialect.searchStatement). */
export interface SearchParts {
  /** The search's parameter (`searchText`). */
  query: string;
  /** The locales the query is read in, best first (the reader's language chain; at least one). */
  languages: readonly string[];
  /** The posts' columns, over `t`. */
  select: Fragment;
  /** Over `t` and `RANK`. */
  where: readonly Fragment[];
  /** Over `t` and `RANK`. */
  order: string;
  limit: number;
}

/** A string as an SQL literal (`'it''s'`), for names the code declares, never for input. */
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Where an event stands in the outbox: its transaction and its id. */
export interface LogPosition {
  tx: number;
  id: number;
}

/** What a connection that listens for the database's announcements calls. */
export interface NotificationHandlers {
  notification(channel: string, payload: string | undefined): void;
  /** Listening (again): announcements made while it was not were not heard. */
  up(): void;
  /** The connection is lost: nothing is heard until `up` again. */
  down(): void;
}

export interface Listener {
  /** Settles once the first attempt to listen has succeeded or failed. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Everything that differs between the databases the service runs on, and nothing else: the
 * implementations are `src/database/sqlite.dialect.ts` and `src/database/postgres.dialect.ts`,
 * and the rest of the code asks them, never which database it is. Statements are written once
 * in PostgreSQL's syntax where both databases share it; the generated files under
 * `src/database/queries/<dialect>/` show what each one is actually sent.
 */
export abstract class Dialect {
  /**
   * Whether other instances may use the same database and hear of its commits (PostgreSQL, with
   * LISTEN/NOTIFY). A SQLite file is opened by one process, which knows of every change itself.
   */
  abstract readonly shared: boolean;

  /** The database's `db.system.name` in trace spans (OpenTelemetry database conventions). */
  abstract readonly dbSystemName: string;

  // --- Statement text and parameters -----------------------------------------------------------

  /** The placeholder of the `index`th parameter (from 1) in this database's statements. */
  abstract placeholder(index: number): string;

  /** A timestamp as a parameter, stored as TypeORM stores it. */
  abstract timestamp(date: Date): Date | string;

  /**
   * The clause that keeps the rows a transaction reads locked until it ends (` FOR UPDATE`, of
   * one table's rows with `of`, passing over rows others hold with `skipLocked`); nothing where
   * one writer at a time needs no row locks.
   */
  abstract lockRows(options?: { of?: string; skipLocked?: boolean }): string;

  /** A JSON object (as text) of these members, timestamps in ISO 8601. */
  abstract jsonObject(members: readonly JsonMember[]): string;

  // --- Full-text search of posts (migrations 1765300000000, 1765950000000) ----------------------
  // Each post is indexed in its own locale's language; a search reads its query in each of the
  // reader's languages and finds the posts that match any of those readings.

  /** The parameter a search of `query` sends (`query` of `searchStatement`, of `searchCondition`). */
  abstract searchText(query: TextQuery): string;

  /**
   * A page of the posts (alias `t`) that match the search `query`, each with `rank` (higher: more
   * relevant) and `snippet` (plain text around the first match): `where` and `order` are
   * written over `t` and `RANK` (the rank).
   */
  abstract searchStatement(parts: SearchParts): Fragment;

  /** A condition on the post of `alias` (`t` unless said): it matches the search `query` (searchText) read in `languages` (as SearchParts'). */
  abstract searchCondition(query: string, languages: readonly string[], alias?: string): Fragment;

  /**
   * The text values of `expression` over the rows of `from` (`FROM … WHERE …`, none of them
   * holding U+001F), in no particular order, as one value (a scalar subquery); `readArray` turns
   * what the driver returns into an array (empty when there were no rows).
   */
  abstract arrayOf(expression: string, from: string): string;

  abstract readArray(value: unknown): string[];

  /**
   * The rows of `from` (`FROM … WHERE …`, with its parameters) as one JSON array (text) of positional arrays, one per
   * row, each of `values` (SQL expressions) in order; NULL or `[]` when there are no rows. Timestamps
   * come as either driver's text of them (Date-readable by toDate).
   */
  abstract jsonRows(values: readonly string[], from: Fragment): Fragment;

  // --- The outbox (`events`) -------------------------------------------------------------------

  /**
   * The condition under which an event is readable: every transaction that began before the
   * event's own has ended, so the log is read in the order transactions commit. Null where no
   * read can see an open transaction's events.
   */
  abstract readonly eventsVisible: string | null;

  /** The log's order, oldest first (`asc`) or newest first. */
  abstract eventOrder(direction: 'asc' | 'desc'): string;

  /** The events after `position`, as a condition. */
  abstract eventsAfter(position: LogPosition): Fragment;

  /** Announces `payload` on `channel` to every session listening; null where none can listen. */
  abstract notify(channel: string, payload: string): Fragment | null;

  // --- Running statements ----------------------------------------------------------------------

  /** Sends a statement straight to the driver, outside any transaction, as a prepared statement. */
  abstract send(text: string, values: readonly unknown[]): unknown[] | Promise<unknown[]>;

  /**
   * As `send`, the statement cancelled once it has run `timeoutMs` where the database can cancel
   * it (its error then satisfies `isTimeout`). SQLite cannot: better-sqlite3 offers neither a
   * progress handler nor an interrupt, and runs the statement on the event loop, so there the
   * statement's shape has to bound its work (search: SEARCH_MAX_TERMS).
   */
  sendBounded(text: string, values: readonly unknown[], timeoutMs: number): unknown[] | Promise<unknown[]> {
    void timeoutMs;
    return this.send(text, values);
  }

  /** Whether an error of `sendBounded` is its timeout. */
  isTimeout(error: unknown): boolean {
    void error;
    return false;
  }

  /** The rows of an `UPDATE/DELETE … RETURNING` run by a transaction's query runner. */
  abstract writtenRows(result: unknown): unknown[];

  /** Runs `work` in one transaction; `manager` is the executor of its statements. */
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;

  /**
   * Calls `callback` once the transaction now open ends: with true once it has committed, with
   * false if it rolled back. False (and nothing is called) where the dialect does not tell (no
   * transaction of its own is open, or other processes share the database).
   */
  abstract whenTransactionEnds(callback: (committed: boolean) => void): boolean;

  /** Runs a write that is one statement, atomic by itself, with no transaction around it. */
  abstract single<T>(work: () => Promise<T>): Promise<T>;

  /** Whether an INSERT's companions ride in its statement (a data-modifying WITH), or are statements of their own (insertWith). */
  abstract readonly writesWith: boolean;

  /**
   * An `INSERT … RETURNING` of one row into `table` (its `id` among the columns returned) and
   * further INSERTs made from the new row (each `companion(source)`: an `INSERT … SELECT … FROM
   * ${source}`, the new row being `r`), atomically. Returns the new row.
   */
  abstract insertWith(insert: Fragment, table: string, companions: readonly ((source: Fragment) => Fragment)[], send: Send): Promise<Record<string, unknown>>;

  /** A connection that hears `channels` and comes back after an outage; null where nothing is announced. */
  abstract listen(name: string, channels: readonly string[], handlers: NotificationHandlers): Listener | null;
}
