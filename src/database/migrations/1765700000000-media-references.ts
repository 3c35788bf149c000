import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The media a post's body shows as images (`post_media`, CONTRACT §13/§14): written on every
 * write that renders the body, read to make an item public while a published post shows it and
 * to refuse deleting an item a body uses. Deleting the post drops its rows; deleting the media
 * (refused by the service while in use; its uploader's deletion) drops them too. Avatars that are
 * media paths get an index of their own.
 */
export class MediaReferences1765700000000 implements MigrationInterface {
  name = 'MediaReferences1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "post_media" (
      "post_id" integer NOT NULL,
      "media_id" integer NOT NULL,
      CONSTRAINT "PK_post_media" PRIMARY KEY ("post_id", "media_id"),
      CONSTRAINT "FK_post_media_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE,
      CONSTRAINT "FK_post_media_media" FOREIGN KEY ("media_id") REFERENCES "media" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_post_media_media_id" ON "post_media" ("media_id", "post_id")');
    // The avatars that are media items (`/media/{id}`), for the public-media condition; other URLs can be long.
    await queryRunner.query(`CREATE INDEX "idx_users_media_avatar" ON "users" ("avatar_url") WHERE "avatar_url" LIKE '/media/%'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_users_media_avatar"');
    await queryRunner.query('DROP TABLE "post_media"');
  }
}
