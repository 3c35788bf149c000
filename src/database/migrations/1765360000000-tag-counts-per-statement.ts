import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `tags.post_count` counted per statement on PostgreSQL (issue 36). The tags migration's
 * row-level triggers updated a tag's row once per link: one statement linking N posts to a tag
 * made N versions of that row, each update walking the versions before it (quadratic: 10,000
 * links took 35 s). Now each statement on `post_tags` updates each tag it touches once, from
 * its transition table (`count(*) … GROUP BY tag_id`), linear in N.
 *
 * A deleted post's links are deleted by the foreign key's cascade, after the post is gone, so
 * their statement can no longer ask the post whether it was public: each link carries it
 * (`post_tags.public`, the post's `status = 'published'`), set when the link is made (a row
 * trigger reading the post by its key: O(1) per link, no shared row) and kept by a statement
 * trigger on `posts` when posts change status. All counting then follows from `post_tags`'
 * inserts, updates (of `public`) and deletes, cascaded ones included (PostgreSQL fires a
 * statement trigger once for all the rows a cascade deletes).
 *
 * SQLite keeps its row-level triggers: there an update of a row is in place (no versions), and
 * 50,000 links in one statement take ~0.15 s, linear in N.
 *
 * Both count too every post that carries a tag (`link_count`, whatever the post's status) and
 * keep whether the tag was announced to the public (`announced`, a public TAG_CREATED): a tag is
 * public when a public post carries it, or when it was announced and no post carries it (CONTRACT
 * §18; TagsRepository's visibleTo). Both are read with the row, so lists stay on idx_tags_most_used.
 */
const POSTGRES_UP = [
  'DROP TRIGGER "posts_tag_count_status" ON "posts"',
  'DROP TRIGGER "posts_tag_count_delete" ON "posts"',
  'DROP TRIGGER "post_tags_count" ON "post_tags"',
  'DROP FUNCTION "blog_posts_tag_count"()',
  'DROP FUNCTION "blog_post_tags_count"()',
  'ALTER TABLE "post_tags" ADD COLUMN "public" boolean NOT NULL DEFAULT false',
  `UPDATE "post_tags" SET "public" = true FROM "posts" WHERE "posts"."id" = "post_tags"."post_id" AND "posts"."status" = 'published'`,
  // The post by its key alone: with the status in the WHERE clause, a plan made while posts had
  // no statistics scanned the partial index of public posts for each link (quadratic again).
  `CREATE FUNCTION "blog_post_tags_public"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    NEW."public" := coalesce((SELECT "status" = 'published' FROM "posts" WHERE "id" = NEW."post_id"), false);
    RETURN NEW;
  END $$`,
  'CREATE TRIGGER "post_tags_public" BEFORE INSERT OR UPDATE OF "post_id" ON "post_tags" FOR EACH ROW EXECUTE FUNCTION "blog_post_tags_public"()',
  // Each tag's change: its public links and all its links, added less removed. Sorted by tag id
  // so that the usual plan (a loop over the few tags) locks them in one order across writers.
  `CREATE FUNCTION "blog_post_tags_count"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE "tags" SET "post_count" = "tags"."post_count" + d."public", "link_count" = "tags"."link_count" + d."links"
        FROM (SELECT "tag_id", count(*) FILTER (WHERE "public") AS "public", count(*) AS "links" FROM "added" GROUP BY "tag_id" ORDER BY "tag_id") d
        WHERE "tags"."id" = d."tag_id";
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE "tags" SET "post_count" = "tags"."post_count" - d."public", "link_count" = "tags"."link_count" - d."links"
        FROM (SELECT "tag_id", count(*) FILTER (WHERE "public") AS "public", count(*) AS "links" FROM "removed" GROUP BY "tag_id" ORDER BY "tag_id") d
        WHERE "tags"."id" = d."tag_id";
    ELSE
      UPDATE "tags" SET "post_count" = "tags"."post_count" + d."public", "link_count" = "tags"."link_count" + d."links"
        FROM (SELECT "tag_id", sum("public") AS "public", sum("links") AS "links" FROM (
          SELECT "tag_id", CASE WHEN "public" THEN 1 ELSE 0 END AS "public", 1 AS "links" FROM "added"
          UNION ALL SELECT "tag_id", CASE WHEN "public" THEN -1 ELSE 0 END, -1 FROM "removed"
        ) c GROUP BY "tag_id" HAVING sum("public") <> 0 OR sum("links") <> 0 ORDER BY "tag_id") d
        WHERE "tags"."id" = d."tag_id";
    END IF;
    RETURN NULL;
  END $$`,
  'CREATE TRIGGER "post_tags_count_insert" AFTER INSERT ON "post_tags" REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "blog_post_tags_count"()',
  'CREATE TRIGGER "post_tags_count_delete" AFTER DELETE ON "post_tags" REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "blog_post_tags_count"()',
  'CREATE TRIGGER "post_tags_count_update" AFTER UPDATE ON "post_tags" REFERENCING OLD TABLE AS "removed" NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "blog_post_tags_count"()',
  // A trigger with transition tables takes no column list: it runs for every update of posts and
  // touches only the links whose post changed visibility (read by the post_tags key's prefix).
  `CREATE FUNCTION "blog_posts_tags_public"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    UPDATE "post_tags" SET "public" = (c."status" = 'published') FROM "changed" c
      WHERE "post_tags"."post_id" = c."id" AND "post_tags"."public" <> (c."status" = 'published');
    RETURN NULL;
  END $$`,
  'CREATE TRIGGER "posts_tags_public" AFTER UPDATE ON "posts" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "blog_posts_tags_public"()',
];

/** The tags migration's row-level triggers, as it made them. */
const POSTGRES_DOWN = [
  'DROP TRIGGER "posts_tags_public" ON "posts"',
  'DROP FUNCTION "blog_posts_tags_public"()',
  'DROP TRIGGER "post_tags_count_update" ON "post_tags"',
  'DROP TRIGGER "post_tags_count_delete" ON "post_tags"',
  'DROP TRIGGER "post_tags_count_insert" ON "post_tags"',
  'DROP FUNCTION "blog_post_tags_count"()',
  'DROP TRIGGER "post_tags_public" ON "post_tags"',
  'DROP FUNCTION "blog_post_tags_public"()',
  'ALTER TABLE "post_tags" DROP COLUMN "public"',
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

const SQLITE_UP = [
  'DROP TRIGGER "post_tags_count_insert"',
  'DROP TRIGGER "post_tags_count_delete"',
  `CREATE TRIGGER "post_tags_count_insert" AFTER INSERT ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "link_count" = "link_count" + 1, "post_count" = "post_count" + EXISTS (SELECT 1 FROM "posts" WHERE "id" = NEW."post_id" AND "status" = 'published') WHERE "id" = NEW."tag_id"; END`,
  `CREATE TRIGGER "post_tags_count_delete" AFTER DELETE ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "link_count" = "link_count" - 1, "post_count" = "post_count" - EXISTS (SELECT 1 FROM "posts" WHERE "id" = OLD."post_id" AND "status" = 'published') WHERE "id" = OLD."tag_id"; END`,
];

const SQLITE_DOWN = [
  'DROP TRIGGER "post_tags_count_insert"',
  'DROP TRIGGER "post_tags_count_delete"',
  `CREATE TRIGGER "post_tags_count_insert" AFTER INSERT ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" + 1 WHERE "id" = NEW."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = NEW."post_id" AND "status" = 'published'); END`,
  `CREATE TRIGGER "post_tags_count_delete" AFTER DELETE ON "post_tags" BEGIN ` +
    `UPDATE "tags" SET "post_count" = "post_count" - 1 WHERE "id" = OLD."tag_id" AND EXISTS (SELECT 1 FROM "posts" WHERE "id" = OLD."post_id" AND "status" = 'published'); END`,
];

export class TagCountsPerStatement1765360000000 implements MigrationInterface {
  name = 'TagCountsPerStatement1765360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.query('ALTER TABLE "tags" ADD COLUMN "link_count" integer NOT NULL DEFAULT 0');
    // The tags made so far had a public TAG_CREATED.
    await queryRunner.query(`ALTER TABLE "tags" ADD COLUMN "announced" boolean NOT NULL DEFAULT ${postgres ? 'true' : '1'}`);
    await queryRunner.query('UPDATE "tags" SET "link_count" = (SELECT count(*) FROM "post_tags" WHERE "post_tags"."tag_id" = "tags"."id")');
    for (const statement of postgres ? POSTGRES_UP : SQLITE_UP) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    for (const statement of postgres ? POSTGRES_DOWN : SQLITE_DOWN) await queryRunner.query(statement);
    await queryRunner.query('ALTER TABLE "tags" DROP COLUMN "announced"');
    await queryRunner.query('ALTER TABLE "tags" DROP COLUMN "link_count"');
  }
}
