import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

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
    if (!this.serialize) return this.dataSource.transaction(work);
    const result = this.tail.then(() => this.dataSource.transaction(work));
    this.tail = result.catch(() => undefined);
    return result;
  }
}
