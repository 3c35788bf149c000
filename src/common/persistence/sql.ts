import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/**
 * Fixed SQL for the hottest reads (one resource by id, one page of a list), sent through
 * TypeORM's driver — which caches prepared statements and counts every statement — but
 * without the query builder and entity hydration, which cost more than the query itself.
 * Statements are written once with PostgreSQL's `$1, $2, …` placeholders, each used once and
 * in order, so that SQLite's `?` can stand in for them.
 */
@Injectable()
export class Sql {
  readonly sqlite: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sqlite = dataSource.options.type !== 'postgres';
  }

  statement(text: string): string {
    return this.sqlite ? text.replace(/\$\d+/g, '?') : text;
  }

  /** A timestamp as a parameter, stored as TypeORM stores it: a UTC `YYYY-MM-DD HH:MM:SS.SSS` text on SQLite. */
  timestamp(date: Date): Date | string {
    return this.sqlite ? date.toISOString().replace('T', ' ').replace('Z', '') : date;
  }

  rows<T>(statement: string, params: readonly unknown[]): Promise<T[]> {
    return this.dataSource.query(statement, params as unknown[]);
  }
}

/** A timestamp as either driver returns it: a Date (PostgreSQL) or a UTC `YYYY-MM-DD HH:MM:SS.SSS` string (SQLite). */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
}
