import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting a comment, a post or a user erases the content of its earlier events and of their
 * webhook deliveries in the deletion's transaction (EventPublisher.eraseContent): these indexes
 * let those UPDATEs find the rows by post, comment, author and event instead of reading every
 * event and delivery kept.
 */
export class EventErasureIndexes1764950000000 implements MigrationInterface {
  name = 'EventErasureIndexes1764950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX "idx_events_post_id" ON "events" ("post_id")');
    await queryRunner.query('CREATE INDEX "idx_events_comment_id" ON "events" ("comment_id")');
    await queryRunner.query('CREATE INDEX "idx_events_author_id" ON "events" ("author_id")');
    await queryRunner.query('CREATE INDEX "idx_webhook_deliveries_event_id" ON "webhook_deliveries" ("event_id")');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_webhook_deliveries_event_id"');
    await queryRunner.query('DROP INDEX "idx_events_author_id"');
    await queryRunner.query('DROP INDEX "idx_events_comment_id"');
    await queryRunner.query('DROP INDEX "idx_events_post_id"');
  }
}
