import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The editorial life of a post (CONTRACT §7): its state and times, its numbered revisions, and
 * the audience of each event (who may read it in the feed, the subscriptions and the webhooks).
 *
 * Existing posts become `published` at their creation time, each with its content as revision 1;
 * existing events stay public (every post was public when they were written).
 */
export class PostLifecycle1764900000000 implements MigrationInterface {
  name = 'PostLifecycle1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "status" varchar(16) NOT NULL DEFAULT 'published'`);
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "publish_at" ${time}`);
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "published_at" ${time}`);
    await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN "trashed_at" ${time}`);
    await queryRunner.query('UPDATE "posts" SET "published_at" = "created_at"');
    // The public list (newest publication first), the scheduler's and the trash's queues, and
    // one author's posts of one state: each a partial index that holds only the rows it serves.
    await queryRunner.query(
      `CREATE INDEX "idx_posts_public" ON "posts" ("published_at", "id") WHERE "status" = 'published'`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_posts_public_author" ON "posts" ("author_id", "published_at", "id") WHERE "status" = 'published'`,
    );
    await queryRunner.query(`CREATE INDEX "idx_posts_scheduled" ON "posts" ("publish_at") WHERE "status" = 'scheduled'`);
    await queryRunner.query(`CREATE INDEX "idx_posts_trashed" ON "posts" ("trashed_at") WHERE "status" = 'trashed'`);
    // No index on (status, id): without statistics SQLite would take it for the public list and
    // sort every published post; the lists of one state use the partial indexes or author_id's.

    await queryRunner.query(`CREATE TABLE "post_revisions" (
      "id" ${id},
      "post_id" integer NOT NULL,
      "number" integer NOT NULL,
      "title" varchar(200) NOT NULL,
      "body" text NOT NULL,
      "status" varchar(16) NOT NULL,
      "editor_id" integer,
      "created_at" ${time} NOT NULL,
      CONSTRAINT "UQ_post_revisions_number" UNIQUE ("post_id", "number"),
      CONSTRAINT "FK_post_revisions_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE,
      CONSTRAINT "FK_post_revisions_editor" FOREIGN KEY ("editor_id") REFERENCES "users" ("id") ON DELETE SET NULL
    )`);
    await queryRunner.query('CREATE INDEX "idx_post_revisions_editor_id" ON "post_revisions" ("editor_id")');
    await queryRunner.query(`INSERT INTO "post_revisions" ("post_id", "number", "title", "body", "status", "editor_id", "created_at")
      SELECT "id", 1, "title", "body", 'published', "author_id", "created_at" FROM "posts"`);

    // Who may read an event: 'public', or 'restricted' to the owner (the post's author) and the
    // roles that read every non-public post.
    await queryRunner.query(`ALTER TABLE "events" ADD COLUMN "audience" varchar(16) NOT NULL DEFAULT 'public'`);
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "audience_owner" integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "audience_owner"');
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "audience"');
    await queryRunner.query('DROP TABLE "post_revisions"');
    for (const index of ['idx_posts_trashed', 'idx_posts_scheduled', 'idx_posts_public_author', 'idx_posts_public']) {
      await queryRunner.query(`DROP INDEX "${index}"`);
    }
    for (const column of ['trashed_at', 'published_at', 'publish_at', 'status']) {
      await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "${column}"`);
    }
  }
}
