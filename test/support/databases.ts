import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options.js';

/** The databases every e2e suite runs on: SQLite, and PostgreSQL when TEST_DATABASE_URL is set (both unless TEST_DATABASES narrows them). */
export type DatabaseKind = 'sqlite' | 'postgres';

/**
 * TEST_DATABASES narrows the databases the e2e suites run on (a comma-separated list of kinds,
 * e.g. `sqlite`: CI's SQLite tier on the second Node major). Without PostgreSQL in it,
 * TEST_DATABASE_URL counts as unset, so the PostgreSQL-only suites skip too.
 */
const SELECTED = process.env.TEST_DATABASES ? new Set(process.env.TEST_DATABASES.split(',').map((kind) => kind.trim())) : null;
for (const kind of SELECTED ?? []) if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`TEST_DATABASES: unknown database ${kind} (sqlite, postgres)`);

/** Why the PostgreSQL suites are skipped, or undefined when they run. */
export const POSTGRES_SKIPPED = SELECTED && !SELECTED.has('postgres') ? `TEST_DATABASES=${process.env.TEST_DATABASES}` : process.env.TEST_DATABASE_URL ? undefined : 'TEST_DATABASE_URL is not set';

export const TEST_DATABASE_URL = POSTGRES_SKIPPED ? undefined : process.env.TEST_DATABASE_URL || undefined;
/**
 * With TEST_DATABASE_URL through a transaction pooler: the same server reached directly. Test
 * databases are made and dropped through it, and each app gets it as DATABASE_DIRECT_URL.
 */
export const TEST_DATABASE_DIRECT_URL = process.env.TEST_DATABASE_DIRECT_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

export const DATABASES: DatabaseKind[] = (['sqlite', 'postgres'] as const).filter((kind) =>
  kind === 'postgres' ? TEST_DATABASE_URL !== undefined : SELECTED === null || SELECTED.has(kind),
);

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  /** The same database, directly (TEST_DATABASE_DIRECT_URL): the apps' DATABASE_DIRECT_URL. */
  directUrl?: string;
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
  const adminUrl = TEST_DATABASE_DIRECT_URL ?? TEST_DATABASE_URL;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const beside = (server: string) => {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    kind,
    url: beside(TEST_DATABASE_URL),
    directUrl: TEST_DATABASE_DIRECT_URL && beside(TEST_DATABASE_DIRECT_URL),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A data source on `database` with only `migrations` run (migration tests: the schema as it was
 * up to one migration, then with it); the caller destroys it.
 */
export async function migratedTo(database: TestDatabase, kind: DatabaseKind, migrations: readonly unknown[]): Promise<DataSource> {
  const config = kind === 'sqlite' ? { type: 'sqlite' as const, url: database.url.slice('sqlite:'.length) } : { type: 'postgres' as const, url: database.url };
  const dataSource = await new DataSource({ ...buildDataSourceOptions(config), migrations: [...migrations] as never }).initialize();
  await dataSource.runMigrations({ transaction: 'all' });
  return dataSource;
}
