import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tags.post_count`, the public posts that carry each tag (CONTRACT §8: GET /tags is most used
 * first), kept by the database itself whatever the write: a link made or removed (of a public
 * post), a post becoming public or ceasing to be, a public post deleted (by itself or with its
 * author; counted before its links go, and their deletion then finds no public post).
 */
const SQLITE_COUNTING = [
  `CREATE TRIGGER "post_tags_count_insert" AFTER INSERT ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" + 1 WHERE "id" = NEW."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = NEW."post_id" AND "status" = 'published'); END`,
  `CREATE TRIGGER "post_tags_count_delete" AFTER DELETE ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" - 1 WHERE "id" = OLD."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = OLD."post_id" AND "status" = 'published'); END`,
  `CREATE TRIGGER "posts_tag_count_delete" BEFORE DELETE ON "posts" WHEN OLD."status" = 'published' BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" - 1 WHERE "id" IN (SELECT "tag_id" FROM "post_tags" WHERE "post_id" = OLD."id"); END`,
  `CREATE TRIGGER "posts_tag_count_status" AFTER UPDATE OF "status" ON "posts" WHEN (OLD."status" = 'published') <> (NEW."status" = 'published') BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" + (CASE WHEN NEW."status" = 'published' THEN 1 ELSE -1 END) ` +
    `WHERE "id" IN (SELECT "tag_id" FROM "post_tags" WHERE "post_id" = NEW."id"); END`,
];

const POSTGRES_COUNTING = [
  `CREATE FUNCTION "blog_post_tags_count"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE "tags" SET "post_count" = "post_count" + 1 WHERE "id" = NEW."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = NEW."post_id" AND "status" = 'published');
      RETURN NEW;
    END IF;
    UPDATE "tags" SET "post_count" = "post_count" - 1 WHERE "id" = OLD."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = OLD."post_id" AND "status" = 'published');
    RETURN OLD;
  END $$`,
  'CREATE TRIGGER "post_tags_count" AFTER INSERT OR DELETE ON "post_tags" FOR EACH ROW EXECUTE FUNCTION "blog_post_tags_count"()',
  `CREATE FUNCTION "blog_posts_tag_count"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF TG_OP = 'DELETE' THEN
      IF OLD."status" = 'published' THEN
        UPDATE "tags" SET "post_count" = "post_count" - 1 WHERE "id" IN (SELECT "tag_id" FROM "post_tags" WHERE "post_id" = OLD."id");
      END IF;
      RETURN OLD;
    END IF;
    IF (OLD."status" = 'published') <> (NEW."status" = 'published') THEN
      UPDATE "tags" SET "post_count" = "post_count" + (CASE WHEN NEW."status" = 'published' THEN 1 ELSE -1 END)
        WHERE "id" IN (SELECT "tag_id" FROM "post_tags" WHERE "post_id" = NEW."id");
    END IF;
    RETURN NEW;
  END $$`,
  'CREATE TRIGGER "posts_tag_count_delete" BEFORE DELETE ON "posts" FOR EACH ROW EXECUTE FUNCTION "blog_posts_tag_count"()',
  'CREATE TRIGGER "posts_tag_count_status" AFTER UPDATE OF "status" ON "posts" FOR EACH ROW EXECUTE FUNCTION "blog_posts_tag_count"()',
];

/**
 * Tags (CONTRACT §8): the `tags` resource, the posts each one is on (`post_tags`), and the tag
 * an event is about (`events.tag_id`, a ref of the tags resource's events).
 *
 * `post_tags` is keyed by (post_id, tag_id), which serves a post's tags; the index by
 * (tag_id, post_id) serves a tag's posts and the `?tag=` filter. Deleting a post or a tag
 * deletes its links.
 */
export class Tags1765200000000 implements MigrationInterface {
  name = 'Tags1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "tags" (
      "id" ${id},
      "name" varchar(50) NOT NULL,
      "slug" varchar(50) NOT NULL,
      "post_count" integer NOT NULL DEFAULT 0,
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "UQ_tags_slug" UNIQUE ("slug")
    )`);
    await queryRunner.query(`CREATE TABLE "post_tags" (
      "post_id" integer NOT NULL,
      "tag_id" integer NOT NULL,
      CONSTRAINT "PK_post_tags" PRIMARY KEY ("post_id", "tag_id"),
      CONSTRAINT "FK_post_tags_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE,
      CONSTRAINT "FK_post_tags_tag" FOREIGN KEY ("tag_id") REFERENCES "tags" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_post_tags_tag_id" ON "post_tags" ("tag_id", "post_id")');
    if (postgres) {
      // How common each tag is, for up to 1,000 tags (the default keeps 100): with it the planner
      // walks the posts' order for a common tag and reads a rare tag's few posts instead.
      await queryRunner.query('ALTER TABLE "post_tags" ALTER COLUMN "tag_id" SET STATISTICS 1000');
    }
    await queryRunner.query('CREATE INDEX "idx_tags_most_used" ON "tags" ("post_count" DESC, "id")');
    for (const statement of postgres ? POSTGRES_COUNTING : SQLITE_COUNTING) await queryRunner.query(statement);
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "tag_id" integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "tag_id"');
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('DROP TRIGGER "posts_tag_count_status" ON "posts"');
      await queryRunner.query('DROP TRIGGER "posts_tag_count_delete" ON "posts"');
      await queryRunner.query('DROP FUNCTION "blog_posts_tag_count"()');
      await queryRunner.query('DROP FUNCTION "blog_post_tags_count"() CASCADE');
    } else {
      for (const trigger of ['posts_tag_count_status', 'posts_tag_count_delete']) await queryRunner.query(`DROP TRIGGER "${trigger}"`);
    }
    await queryRunner.query('DROP TABLE "post_tags"');
    await queryRunner.query('DROP TABLE "tags"');
  }
}
