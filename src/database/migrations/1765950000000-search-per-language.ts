import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The configurations of the languages, by primary subtag, as this migration writes them (start-up keeps them current: search-language.ts). */
const CONFIGURATIONS: Record<string, string> = {
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

/** A post in English (`en`, `en-*`): FTS5's Porter stemmer is English. */
const english = (row: string) => `(${row}.locale = 'en' OR ${row}.locale LIKE 'en-%')`;

const POSTGRES_COLUMN =
  `ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS ` +
  `(setweight(to_tsvector(search_configuration("locale"), "title"), 'A') || setweight(to_tsvector(search_configuration("locale"), "body"), 'B')) STORED`;

/**
 * Search per language (CONTRACT §15): each post is indexed in its own locale's language.
 *
 * PostgreSQL: `search_configuration(locale)`, an immutable SQL function (a CASE over the
 * locale's primary subtag: `de-CH` → `german`, a language PostgreSQL has no configuration for →
 * `simple`), gives the generated `search` column its configuration per row, and the queries the
 * same one (ts_headline per post, websearch_to_tsquery per language of the reader). The column
 * and its GIN index are rebuilt with it (one pass over the posts). SEARCH_LANGUAGE is applied at
 * start-up (it overrides DEFAULT_LOCALE's language), which rebuilds them again only if it is set.
 *
 * SQLite: English posts stay in `posts_fts` (`porter unicode61`); every other post moves to
 * `posts_fts_plain` (`unicode61`: words, case and diacritics folded, no stemming). The triggers
 * route a post by its locale, also when its locale changes; both tables delete securely.
 */
export class SearchPerLanguage1765950000000 implements MigrationInterface {
  name = 'SearchPerLanguage1765950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      const known = new Set(((await queryRunner.query('SELECT cfgname FROM pg_ts_config')) as { cfgname: string }[]).map((row) => row.cfgname));
      const cases = Object.entries(CONFIGURATIONS)
        .filter(([, name]) => known.has(name))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([subtag, name]) => `WHEN '${subtag}' THEN '${name}'::regconfig`)
        .join(' ');
      const body = `SELECT CASE lower(split_part($1, '-', 1)) ${cases} ELSE 'simple'::regconfig END`;
      await queryRunner.query('DROP INDEX "idx_posts_search"');
      await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "search"');
      await queryRunner.query(`CREATE FUNCTION search_configuration(text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $body$${body}$body$`);
      await queryRunner.query(POSTGRES_COLUMN);
      await queryRunner.query('CREATE INDEX "idx_posts_search" ON "posts" USING gin ("search")');
      return;
    }
    for (const trigger of ['posts_fts_insert', 'posts_fts_delete', 'posts_fts_update']) await queryRunner.query(`DROP TRIGGER "${trigger}"`);
    await queryRunner.query('DROP TABLE "posts_fts"');
    const tables: [string, string, string][] = [
      ['posts_fts', 'porter unicode61', english('posts')],
      ['posts_fts_plain', 'unicode61', `NOT ${english('posts')}`],
    ];
    for (const [table, tokenizer, which] of tables) {
      await queryRunner.query(`CREATE VIRTUAL TABLE "${table}" USING fts5(title, body, content='posts', content_rowid='id', tokenize='${tokenizer}')`);
      // A deleted post's words leave the index at once (CONTRACT §7), as in migration 1765300000000.
      await queryRunner.query(`INSERT INTO "${table}" ("${table}", rank) VALUES ('secure-delete', 1)`);
      await queryRunner.query(`INSERT INTO "${table}" (rowid, title, body) SELECT id, title, body FROM "posts" WHERE ${which}`);
    }
    const add = (row: string) =>
      `INSERT INTO "posts_fts" (rowid, title, body) SELECT ${row}.id, ${row}.title, ${row}.body WHERE ${english(row)}; ` +
      `INSERT INTO "posts_fts_plain" (rowid, title, body) SELECT ${row}.id, ${row}.title, ${row}.body WHERE NOT ${english(row)};`;
    const remove = (row: string) =>
      `INSERT INTO "posts_fts" ("posts_fts", rowid, title, body) SELECT 'delete', ${row}.id, ${row}.title, ${row}.body WHERE ${english(row)}; ` +
      `INSERT INTO "posts_fts_plain" ("posts_fts_plain", rowid, title, body) SELECT 'delete', ${row}.id, ${row}.title, ${row}.body WHERE NOT ${english(row)};`;
    await queryRunner.query(`CREATE TRIGGER "posts_fts_insert" AFTER INSERT ON "posts" BEGIN ${add('new')} END`);
    await queryRunner.query(`CREATE TRIGGER "posts_fts_delete" AFTER DELETE ON "posts" BEGIN ${remove('old')} END`);
    // A change of what is indexed, or of the locale that says where (a status change, a version bump do not touch it).
    await queryRunner.query(`CREATE TRIGGER "posts_fts_update" AFTER UPDATE OF title, body, locale ON "posts" BEGIN ${remove('old')} ${add('new')} END`);
  }

  /** Back to one configuration: PostgreSQL's column in `english` (start-up of that version applies SEARCH_LANGUAGE), SQLite's one Porter table. */
  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('DROP INDEX "idx_posts_search"');
      await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "search"');
      await queryRunner.query('DROP FUNCTION search_configuration(text)');
      await queryRunner.query(
        `ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS ` +
          `(setweight(to_tsvector('english'::regconfig, "title"), 'A') || setweight(to_tsvector('english'::regconfig, "body"), 'B')) STORED`,
      );
      await queryRunner.query('CREATE INDEX "idx_posts_search" ON "posts" USING gin ("search")');
      return;
    }
    for (const trigger of ['posts_fts_insert', 'posts_fts_delete', 'posts_fts_update']) await queryRunner.query(`DROP TRIGGER "${trigger}"`);
    await queryRunner.query('DROP TABLE "posts_fts_plain"');
    await queryRunner.query('DROP TABLE "posts_fts"');
    await queryRunner.query(`CREATE VIRTUAL TABLE "posts_fts" USING fts5(title, body, content='posts', content_rowid='id', tokenize='porter unicode61')`);
    await queryRunner.query(`INSERT INTO "posts_fts" ("posts_fts", rank) VALUES ('secure-delete', 1)`);
    await queryRunner.query(`INSERT INTO "posts_fts" (rowid, title, body) SELECT id, title, body FROM "posts"`);
    await queryRunner.query(
      `CREATE TRIGGER "posts_fts_insert" AFTER INSERT ON "posts" BEGIN ` + `INSERT INTO "posts_fts" (rowid, title, body) VALUES (new.id, new.title, new.body); END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "posts_fts_delete" AFTER DELETE ON "posts" BEGIN ` +
        `INSERT INTO "posts_fts" ("posts_fts", rowid, title, body) VALUES ('delete', old.id, old.title, old.body); END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "posts_fts_update" AFTER UPDATE OF title, body ON "posts" BEGIN ` +
        `INSERT INTO "posts_fts" ("posts_fts", rowid, title, body) VALUES ('delete', old.id, old.title, old.body); ` +
        `INSERT INTO "posts_fts" (rowid, title, body) VALUES (new.id, new.title, new.body); END`,
    );
  }
}
