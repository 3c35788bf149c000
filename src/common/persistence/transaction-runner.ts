import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Dialect } from './dialect.js';

/**
 * Runs a unit of work in one database transaction, as the dialect does it: queued one at a
 * time on SQLite's one connection, on a pooled connection of its own on PostgreSQL.
 */
@Injectable()
export class TransactionRunner {
  constructor(private readonly dialect: Dialect) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dialect.transaction(work);
  }

  /**
   * A write that is one statement, atomic by itself: no BEGIN/COMMIT around it (two statements
   * fewer). On SQLite it still waits its turn, so that it never runs on the shared connection
   * inside another caller's open transaction, whose rollback would take it along.
   */
  single<T>(work: () => Promise<T>): Promise<T> {
    return this.dialect.single(work);
  }
}
