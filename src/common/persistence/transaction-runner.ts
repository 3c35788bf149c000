import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { normalizeError } from '../errors/normalize-error.js';

/**
 * Runs a unit of work in one database transaction.
 *
 * TypeORM's better-sqlite3 driver shares one connection between all callers, so two
 * transactions started concurrently would nest as savepoints of each other and one's
 * rollback could take the other's acknowledged write with it. On SQLite, transactions are
 * therefore queued here, one at a time (SQLite allows a single writer anyway).
 * PostgreSQL gives each transaction its own pooled connection.
 */
@Injectable()
export class TransactionRunner {
  private readonly serialize: boolean;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialize = dataSource.options.type !== 'postgres';
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.postgresTransaction(work);
    return this.queued(() => this.sqliteTransaction(work));
  }

  /**
   * BEGIN … COMMIT on SQLite's one connection, sent as plain statements: the queue already keeps
   * every other transaction out, so TypeORM's transaction machinery (a query runner, its
   * bookkeeping, events) would only add time to every write.
   */
  private async sqliteTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    await this.dataSource.query('BEGIN');
    try {
      const result = await work(this.dataSource.manager);
      await this.dataSource.query('COMMIT');
      return result;
    } catch (error) {
      // A failed COMMIT leaves the transaction open too.
      await this.dataSource.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * A write that is one statement, atomic by itself: no BEGIN/COMMIT around it (two statements
   * fewer). On SQLite it still waits its turn, so that it never runs on the shared connection
   * inside another caller's open transaction, whose rollback would take it along.
   */
  single<T>(work: () => Promise<T>): Promise<T> {
    return this.serialize ? this.queued(work) : work();
  }

  private queued<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * DataSource.transaction, except when the connection itself failed (the server went silent
   * or away): a ROLLBACK would wait as long again on a dead connection, so the connection is
   * dropped instead (the server rolls back what it had), and the pool does not reuse it.
   */
  private async postgresTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner() as QueryRunner & { releasePostgresConnection?: (error?: Error) => Promise<void> };
    let broken: Error | undefined;
    try {
      await runner.startTransaction();
      const result = await work(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (normalizeError(error).code === 'SERVICE_UNAVAILABLE') {
        broken = error as Error;
      } else if (runner.isTransactionActive) {
        // As DataSource.transaction: the work's error is the one to report.
        await runner.rollbackTransaction().catch((rollbackError: unknown) => (broken = rollbackError as Error));
      }
      throw error;
    } finally {
      if (broken && runner.releasePostgresConnection) await runner.releasePostgresConnection(broken);
      else await runner.release();
    }
  }
}
