import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config.js';
import { Comment } from '../comments/comment.entity.js';
import { Post } from '../posts/post.entity.js';
import { User } from '../users/user.entity.js';
import { MIGRATIONS } from './migrations/index.js';

export const ENTITIES = [User, Post, Comment];

export interface DataSourceExtras {
  poolSize?: number;
  logger?: TypeOrmLogger;
}

/** TypeORM options for SQLite (better-sqlite3, WAL) or PostgreSQL. Migrations, never synchronize. */
export function buildDataSourceOptions(database: DatabaseConfig, extras: DataSourceExtras = {}): DataSourceOptions {
  const common = {
    entities: ENTITIES,
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
        // Fail fast when the server is unreachable instead of queueing forever.
        connectionTimeoutMillis: 3000,
        query_timeout: 15000,
        idleTimeoutMillis: 30000,
      },
    };
  }

  if (database.url !== ':memory:') mkdirSync(dirname(database.url), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: database.url,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    },
  };
}
