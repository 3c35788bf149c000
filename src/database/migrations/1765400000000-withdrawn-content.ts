import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CONTRACT §18 (content that stops being public leaves the public event log): from now on the
 * write that takes content out of public view erases the content of its earlier events that reach
 * readers outside its new audience (EventPublisher.withdrawContent). The events written before
 * this release about content that is already out of view are withdrawn here, by the same rule:
 * a post that is not published (its events and its comments' that reach beyond its author and
 * the editors), a comment that is spam or hidden (its events that reach beyond the moderators),
 * and a pending one (its public events). Webhook deliveries still pending keep their copy until
 * sent (they are retried for a short while only). Nothing to undo: erased content is not kept.
 */
export class WithdrawnContent1765400000000 implements MigrationInterface {
  name = 'WithdrawnContent1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "events" SET "resource" = NULL
      WHERE "resource" IS NOT NULL
        AND "post_id" IN (SELECT "id" FROM "posts" WHERE "status" <> 'published')
        AND ("audience" IN ('moderated', 'public')
          OR ("audience_owner" IS NOT NULL AND "audience_owner" <> (SELECT "author_id" FROM "posts" WHERE "posts"."id" = "events"."post_id")))`);
    await queryRunner.query(`UPDATE "events" SET "resource" = NULL
      WHERE "resource" IS NOT NULL
        AND "comment_id" IN (SELECT "id" FROM "comments" WHERE "status" IN ('spam', 'hidden'))
        AND ("audience" = 'public' OR "audience_owner" IS NOT NULL)`);
    await queryRunner.query(`UPDATE "events" SET "resource" = NULL
      WHERE "resource" IS NOT NULL
        AND "comment_id" IN (SELECT "id" FROM "comments" WHERE "status" = 'pending')
        AND "audience" = 'public'`);
  }

  async down(): Promise<void> {
    // Erased content is gone; the schema is unchanged.
  }
}
