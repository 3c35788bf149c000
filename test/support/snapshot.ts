import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { TestApp } from './test-app.js';

/** What the database holds, read straight from the tables (not through the API). */
export interface DataSnapshot {
  counts: { users: number; posts: number; comments: number };
  /** A digest of every row of the three tables, in id order. */
  checksum: string;
}

const TABLES = ['users', 'posts', 'comments'] as const;

function normalize(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row).sort()) {
    const value = row[key];
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/** Row counts and a checksum of every row: equal before and after means nothing was written. */
export async function snapshotData(app: TestApp): Promise<DataSnapshot> {
  const dataSource = app.app.get(DataSource);
  const hash = createHash('sha256');
  const counts = { users: 0, posts: 0, comments: 0 };
  for (const table of TABLES) {
    const rows = (await dataSource.query(`SELECT * FROM "${table}" ORDER BY "id"`)) as Record<string, unknown>[];
    counts[table] = rows.length;
    hash.update(`${table}:${JSON.stringify(rows.map(normalize))}\n`);
  }
  return { counts, checksum: hash.digest('hex') };
}

/** One row of a table by id, straight from the database (undefined when missing). */
export async function readRow(app: TestApp, table: (typeof TABLES)[number], id: number): Promise<Record<string, unknown> | undefined> {
  const rows = (await app.app.get(DataSource).query(`SELECT * FROM "${table}" WHERE "id" = ${Number(id)}`)) as Record<string, unknown>[];
  return rows[0] === undefined ? undefined : normalize(rows[0]);
}
