import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { primaryLanguage } from '../common/i18n/locale-lookup.js';
import { AppConfig } from '../config/app-config.js';
import { withStartupLock } from './migration-runner.js';

/**
 * The text search configuration PostgreSQL ships for each language (by its primary subtag, as
 * BCP 47 writes it); a language without one is read as `simple` (words, no stemming). Those that
 * the server does not have (an older PostgreSQL) are left out, so they are `simple` too.
 */
export const SEARCH_CONFIGURATIONS: Readonly<Record<string, string>> = {
  ar: 'arabic',
  ca: 'catalan',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  eu: 'basque',
  fi: 'finnish',
  fr: 'french',
  ga: 'irish',
  hi: 'hindi',
  hu: 'hungarian',
  hy: 'armenian',
  id: 'indonesian',
  it: 'italian',
  lt: 'lithuanian',
  nb: 'norwegian',
  ne: 'nepali',
  nl: 'dutch',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/**
 * The body of `search_configuration(locale text) RETURNS regconfig` (migration
 * 1765950000000): a CASE over the locale's primary subtag. Kept as written (pg_proc.prosrc), so
 * start-up compares it with the one it wants as text. Names are checked against pg_ts_config first.
 */
export const searchConfigurationBody = (configurations: Readonly<Record<string, string>>) =>
  `SELECT CASE lower(split_part($1, '-', 1)) ${Object.entries(configurations)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtag, name]) => `WHEN '${subtag}' THEN '${name}'::regconfig`)
    .join(' ')} ELSE 'simple'::regconfig END`;

const searchColumn =
  `ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS ` +
  `(setweight(to_tsvector(search_configuration("locale"), "title"), 'A') || setweight(to_tsvector(search_configuration("locale"), "body"), 'B')) STORED`;

/** What the language settings make of the search configurations: SEARCH_LANGUAGE, when set, for DEFAULT_LOCALE's language. */
export interface SearchLanguageSettings {
  searchLanguage?: string;
  defaultLocale: string;
}

/**
 * Makes PostgreSQL's search column index each post in its locale's language (run at start-up
 * under the start-up lock, after the migrations): `search_configuration(locale)` maps a locale to
 * the configuration of its language (SEARCH_CONFIGURATIONS, `simple` for the rest), and the
 * generated column and the queries call it. SEARCH_LANGUAGE, when set, overrides the
 * configuration of DEFAULT_LOCALE's language (as it named the one configuration of every post
 * before posts had locales; an unknown one stops start-up with a message naming the setting).
 * A generated column is not recomputed when a function it calls changes, so when the function's
 * body is not the one wanted, the function, the column and its GIN index are rebuilt in one
 * transaction (a pass over every post, once, when the settings or the table change). SQLite's
 * FTS5 tables are routed by locale in their triggers (nothing to do).
 * Returns whether the column was rebuilt.
 */
export async function applySearchLanguage(dataSource: DataSource, settings: SearchLanguageSettings): Promise<boolean> {
  if (dataSource.options.type !== 'postgres') return false;
  const known = new Set(((await dataSource.query('SELECT cfgname FROM pg_ts_config')) as { cfgname: string }[]).map((row) => row.cfgname));
  const { searchLanguage } = settings;
  if (searchLanguage !== undefined && !known.has(searchLanguage)) {
    throw new Error(`SEARCH_LANGUAGE: "${searchLanguage}" is not a text search configuration of this PostgreSQL (see SELECT cfgname FROM pg_ts_config)`);
  }
  const configurations = Object.fromEntries(Object.entries(SEARCH_CONFIGURATIONS).filter(([, name]) => known.has(name)));
  if (searchLanguage !== undefined) configurations[primaryLanguage(settings.defaultLocale)] = searchLanguage;
  const body = searchConfigurationBody(configurations);
  const [current] = (await dataSource.query(`SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure('search_configuration(text)')`)) as { prosrc: string }[];
  if (current?.prosrc === body) return false;
  await dataSource.transaction(async (manager) => {
    await manager.query('DROP INDEX IF EXISTS "idx_posts_search"');
    await manager.query('ALTER TABLE "posts" DROP COLUMN IF EXISTS "search"');
    await manager.query(`CREATE OR REPLACE FUNCTION search_configuration(text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $body$${body}$body$`);
    await manager.query(searchColumn);
    await manager.query('CREATE INDEX "idx_posts_search" ON "posts" USING gin ("search")');
  });
  return true;
}

/** Applies the search configurations once the database is open, before the service answers (under the start-up lock). */
@Injectable()
export class SearchLanguage implements OnModuleInit {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const settings = { searchLanguage: this.config.searchLanguage, defaultLocale: this.config.defaultLocale };
    if (await withStartupLock(this.dataSource, () => applySearchLanguage(this.dataSource, settings))) {
      this.logger.log(
        `Rebuilt the posts' search column and index: each post in its locale's language${settings.searchLanguage ? `, ${primaryLanguage(settings.defaultLocale)} in SEARCH_LANGUAGE ${settings.searchLanguage}` : ''}`,
      );
    }
  }
}
