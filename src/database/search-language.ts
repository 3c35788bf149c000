import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { withStartupLock } from './migration-runner.js';

/** The search column as migration 1765300000000 writes it, in `language` (a name checked against pg_ts_config first). */
const searchColumn = (language: string) =>
  `ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS ` +
  `(setweight(to_tsvector('${language}'::regconfig, "title"), 'A') || setweight(to_tsvector('${language}'::regconfig, "body"), 'B')) STORED`;

/**
 * Makes PostgreSQL's search column stem in SEARCH_LANGUAGE (run at start-up under the start-up
 * lock, after the migrations). A generated column's configuration is a constant, so a change of
 * language rebuilds the column and its GIN index in one transaction (a pass over every post,
 * once, when the setting changes); queries name the same configuration. An unknown
 * configuration stops start-up with a message naming the setting. SQLite's FTS5 table stems in
 * English whatever the setting (nothing to do).
 * Returns whether the column was rebuilt.
 */
export async function applySearchLanguage(dataSource: DataSource, language: string): Promise<boolean> {
  if (dataSource.options.type !== 'postgres') return false;
  const known = (await dataSource.query('SELECT 1 AS found FROM pg_ts_config WHERE cfgname = $1', [language])) as unknown[];
  if (known.length === 0) {
    throw new Error(`SEARCH_LANGUAGE: "${language}" is not a text search configuration of this PostgreSQL (see SELECT cfgname FROM pg_ts_config)`);
  }
  const [column] = (await dataSource.query(
    `SELECT pg_get_expr(d.adbin, d.adrelid) AS expression FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum ` +
      `WHERE a.attrelid = 'posts'::regclass AND a.attname = 'search' AND NOT a.attisdropped`,
  )) as { expression: string }[];
  if (column && column.expression.includes(`'${language}'::regconfig`)) return false;
  await dataSource.transaction(async (manager) => {
    await manager.query('DROP INDEX IF EXISTS "idx_posts_search"');
    await manager.query('ALTER TABLE "posts" DROP COLUMN IF EXISTS "search"');
    await manager.query(searchColumn(language));
    await manager.query('CREATE INDEX "idx_posts_search" ON "posts" USING gin ("search")');
  });
  return true;
}

/** Applies SEARCH_LANGUAGE once the database is open, before the service answers (under the start-up lock). */
@Injectable()
export class SearchLanguage implements OnModuleInit {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const language = this.config.searchLanguage;
    if (await withStartupLock(this.dataSource, () => applySearchLanguage(this.dataSource, language))) {
      this.logger.log(`Rebuilt the posts' search column and index in SEARCH_LANGUAGE ${language}`);
    }
  }
}
