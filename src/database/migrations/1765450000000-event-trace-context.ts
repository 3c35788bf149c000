import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace of the write that recorded an event (its W3C `traceparent`, with tracing on and a
 * span active; null otherwise), kept with the event and with each webhook delivery made of it:
 * the relay's batch and the webhook's feed and attempts start traces of their own, linked to it
 * (span links), rather than hanging under a request that has long ended.
 */
export class EventTraceContext1765450000000 implements MigrationInterface {
  name = 'EventTraceContext1765450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "events" ADD COLUMN "trace_parent" varchar(55)');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" ADD COLUMN "trace_parent" varchar(55)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_deliveries" DROP COLUMN "trace_parent"');
    await queryRunner.query('ALTER TABLE "events" DROP COLUMN "trace_parent"');
  }
}
