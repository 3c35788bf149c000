import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config.js';
import { MIGRATIONS } from './migrations/index.js';
import { pgTypes } from './pg-timestamps.js';
import { loadSqliteDriver } from './sqlite-driver.js';

export interface DataSourceExtras {
  /** The entity classes (ResourceCatalog.entities): none for a data source that only migrates. */
  entities?: readonly (new () => object)[];
  poolSize?: number;
  logger?: TypeOrmLogger;
}

/** TypeORM options for SQLite (better-sqlite3, WAL) or PostgreSQL. Migrations, never synchronize. */
export function buildDataSourceOptions(database: DatabaseConfig, extras: DataSourceExtras = {}): DataSourceOptions {
  const common = {
    entities: [...(extras.entities ?? [])] as (new () => object)[],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    logger: extras.logger,
  } as const;

  if (database.type === 'postgres') {
    return {
      ...common,
      type: 'postgres',
      url: database.url,
      poolSize: extras.poolSize ?? 10,
      extra: {
        // Fail fast when the server is unreachable instead of queueing forever: a request waits
        // at most this long for a connection, then this long for an answer, so an unreachable or
        // silent database is a 503 within 5 s, not a request left hanging. No statement of this
        // service takes anywhere near that long.
        connectionTimeoutMillis: 2500,
        query_timeout: 2000,
        idleTimeoutMillis: 30000,
        types: pgTypes,
      },
    };
  }

  if (database.url !== ':memory:') mkdirSync(dirname(database.url), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    driver: loadSqliteDriver(),
    database: database.url,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    },
  };
}
