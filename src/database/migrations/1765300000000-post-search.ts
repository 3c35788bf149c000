import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finding posts (CONTRACT §8): full-text search over title and body, and the indexes each order
 * and filter of `GET /posts` reads.
 *
 * PostgreSQL: a generated `search` tsvector (title weight A, body weight B) with a GIN index. A
 * generated column needs a constant text search configuration: this migration writes it with
 * `english` (the default SEARCH_LANGUAGE); at start-up, `applySearchLanguage` rebuilds the column
 * and its index with the configured language when they differ (src/database/search-language.ts),
 * so the column and the queries always use the same configuration.
 *
 * SQLite: an FTS5 table over title and body with external content (`posts`), kept in step by
 * triggers, stemmed by the Porter stemmer (English, whatever SEARCH_LANGUAGE says).
 *
 * The orders by title and by last change of the public list read partial indexes on
 * (title, id) and (updated_at, id), as the newest-first order reads idx_posts_public.
 */
export class PostSearch1765300000000 implements MigrationInterface {
  name = 'PostSearch1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    if (postgres) {
      await queryRunner.query(
        `ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS ` +
          `(setweight(to_tsvector('english'::regconfig, "title"), 'A') || setweight(to_tsvector('english'::regconfig, "body"), 'B')) STORED`,
      );
      await queryRunner.query('CREATE INDEX "idx_posts_search" ON "posts" USING gin ("search")');
    } else {
      await queryRunner.query(
        `CREATE VIRTUAL TABLE "posts_fts" USING fts5(title, body, content='posts', content_rowid='id', tokenize='porter unicode61')`,
      );
      // A deleted post's words leave the index at once (CONTRACT §7 privacy: nothing of it stays
      // in the database); by default FTS5 only marks them deleted until its segments merge.
      await queryRunner.query(`INSERT INTO "posts_fts" ("posts_fts", rank) VALUES ('secure-delete', 1)`);
      await queryRunner.query(`INSERT INTO "posts_fts" (rowid, title, body) SELECT id, title, body FROM "posts"`);
      await queryRunner.query(
        `CREATE TRIGGER "posts_fts_insert" AFTER INSERT ON "posts" BEGIN ` +
          `INSERT INTO "posts_fts" (rowid, title, body) VALUES (new.id, new.title, new.body); END`,
      );
      await queryRunner.query(
        `CREATE TRIGGER "posts_fts_delete" AFTER DELETE ON "posts" BEGIN ` +
          `INSERT INTO "posts_fts" ("posts_fts", rowid, title, body) VALUES ('delete', old.id, old.title, old.body); END`,
      );
      // Only a change of what is indexed touches the index (a status change, a version bump do not).
      await queryRunner.query(
        `CREATE TRIGGER "posts_fts_update" AFTER UPDATE OF title, body ON "posts" BEGIN ` +
          `INSERT INTO "posts_fts" ("posts_fts", rowid, title, body) VALUES ('delete', old.id, old.title, old.body); ` +
          `INSERT INTO "posts_fts" (rowid, title, body) VALUES (new.id, new.title, new.body); END`,
      );
    }
    await queryRunner.query(`CREATE INDEX "idx_posts_public_title" ON "posts" ("title", "id") WHERE "status" = 'published'`);
    await queryRunner.query(`CREATE INDEX "idx_posts_public_updated" ON "posts" ("updated_at", "id") WHERE "status" = 'published'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_posts_public_updated"');
    await queryRunner.query('DROP INDEX "idx_posts_public_title"');
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('DROP INDEX "idx_posts_search"');
      await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "search"');
    } else {
      await queryRunner.query('DROP TRIGGER "posts_fts_update"');
      await queryRunner.query('DROP TRIGGER "posts_fts_delete"');
      await queryRunner.query('DROP TRIGGER "posts_fts_insert"');
      await queryRunner.query('DROP TABLE "posts_fts"');
    }
  }
}
