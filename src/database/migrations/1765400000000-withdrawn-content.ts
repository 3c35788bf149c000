import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CONTRACT §18 (content that stops being public leaves the public event log): from now on the
 * write that takes content out of public view erases the content of its earlier events of a
 * wider audience than it now has (EventPublisher.withdrawContent). The events written before this
 * release about content already out of view are withdrawn here by the same rule: of a post that
 * is not published, its events and its comments' that are public or for the moderators; of a
 * comment that is not approved (spam, hidden, pending again), its public events. Webhook
 * deliveries still pending keep their copy until sent (they are retried for a short while only).
 * Nothing to undo: erased content is not kept.
 */
export class WithdrawnContent1765400000000 implements MigrationInterface {
  name = 'WithdrawnContent1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "events" SET "resource" = NULL
      WHERE "resource" IS NOT NULL AND "audience" IN ('moderated', 'public')
        AND "post_id" IN (SELECT "id" FROM "posts" WHERE "status" <> 'published')`);
    await queryRunner.query(`UPDATE "events" SET "resource" = NULL
      WHERE "resource" IS NOT NULL AND "audience" = 'public'
        AND "comment_id" IN (SELECT "id" FROM "comments" WHERE "status" <> 'approved')`);
  }

  async down(): Promise<void> {
    // Erased content is gone; the schema is unchanged.
  }
}
