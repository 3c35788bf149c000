import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Review before publishing (CONTRACT §16): each decision of an editor or admin on a post that was
 * `in_review` (`approve` or `request_changes`, with an optional note). Posts need no change:
 * `in_review` fits their `status` column, which names no state in a constraint.
 */
export class PostReviews1766000000000 implements MigrationInterface {
  name = 'PostReviews1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "post_reviews" (
      "id" ${id},
      "post_id" integer NOT NULL,
      "reviewer_id" integer,
      "decision" varchar(16) NOT NULL CHECK ("decision" IN ('approve', 'request_changes')),
      "note" text,
      "created_at" ${time} NOT NULL,
      CONSTRAINT "FK_post_reviews_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE,
      CONSTRAINT "FK_post_reviews_reviewer" FOREIGN KEY ("reviewer_id") REFERENCES "users" ("id") ON DELETE SET NULL
    )`);
    // A post's decisions, newest first (the list pages by id), and the foreign key to users.
    await queryRunner.query('CREATE INDEX "idx_post_reviews_post" ON "post_reviews" ("post_id", "id")');
    await queryRunner.query('CREATE INDEX "idx_post_reviews_reviewer_id" ON "post_reviews" ("reviewer_id")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Posts waiting for a review go back to draft: the states before this migration have no in_review.
    await queryRunner.query(`UPDATE "posts" SET "status" = 'draft', "publish_at" = NULL WHERE "status" = 'in_review'`);
    await queryRunner.query('DROP TABLE "post_reviews"');
  }
}
