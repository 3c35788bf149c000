import type { MigrationInterface, QueryRunner } from 'typeorm';

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
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "tag_id" integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "tag_id"');
    await queryRunner.query('DROP TABLE "post_tags"');
    await queryRunner.query('DROP TABLE "tags"');
  }
}
