import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: the admins' subscriptions (`webhooks`, with the outbox position they start after),
 * one row per (webhook, event) to deliver (`webhook_deliveries`: the signed body, its state and
 * when it is next due), every attempt made (`webhook_attempts`, what GET /webhooks/{id}/deliveries
 * lists) and how far the feeder has read the outbox (`webhook_feed`, one row).
 */
export class Webhooks1764700000000 implements MigrationInterface {
  name = 'Webhooks1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const id = postgres ? 'SERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const bigId = postgres ? 'BIGSERIAL PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
    const big = postgres ? 'bigint' : 'integer';
    const time = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE "webhooks" (
      "id" ${id},
      "url" varchar(2048) NOT NULL,
      "types" varchar(200) NOT NULL,
      "description" varchar(500),
      "secret" varchar(100) NOT NULL,
      "active" boolean NOT NULL,
      "after_tx" ${big} NOT NULL,
      "after_id" ${big} NOT NULL,
      "created_at" ${time} NOT NULL,
      "updated_at" ${time} NOT NULL,
      "version" integer NOT NULL
    )`);
    await queryRunner.query(`CREATE TABLE "webhook_deliveries" (
      "id" ${bigId},
      "webhook_id" integer NOT NULL,
      "event_id" ${big} NOT NULL,
      "event_cursor" varchar(64) NOT NULL,
      "message_id" varchar(64) NOT NULL,
      "payload" text NOT NULL,
      "status" varchar(16) NOT NULL,
      "attempts" integer NOT NULL,
      "next_attempt_at" ${time} NOT NULL,
      "lease_until" ${time},
      "created_at" ${time} NOT NULL,
      CONSTRAINT "UQ_webhook_deliveries_event" UNIQUE ("webhook_id", "event_id"),
      CONSTRAINT "FK_webhook_deliveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_webhook_deliveries_due" ON "webhook_deliveries" ("status", "next_attempt_at")');
    await queryRunner.query(`CREATE TABLE "webhook_attempts" (
      "id" ${bigId},
      "delivery_id" ${big} NOT NULL,
      "webhook_id" integer NOT NULL,
      "event_cursor" varchar(64) NOT NULL,
      "attempt" integer NOT NULL,
      "status" varchar(16) NOT NULL,
      "http_status" integer,
      "duration_ms" integer NOT NULL,
      "error" varchar(500),
      "at" ${time} NOT NULL,
      "next_attempt_at" ${time},
      CONSTRAINT "FK_webhook_attempts_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id") ON DELETE CASCADE
    )`);
    await queryRunner.query('CREATE INDEX "idx_webhook_attempts_webhook_id" ON "webhook_attempts" ("webhook_id", "id")');
    await queryRunner.query('CREATE INDEX "idx_webhook_attempts_delivery_id" ON "webhook_attempts" ("delivery_id")');
    await queryRunner.query(`CREATE TABLE "webhook_feed" (
      "id" integer PRIMARY KEY NOT NULL,
      "event_tx" ${big} NOT NULL,
      "event_id" ${big} NOT NULL
    )`);
    // The feeder starts at the end of the log: no webhook exists yet to want what came before.
    const latest = postgres
      ? 'SELECT tx, id FROM events WHERE tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint ORDER BY tx DESC, id DESC LIMIT 1'
      : 'SELECT tx, id FROM events ORDER BY tx DESC, id DESC LIMIT 1';
    const [last] = (await queryRunner.query(latest)) as { tx: number | string; id: number | string }[];
    await queryRunner.query(`INSERT INTO "webhook_feed" ("id", "event_tx", "event_id") VALUES (1, ${Number(last?.tx ?? 0)}, ${Number(last?.id ?? 0)})`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "webhook_feed"');
    await queryRunner.query('DROP TABLE "webhook_attempts"');
    await queryRunner.query('DROP TABLE "webhook_deliveries"');
    await queryRunner.query('DROP TABLE "webhooks"');
  }
}
