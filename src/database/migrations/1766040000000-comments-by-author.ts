import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's comments in id order (a personal-data export reads them page by page, keyset-paged on
 * the id): (author_id, id) finds each page where it starts, as idx_posts_author_id_id and
 * idx_media_uploader_id_id do for posts and media; (author_id) alone would have each page sort
 * all of the user's comments. It serves everything the old index did (a user's erasure).
 */
export class CommentsByAuthor1766040000000 implements MigrationInterface {
  name = 'CommentsByAuthor1766040000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX "idx_comments_author_id_id" ON "comments" ("author_id", "id")');
    await queryRunner.query('DROP INDEX "idx_comments_author_id"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX "idx_comments_author_id" ON "comments" ("author_id")');
    await queryRunner.query('DROP INDEX "idx_comments_author_id_id"');
  }
}
