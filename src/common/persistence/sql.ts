import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, QueryFailedError } from 'typeorm';
import { DomainError } from '../errors/domain-error.js';
import { Dialect, type Executor } from './dialect.js';
import { EntityTable } from './entity-table.js';
import { isPlainRead, readRoute } from './read-route.js';
import { ReadRouter } from './read-router.js';
import { type Fragment, Renderer } from './sql-template.js';

export type { Executor };

/**
 * The one way the repositories reach the database: statements written with the `sql` tag
 * (sql-template.ts) with bound parameters, without the query builder and entity hydration, which
 * cost more than the query itself. A statement is rendered into the dialect's text (placeholders
 * in its form), and that text is its key: the dialect prepares each text once and keeps it.
 *
 * Outside a transaction a statement goes straight to the driver TypeORM opened, as a prepared
 * statement (Dialect.send): TypeORM's query runner around each statement (a runner per call, its
 * events and bookkeeping) cost more than the statement on the post page. Errors are wrapped and
 * statements counted (db_queries_total) as TypeORM does. Inside a transaction, the
 * transaction's own query runner runs it.
 */
@Injectable()
export class Sql {
  private readonly renderer: Renderer;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    readonly dialect: Dialect,
    private readonly replicas: ReadRouter,
  ) {
    this.renderer = new Renderer((index) => dialect.placeholder(index));
  }

  /** The table of an entity, read from its decorators (once per repository, at start-up). */
  table<T extends object>(entity: new () => T): EntityTable<T> {
    return new EntityTable<T>(this.dataSource.getMetadata(entity));
  }

  /** A timestamp as a parameter, stored as TypeORM stores it. */
  timestamp(date: Date): Date | string {
    return this.dialect.timestamp(date);
  }

  rows<T>(statement: Fragment, executor?: Executor): Promise<T[]> {
    const { text, params } = this.renderer.render(statement);
    if (this.isShared(executor)) {
      // An anonymous read's plain SELECT may go to a read replica (database/replicas/).
      const route = this.replicas.enabled ? readRoute.getStore() : undefined;
      if (route !== undefined && isPlainRead(text)) {
        this.dataSource.logger.logQuery(text, params);
        return this.replicas.read(text, params, route, () => this.send(text, params, false)) as Promise<T[]>;
      }
      return this.send(text, params) as Promise<T[]>;
    }
    return executor!.query(text, params);
  }

  /**
   * A read that may run no longer than `timeoutMs` (0: as long as it takes) where the database
   * can stop it (Dialect.sendBounded); past it 503 SERVICE_UNAVAILABLE with Retry-After: the
   * server gave up on the work, the same request may well succeed when it is less busy. A
   * replica read stays as `rows` sends it (its own pool, its own load).
   */
  boundedRows<T>(statement: Fragment, timeoutMs: number): Promise<T[]> {
    if (timeoutMs <= 0) return this.rows(statement);
    const { text, params } = this.renderer.render(statement);
    const route = this.replicas.enabled ? readRoute.getStore() : undefined;
    if (route !== undefined && isPlainRead(text)) {
      this.dataSource.logger.logQuery(text, params);
      return this.replicas.read(text, params, route, () => this.sendBounded(text, params, timeoutMs, false)) as Promise<T[]>;
    }
    return this.sendBounded(text, params, timeoutMs) as Promise<T[]>;
  }

  /** The rows an `UPDATE … RETURNING` or `DELETE … RETURNING` wrote. */
  async written<T>(statement: Fragment, executor?: Executor): Promise<T[]> {
    const { text, params } = this.renderer.render(statement);
    if (this.isShared(executor)) return (await this.send(text, params)) as T[];
    return this.dialect.writtenRows(await executor!.query(text, params)) as T[];
  }

  /** An `INSERT … RETURNING` of one row into `table` and further INSERTs made from the new row, atomically (see Dialect.insertWith). */
  insertWith(insert: Fragment, table: string, companions: readonly ((source: Fragment) => Fragment)[]): Promise<Record<string, unknown>> {
    return this.dialect.insertWith(insert, table, companions, (statement, executor) => this.rows(statement, executor));
  }

  /**
   * No transaction's connection: the pool on PostgreSQL. On SQLite every caller shares the one
   * connection anyway (its transactions are queued BEGIN … COMMIT on it, run on the data
   * source's manager).
   */
  private isShared(executor: Executor | undefined): boolean {
    return executor === undefined || executor === this.dataSource || executor === this.dataSource.manager;
  }

  private async sendBounded(text: string, params: readonly unknown[], timeoutMs: number, count = true): Promise<unknown[]> {
    if (count) this.dataSource.logger.logQuery(text, params as unknown[]);
    try {
      return await this.dialect.sendBounded(text, params, timeoutMs);
    } catch (error) {
      if (this.dialect.isTimeout(error)) {
        throw new DomainError('SERVICE_UNAVAILABLE', `The statement ran past its ${timeoutMs} ms and was stopped; try again shortly`, undefined, { 'retry-after': '1' });
      }
      throw new QueryFailedError(text, params as unknown[], error as Error);
    }
  }

  private async send(text: string, params: readonly unknown[], count = true): Promise<unknown[]> {
    if (count) this.dataSource.logger.logQuery(text, params as unknown[]);
    try {
      return await this.dialect.send(text, params);
    } catch (error) {
      throw new QueryFailedError(text, params as unknown[], error as Error);
    }
  }
}
