import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { EntityTable } from './entity-table.js';

/** Where a statement runs: the pool, or the connection of an open transaction. */
export type Executor = Pick<EntityManager, 'query'>;

interface PgResult {
  rows: unknown[];
}
interface PgPool {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<PgResult>;
}
interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}
interface SqliteConnection {
  prepare(text: string): SqliteStatement;
}

/**
 * Statements kept prepared: named on PostgreSQL (parsed and planned once per connection), cached
 * on SQLite. The fixed statements of the repositories are a few dozen, `IN (…)` lists add one per
 * length; past this many distinct texts, further ones are prepared afresh (sent unnamed), so
 * memory stays bounded here and on the server.
 */
const PREPARED_STATEMENTS_MAX = 500;

/**
 * The one way the repositories reach the database: fixed SQL with bound parameters, without
 * the query builder and entity hydration, which cost more than the query itself. Statements are
 * written once with PostgreSQL's `$1, $2, …` placeholders, each used once and in order, so that
 * SQLite's `?` can stand in for them; a statement's text depends on its shape only.
 *
 * Outside a transaction a statement goes straight to the driver TypeORM opened (the pg pool,
 * or better-sqlite3's one connection) as a prepared statement: TypeORM's query runner around
 * each statement (a runner per call, its events and bookkeeping) cost more than the statement
 * on the post page. Errors are wrapped and statements counted (db_queries_total) as TypeORM
 * does. Inside a transaction, the transaction's own query runner runs it.
 */
@Injectable()
export class Sql {
  readonly sqlite: boolean;
  private readonly names = new Map<string, string>();
  private readonly prepared = new Map<string, SqliteStatement>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sqlite = dataSource.options.type !== 'postgres';
  }

  /** The table of an entity, read from its decorators (once per repository, at start-up). */
  table<T extends object>(entity: new () => T): EntityTable<T> {
    return new EntityTable<T>(this.dataSource.getMetadata(entity));
  }

  statement(text: string): string {
    return this.sqlite ? text.replace(/\$\d+/g, '?') : text;
  }

  /** `$from, $from+1, …` for a list of `count` parameters (an `IN (…)` list). */
  placeholders(count: number, from = 1): string {
    return Array.from({ length: count }, (_, index) => `$${from + index}`).join(', ');
  }

  /** A timestamp as a parameter, stored as TypeORM stores it: a UTC `YYYY-MM-DD HH:MM:SS.SSS` text on SQLite. */
  timestamp(date: Date): Date | string {
    return this.sqlite ? date.toISOString().replace('T', ' ').replace('Z', '') : date;
  }

  rows<T>(statement: string, params: readonly unknown[], executor?: Executor): Promise<T[]> {
    if (this.isShared(executor)) return this.direct(statement, params) as Promise<T[]>;
    return executor!.query(statement, params as unknown[]);
  }

  /** The rows an `UPDATE … RETURNING` or `DELETE … RETURNING` wrote. */
  async written<T>(statement: string, params: readonly unknown[], executor?: Executor): Promise<T[]> {
    if (this.isShared(executor)) return (await this.direct(statement, params)) as T[];
    const result: unknown = await executor!.query(statement, params as unknown[]);
    // TypeORM's PostgreSQL runner adds the count to what UPDATE and DELETE return.
    return (this.sqlite ? result : (result as [T[], number])[0]) as T[];
  }

  /**
   * No transaction's connection: the pool on PostgreSQL. On SQLite every caller shares the one
   * connection anyway (transactions are queued BEGIN … COMMIT on it, see TransactionRunner).
   */
  private isShared(executor: Executor | undefined): boolean {
    return executor === undefined || executor === this.dataSource || (this.sqlite && executor === this.dataSource.manager);
  }

  private async direct(text: string, params: readonly unknown[]): Promise<unknown[]> {
    // better-sqlite3 binds no booleans (TypeORM's runner turns them into 0/1 too).
    const values = this.sqlite && params.some((value) => typeof value === 'boolean') ? params.map((value) => (typeof value === 'boolean' ? Number(value) : value)) : (params as unknown[]);
    this.dataSource.logger.logQuery(text, values);
    try {
      if (this.sqlite) {
        const statement = this.sqliteStatement(text);
        return statement.reader ? statement.all(...values) : (statement.run(...values), []);
      }
      const pool = (this.dataSource.driver as unknown as { master: PgPool }).master;
      return (await pool.query({ text, values, name: this.nameOf(text) })).rows;
    } catch (error) {
      throw new QueryFailedError(text, values, error as Error);
    }
  }

  private sqliteStatement(text: string): SqliteStatement {
    let statement = this.prepared.get(text);
    if (statement === undefined) {
      const connection = (this.dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
      statement = connection.prepare(text);
      if (this.prepared.size < PREPARED_STATEMENTS_MAX) this.prepared.set(text, statement);
    }
    return statement;
  }

  private nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < PREPARED_STATEMENTS_MAX) this.names.set(text, (name = `blog_${this.names.size}`));
    return name;
  }
}
