import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How far pruning of the event log has gone: one row, the position (tx, event id) of the last
 * event deleted, (0, 0) until the first prune. A cursor before it may have missed events and is
 * refused; one at or after it has lost nothing.
 */
export class EventsPruned1764600000000 implements MigrationInterface {
  name = 'EventsPruned1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const big = queryRunner.connection.options.type === 'postgres' ? 'bigint' : 'integer';
    await queryRunner.query(`CREATE TABLE "events_pruned" (
      "id" integer PRIMARY KEY NOT NULL,
      "tx" ${big} NOT NULL,
      "event_id" ${big} NOT NULL,
      CHECK ("id" = 1)
    )`);
    await queryRunner.query('INSERT INTO "events_pruned" ("id", "tx", "event_id") VALUES (1, 0, 0)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "events_pruned"');
  }
}
