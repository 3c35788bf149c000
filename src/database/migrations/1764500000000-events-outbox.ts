import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox: every write records its events here, in its own transaction. `id` numbers them;
 * `tx` is the writing transaction's id on PostgreSQL (0 on SQLite, whose single writer commits
 * in id order). Events are read in (tx, id) order and only once every transaction before them
 * has ended, so a transaction that took a lower id but commits later is never skipped.
 * `resource` is the resource as the write left it (JSON), null for deletions. No foreign keys:
 * an event outlives what it tells of. On PostgreSQL each insert also wakes the relays of every
 * instance (NOTIFY, sent at commit).
 */
export class EventsOutbox1764500000000 implements MigrationInterface {
  name = 'EventsOutbox1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'BIGSERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const tx = postgres ? 'bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint)' : 'integer NOT NULL DEFAULT 0';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "events" (
      "id" ${id},
      "tx" ${tx},
      "type" varchar(32) NOT NULL,
      "occurred_at" ${time} NOT NULL,
      "post_id" integer,
      "comment_id" integer,
      "author_id" integer NOT NULL,
      "resource" text
    )`);
    await queryRunner.query('CREATE INDEX "idx_events_tx_id" ON "events" ("tx", "id")');
    await queryRunner.query('CREATE INDEX "idx_events_occurred_at" ON "events" ("occurred_at")');
    if (postgres) {
      await queryRunner.query(`CREATE FUNCTION "blog_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_notify('blog_events', ''); RETURN NULL; END $$`);
      await queryRunner.query(
        'CREATE TRIGGER "events_notify" AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION "blog_events_notify"()',
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('DROP TRIGGER IF EXISTS "events_notify" ON "events"');
      await queryRunner.query('DROP FUNCTION IF EXISTS "blog_events_notify"()');
    }
    await queryRunner.query('DROP TABLE "events"');
  }
}
