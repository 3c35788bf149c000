import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The databases every e2e suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export type DatabaseKind = 'sqlite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

export const DATABASES: DatabaseKind[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  drop(): Promise<void>;
}

/** A brand-new, empty database: a temporary SQLite file, or a fresh PostgreSQL database. */
export async function createTestDatabase(kind: DatabaseKind, { file = false } = {}): Promise<TestDatabase> {
  const name = `blog_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (kind === 'sqlite') {
    if (!file) return { kind, url: 'sqlite::memory:', drop: async () => undefined };
    const path = join(tmpdir(), `${name}.sqlite`);
    return {
      kind,
      url: `sqlite:${path}`,
      drop: async () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      },
    };
  }
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
