import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { describe } from 'vitest';
import { createApp } from '../../src/app.factory.js';
import type { ResourceList } from '../../src/common/resource/resource-catalog.js';
import { type AppConfig, loadConfig } from '../../src/config/app-config.js';
import { createTestDatabase, DATABASES, type DatabaseKind, POSTGRES_SKIPPED, type TestDatabase } from './databases.js';

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

export interface TestApp {
  app: NestFastifyApplication;
  /** The Node HTTP server, for supertest. */
  server: ReturnType<NestFastifyApplication['getHttpServer']>;
  config: AppConfig;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Settings as environment variables, over the test defaults. */
  env?: Record<string, string>;
  /** Keep the database for another app (durability tests); the caller drops it. */
  database?: TestDatabase;
  /** Use a SQLite file rather than memory. */
  file?: boolean;
  /** Called once the application is created, before its start-up hooks (migrations have run). */
  beforeInit?: (app: NestFastifyApplication) => void;
  /** The resources it serves, instead of src/resources.ts's. */
  resources?: ResourceList;
}

/** Starts the real application on a fresh database of the given kind, ready for supertest. */
export async function startTestApp(kind: DatabaseKind, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(kind, { file: options.file }));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: database.url,
    SEED_DEMO_DATA: 'true',
    RATE_LIMIT_MAX: '0',
    RATE_LIMIT_AUTH_MAX: '0',
    RATE_LIMIT_COMMENTS_MAX: '0',
    RATE_LIMIT_TAGS_MAX: '0',
    RATE_LIMIT_ACCOUNT_MAX: '0',
    RATE_LIMIT_SIGNUP_MAX: '0',
    RATE_LIMIT_COST_MAX: '0',
    RATE_LIMIT_SEARCH_MAX: '0',
    RATE_LIMIT_UPLOADS_MAX: '0',
    ...(database.directUrl ? { DATABASE_DIRECT_URL: database.directUrl } : {}),
    ...options.env,
  });
  let app: NestFastifyApplication;
  try {
    app = await createApp(config, options.resources);
    options.beforeInit?.(app);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  } catch (error) {
    if (!options.database) await database.drop().catch(() => undefined);
    throw error;
  }
  return {
    app,
    server: app.getHttpServer(),
    config,
    database,
    close: async () => {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}

/**
 * Declares a suite once per test database (DATABASES): SQLite, PostgreSQL when TEST_DATABASE_URL
 * is set (otherwise a skipped suite says why).
 */
export function describeEachDatabase(name: string, body: (kind: DatabaseKind) => void): void {
  for (const kind of DATABASES) describe(`${name} [${kind}]`, () => body(kind));
  if (POSTGRES_SKIPPED) describe.skip(`${name} [postgres] (skipped: ${POSTGRES_SKIPPED})`, () => body('postgres'));
}
