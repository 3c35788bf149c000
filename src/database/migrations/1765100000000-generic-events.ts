import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events without an author: a resource's events carry the ids its resource declares
 * (ResourceSpec.eventRefs), and a resource need not have an author, so `events.author_id`
 * becomes nullable. Existing events keep their values.
 *
 * SQLite cannot drop a NOT NULL: the table is rebuilt from its own definition (every column,
 * as later migrations added them), with its rows, its indexes and triggers, and its AUTOINCREMENT
 * sequence (pruning may have deleted the newest ids: they are never given again). No table has
 * a foreign key to `events` (an event outlives what it tells of; webhook_deliveries.event_id is a
 * plain column), so dropping the old table cascades nowhere although foreign keys are on inside
 * the migration's transaction.
 */
export class GenericEvents1765100000000 implements MigrationInterface {
  name = 'GenericEvents1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('ALTER TABLE "events" ALTER COLUMN "author_id" DROP NOT NULL');
      return;
    }
    await rebuild(queryRunner, (definition) => {
      const nullable = definition.replace(/("author_id"\s+integer)\s+NOT NULL/i, '$1');
      if (nullable === definition) throw new Error('events.author_id: its NOT NULL was not found in the table definition');
      return nullable;
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Fails if events without an author were written since (a resource without one), as it should.
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('ALTER TABLE "events" ALTER COLUMN "author_id" SET NOT NULL');
      return;
    }
    await rebuild(queryRunner, (definition) => definition.replace(/("author_id"\s+integer)/i, '$1 NOT NULL'));
  }
}

/** SQLite: `events` again, as `change` makes its CREATE TABLE, with everything it had. */
async function rebuild(queryRunner: QueryRunner, change: (definition: string) => string): Promise<void> {
  const [table] = (await queryRunner.query(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'`)) as { sql: string }[];
  const dependents = (await queryRunner.query(
    `SELECT sql FROM sqlite_master WHERE tbl_name = 'events' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name`,
  )) as { sql: string }[];
  const [sequence] = (await queryRunner.query(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`)) as { seq: number }[];
  const created = change(table.sql).replace(/^CREATE TABLE\s+"?events"?/i, 'CREATE TABLE "events_rebuilt"');
  await queryRunner.query(created);
  await queryRunner.query('INSERT INTO "events_rebuilt" SELECT * FROM "events"');
  await queryRunner.query('DROP TABLE "events"');
  await queryRunner.query('ALTER TABLE "events_rebuilt" RENAME TO "events"');
  for (const { sql } of dependents) await queryRunner.query(sql);
  if (sequence) {
    await queryRunner.query(`DELETE FROM sqlite_sequence WHERE name = 'events'`);
    await queryRunner.query(`INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)`, [sequence.seq]);
  }
}
