import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { EntityTable } from './entity-table.js';

/** Where a statement runs: the pool, or the connection of an open transaction. */
export type Executor = Pick<EntityManager, 'query'>;

/**
 * The one way the repositories reach the database: fixed SQL sent through TypeORM's driver
 * (which caches prepared statements and counts every statement), without the query builder
 * and entity hydration, which cost more than the query itself. Statements are written once
 * with PostgreSQL's `$1, $2, …` placeholders, each used once and in order, so that SQLite's
 * `?` can stand in for them. Parameters are bound, never written into the text, so a
 * statement's text depends on its shape only and the drivers' statement caches hold.
 */
@Injectable()
export class Sql {
  readonly sqlite: boolean;

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

  rows<T>(statement: string, params: readonly unknown[], executor: Executor = this.dataSource): Promise<T[]> {
    return executor.query(statement, params as unknown[]);
  }

  /** The rows an `UPDATE … RETURNING` or `DELETE … RETURNING` wrote (PostgreSQL's driver adds the count). */
  async written<T>(statement: string, params: readonly unknown[], executor: Executor = this.dataSource): Promise<T[]> {
    const result: unknown = await executor.query(statement, params as unknown[]);
    return (this.sqlite ? result : (result as [T[], number])[0]) as T[];
  }
}
