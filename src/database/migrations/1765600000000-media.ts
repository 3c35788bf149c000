import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Media (CONTRACT §14): the `media` resource (its bytes live in MediaStorage, not here), the
 * variants made of each item so far (`media_variants`, one row per name, so a variant is made
 * once), the queue of items whose variants are still to be made (`media_jobs`: a row is claimed
 * by setting `claimed_at`, deleted when done; a claim older than its lease is taken again, so
 * work survives a crash), the media item an event is about (`events.media_id`), and a post's cover image (`posts.cover_image_id`; deleting a media item
 * a post uses is refused by the service, deleting its uploader clears the cover).
 */
export class Media1765600000000 implements MigrationInterface {
  name = 'Media1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const time = postgres ? 'timestamptz' : 'datetime';
    const float = postgres ? 'double precision' : 'real';
    await queryRunner.query(`CREATE TABLE "media" (
      "id" ${id},
      "filename" varchar(255) NOT NULL,
      "mime_type" varchar(32) NOT NULL,
      "size" integer NOT NULL,
      "width" integer NOT NULL,
      "height" integer NOT NULL,
      "alt" varchar(500),
      "caption" varchar(1000),
      "focal_x" ${float},
      "focal_y" ${float},
      "uploader_id" integer NOT NULL,
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL,
      CONSTRAINT "FK_media_uploader" FOREIGN KEY ("uploader_id") REFERENCES "users" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_media_uploader_id_id" ON "media" ("uploader_id", "id")');
    await queryRunner.query(`CREATE TABLE "media_variants" (
      "media_id" integer NOT NULL,
      "name" varchar(16) NOT NULL,
      "width" integer NOT NULL,
      "height" integer NOT NULL,
      "mime_type" varchar(32) NOT NULL,
      "size" integer NOT NULL,
      "created_at" ${time} NOT NULL,
      CONSTRAINT "PK_media_variants" PRIMARY KEY ("media_id", "name"),
      CONSTRAINT "FK_media_variants_media" FOREIGN KEY ("media_id") REFERENCES "media" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE TABLE "media_jobs" (
      "media_id" integer NOT NULL PRIMARY KEY,
      "attempts" integer NOT NULL DEFAULT 0,
      "claimed_at" ${time},
      "created_at" ${time} NOT NULL,
      CONSTRAINT "FK_media_jobs_media" FOREIGN KEY ("media_id") REFERENCES "media" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_media_jobs_claimed_at" ON "media_jobs" ("claimed_at", "media_id")');
    await queryRunner.query('ALTER TABLE "posts" ADD COLUMN "cover_image_id" integer REFERENCES "media" ("id") ON DELETE SET NULL');
    await queryRunner.query('CREATE INDEX "idx_posts_cover_image_id" ON "posts" ("cover_image_id")');
    // The media item an event is about (a ref of the media resource's events).
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "media_id" integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "media_id"');
    await queryRunner.query('DROP INDEX "idx_posts_cover_image_id"');
    await queryRunner.query('ALTER TABLE "posts" DROP COLUMN "cover_image_id"');
    await queryRunner.query('DROP TABLE "media_jobs"');
    await queryRunner.query('DROP TABLE "media_variants"');
    await queryRunner.query('DROP TABLE "media"');
  }
}
