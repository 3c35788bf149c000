import type { MigrationInterface, QueryRunner } from 'typeorm';

const OLD_ROLES = "('admin', 'author')";
const ROLES = "('admin', 'editor', 'moderator', 'author')";

/**
 * The conversation (CONTRACT §9): the roles editor and moderator, blocked commenters, threaded
 * and moderated comments, and the readers an event is not for (`audience_except`).
 *
 * Existing comments become `approved` top-level comments (depth 1); existing users keep their
 * role and are not blocked; existing events reach whom they reached.
 */
export class Conversation1765000000000 implements MigrationInterface {
  name = 'Conversation1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    if (postgres) {
      await queryRunner.query('ALTER TABLE "users" DROP CONSTRAINT "users_role_check"');
      await queryRunner.query(`ALTER TABLE "users" ADD CONSTRAINT "CHK_users_role" CHECK ("role" IN ${ROLES})`);
    } else {
      // SQLite cannot change a CHECK, and rebuilding users would cascade-delete every post
      // (foreign keys stay on inside the migration's transaction): the column is replaced instead.
      await queryRunner.query(`ALTER TABLE "users" ADD COLUMN "role_v3" varchar(16) NOT NULL DEFAULT 'author' CHECK ("role_v3" IN ${ROLES})`);
      await queryRunner.query('UPDATE "users" SET "role_v3" = "role"');
      await queryRunner.query('ALTER TABLE "users" DROP COLUMN "role"');
      await queryRunner.query('ALTER TABLE "users" RENAME COLUMN "role_v3" TO "role"');
    }
    await queryRunner.query('ALTER TABLE "users" ADD COLUMN "comments_blocked" boolean NOT NULL DEFAULT false');

    await queryRunner.query('ALTER TABLE "comments" ADD COLUMN "parent_id" integer REFERENCES "comments" ("id") ON DELETE CASCADE');
    await queryRunner.query('ALTER TABLE "comments" ADD COLUMN "depth" integer NOT NULL DEFAULT 1');
    await queryRunner.query(
      `ALTER TABLE "comments" ADD COLUMN "status" varchar(16) NOT NULL DEFAULT 'approved' CHECK ("status" IN ('approved', 'pending', 'spam', 'hidden'))`,
    );
    // A comment's replies (Comment.replies, ?parentId=, the cascade of a deletion); a post's
    // public comments and their counts; the moderation queue, which holds only what is not approved.
    await queryRunner.query('CREATE INDEX "idx_comments_parent_id" ON "comments" ("parent_id", "id")');
    await queryRunner.query('CREATE INDEX "idx_comments_post_status" ON "comments" ("post_id", "status", "id")');
    await queryRunner.query(`CREATE INDEX "idx_comments_held" ON "comments" ("status", "id") WHERE "status" <> 'approved'`);

    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "audience_except" varchar(16)');
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "audience_except_owner" integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "audience_except_owner"');
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "audience_except"');
    await queryRunner.query('DROP INDEX "idx_comments_held"');
    await queryRunner.query('DROP INDEX "idx_comments_post_status"');
    await queryRunner.query('DROP INDEX "idx_comments_parent_id"');
    await queryRunner.query('ALTER TABLE "comments" DROP COLUMN "status"');
    await queryRunner.query('ALTER TABLE "comments" DROP COLUMN "depth"');
    await queryRunner.query('ALTER TABLE "comments" DROP COLUMN "parent_id"');
    await queryRunner.query('ALTER TABLE "users" DROP COLUMN "comments_blocked"');
    await queryRunner.query(`UPDATE "users" SET "role" = 'author' WHERE "role" IN ('editor', 'moderator')`);
    if (postgres) {
      await queryRunner.query('ALTER TABLE "users" DROP CONSTRAINT "CHK_users_role"');
      await queryRunner.query(`ALTER TABLE "users" ADD CONSTRAINT "users_role_check" CHECK ("role" IN ${OLD_ROLES})`);
    }
  }
}
