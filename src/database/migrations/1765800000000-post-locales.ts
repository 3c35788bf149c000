import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The locale migrated posts are in: DEFAULT_LOCALE, else the first of SUPPORTED_LOCALES, else
 * `en`, in canonical case (start-up has refused a bad setting before the migrations run; a
 * migration reads the environment itself, as it may not import the settings).
 */
function migrationLocale(): string {
  const given = process.env.DEFAULT_LOCALE?.trim() || process.env.SUPPORTED_LOCALES?.split(',').map((tag) => tag.trim()).find((tag) => tag !== '') || 'en';
  try {
    const [canonical] = Intl.getCanonicalLocales(given);
    // Written into the DDL as a literal.
    if (canonical !== undefined && /^[A-Za-z0-9-]{2,35}$/.test(canonical)) return canonical;
  } catch {
    // Not a language tag: the default below.
  }
  return 'en';
}

/**
 * Languages (CONTRACT §15): a post's `locale` and its translation group (the id of the group's
 * first post; every post stands in a group, its own until it is translated). A post of a group
 * of its own has no `translation_group_id` (NULL: the group is its id), so that a new post costs
 * no second write and this migration rewrites no post; the group is `COALESCE(translation_group_id,
 * id)` everywhere, and one post per locale and group is a unique index on that expression, which
 * also finds a group's posts. Existing posts are in the default locale, and so are the snapshots
 * of them in the event log (its POST_CREATED, POST_UPDATED and POST_PUBLISHED events); down
 * leaves those as they are.
 */
export class PostLocales1765800000000 implements MigrationInterface {
  name = 'PostLocales1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const locale = migrationLocale();
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "locale" varchar(35) NOT NULL DEFAULT '${locale}'`);
    // The posts the event log keeps (a snapshot per event) are in it too: a replay shows their locale.
    await queryRunner.query(
      `UPDATE "events" SET "resource" = '{"locale":"${locale}",' || substr("resource", 2)
        WHERE "type" IN ('POST_CREATED', 'POST_UPDATED', 'POST_PUBLISHED') AND "resource" LIKE '{"%'`,
    );
    await queryRunner.query('ALTER TABLE "posts" ADD COLUMN "translation_group_id" integer');
    await queryRunner.query('CREATE UNIQUE INDEX "idx_posts_translation_locale" ON "posts" ((COALESCE("translation_group_id", "id")), "locale")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_posts_translation_locale"');
    await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "translation_group_id"');
    await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "locale"');
  }
}
