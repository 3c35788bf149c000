import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On SQLite every event's `tx` is 0 (one writer, committing in id order), so the log is read,
 * replayed and pruned by id alone, which the table's rowid orders: `idx_events_tx_id` served no
 * statement and cost every write an index entry. PostgreSQL reads the log in (tx, id) order and
 * keeps it.
 */
export class SqliteEventsById1766110000000 implements MigrationInterface {
  name = 'SqliteEventsById1766110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') return;
    await queryRunner.query('DROP INDEX "idx_events_tx_id"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') return;
    await queryRunner.query('CREATE INDEX "idx_events_tx_id" ON "events" ("tx", "id")');
  }
}
