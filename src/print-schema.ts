/**
 * `npm run schema:print`: builds the application exactly as it runs (in memory, on an empty
 * in-memory database) and writes its GraphQL schema to schema.gql at the repository root.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { createApp } from './app.factory.js';
import { loadConfig } from './config/app-config.js';
import { renderSchemaFile, SCHEMA_FILE } from './api/graphql/schema-file.js';

async function printSchemaFile(): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    DATABASE_URL: 'sqlite::memory:',
    SEED_DEMO_DATA: 'false',
    RATE_LIMIT_MAX: '0',
  });
  const app = await createApp(config);
  try {
    await app.init();
    writeFileSync(SCHEMA_FILE, renderSchemaFile(app.get(GraphQLSchemaHost).schema));
    console.warn(`Wrote ${SCHEMA_FILE}`);
  } finally {
    await app.close();
  }
}

printSchemaFile().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
