import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users, posts and comments with the indexes every lookup and keyset page uses:
 * posts by id and by (author_id, id), comments by (post_id, id) and by author_id.
 * Deletes cascade: a user's posts and comments, a post's comments.
 */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';

    await queryRunner.query(`CREATE TABLE "users" (
      "id" ${id},
      "name" varchar(100) NOT NULL,
      "email" varchar(320) NOT NULL,
      "password_hash" varchar(255) NOT NULL,
      "avatar_url" varchar(2048),
      "role" varchar(16) NOT NULL CHECK ("role" IN ('admin', 'author')),
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "UQ_users_email" UNIQUE ("email")
    )`);
    await queryRunner.query(`CREATE TABLE "posts" (
      "id" ${id},
      "title" varchar(200) NOT NULL,
      "body" text NOT NULL,
      "author_id" integer NOT NULL,
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "FK_posts_author" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE TABLE "comments" (
      "id" ${id},
      "post_id" integer NOT NULL,
      "body" text NOT NULL,
      "author_id" integer NOT NULL,
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "FK_comments_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE,
      CONSTRAINT "FK_comments_author" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "idx_posts_author_id_id" ON "posts" ("author_id", "id")`);
    await queryRunner.query(`CREATE INDEX "idx_comments_post_id_id" ON "comments" ("post_id", "id")`);
    await queryRunner.query(`CREATE INDEX "idx_comments_author_id" ON "comments" ("author_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "comments"`);
    await queryRunner.query(`DROP TABLE "posts"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
