import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A translation group's place in the public lists (CONTRACT §15): its first published
 * translation's `published_at`, kept on every post of the group as `group_published_at` so that
 * the lists walk one partial index in that order (publishing another translation later does not
 * move the group). A post of a group of its own has its own `published_at` there.
 *
 * The public lists' indexes (idx_posts_public, idx_posts_public_author) are made again on it;
 * with one locale it holds what `published_at` holds, so a list reads as before.
 */
export class GroupPublication1765900000000 implements MigrationInterface {
  name = 'GroupPublication1765900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const time = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "group_published_at" ${time}`);
    await queryRunner.query('UPDATE "posts" SET "group_published_at" = "published_at"');
    // Groups of more than one post: each member gets the earliest publication of the group (idx_posts_translation_locale finds them).
    await queryRunner.query(
      `UPDATE "posts" SET "group_published_at" = (SELECT MIN(m."published_at") FROM "posts" m WHERE COALESCE(m."translation_group_id", m."id") = COALESCE("posts"."translation_group_id", "posts"."id"))
        WHERE "translation_group_id" IS NOT NULL OR "id" IN (SELECT "translation_group_id" FROM "posts" WHERE "translation_group_id" IS NOT NULL)`,
    );
    await queryRunner.query('DROP INDEX "idx_posts_public"');
    await queryRunner.query('DROP INDEX "idx_posts_public_author"');
    await queryRunner.query(`CREATE INDEX "idx_posts_public" ON "posts" ("group_published_at", "id") WHERE "status" = 'published'`);
    await queryRunner.query(`CREATE INDEX "idx_posts_public_author" ON "posts" ("author_id", "group_published_at", "id") WHERE "status" = 'published'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_posts_public_author"');
    await queryRunner.query('DROP INDEX "idx_posts_public"');
    await queryRunner.query(`CREATE INDEX "idx_posts_public" ON "posts" ("published_at", "id") WHERE "status" = 'published'`);
    await queryRunner.query(`CREATE INDEX "idx_posts_public_author" ON "posts" ("author_id", "published_at", "id") WHERE "status" = 'published'`);
    await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "group_published_at"');
  }
}
