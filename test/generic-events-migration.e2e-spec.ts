import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { createTestDatabase, migratedTo, type TestDatabase } from './support/databases.js';
import { describeEachDatabase } from './support/test-app.js';

// The migration that lets events carry no author (GenericEvents1765100000000): the events
// written before it keep every value; events without an author can be written after it; the
// table keeps its indexes, its trigger (PostgreSQL) and its sequence (SQLite AUTOINCREMENT).
describeEachDatabase('migration: events.author_id becomes nullable', (kind) => {
  let database: TestDatabase;
  const open: DataSource[] = [];

  const migrated = async (migrations: readonly unknown[]) => {
    const dataSource = await migratedTo(database, kind, migrations);
    open.push(dataSource);
    return dataSource;
  };
  const p = (index: number) => (kind === 'postgres' ? `$${index}` : '?');
  const insert = (dataSource: DataSource, authorId: number | null, postId: number | null) =>
    dataSource.query(
      `INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience) VALUES ('POST_CREATED', ${p(1)}, ${p(2)}, NULL, ${p(3)}, '{}', NULL, 'public')`,
      [kind === 'postgres' ? new Date(0) : new Date(0).toISOString(), postId, authorId],
    );
  const rows = async (dataSource: DataSource) =>
    ((await dataSource.query('SELECT id, post_id, comment_id, author_id, resource, audience FROM events ORDER BY id')) as Record<string, unknown>[]).map((row) => ({
      ...row,
      id: Number(row.id),
    }));
  const indexes = async (dataSource: DataSource): Promise<string[]> =>
    kind === 'postgres'
      ? ((await dataSource.query(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'events' ORDER BY indexname`)) as { name: string }[]).map((row) => row.name)
      : ((await dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name`)) as { name: string }[]).map(
          (row) => row.name,
        );

  beforeEach(async () => {
    database = await createTestDatabase(kind, { file: true });
  });
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  });

  it('keeps every event and its values, indexes, trigger and sequence; an event without an author can be written after', async () => {
    // The migrations up to it (later ones, e.g. the tags', add their own columns to events).
    const generic = MIGRATIONS.findIndex((migration) => migration.name === 'GenericEvents1765100000000');
    expect(generic).toBeGreaterThan(0);
    const before = await migrated(MIGRATIONS.slice(0, generic));
    await expect(insert(before, null, 1)).rejects.toThrow();
    await insert(before, 7, 1);
    await insert(before, 8, 2);
    await insert(before, 9, 3);
    // The newest event was pruned: its id is never given again.
    await before.query(`DELETE FROM events WHERE author_id = 9`);
    const kept = await rows(before);
    const keptIndexes = await indexes(before);
    expect(keptIndexes).toEqual(expect.arrayContaining(['idx_events_tx_id', 'idx_events_occurred_at', 'idx_events_post_id', 'idx_events_comment_id', 'idx_events_author_id']));
    await before.destroy();

    const after = await migrated(MIGRATIONS.slice(0, generic + 1));
    expect(await rows(after)).toEqual(kept);
    expect(await indexes(after)).toEqual(keptIndexes);
    await insert(after, null, 4);
    const [added] = (await rows(after)).slice(-1);
    expect(added).toMatchObject({ post_id: 4, author_id: null });
    expect(added.id).toBeGreaterThan(3);
    if (kind === 'postgres') {
      const triggers = (await after.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal`)) as { tgname: string }[];
      expect(triggers.map((row) => row.tgname)).toEqual(['events_notify']);
    } else {
      // Nothing refers to events with a foreign key (the rebuild would have cascaded).
      const tables = (await after.query(`SELECT name FROM sqlite_master WHERE type = 'table'`)) as { name: string }[];
      for (const { name } of tables) {
        const keys = (await after.query(`SELECT "table" FROM pragma_foreign_key_list(?)`, [name])) as { table: string }[];
        expect(keys.map((key) => key.table), name).not.toContain('events');
      }
      expect(await after.query('PRAGMA foreign_key_check')).toEqual([]);
    }

    // And back: NOT NULL again once no event lacks an author.
    await after.query('DELETE FROM events WHERE author_id IS NULL');
    await after.undoLastMigration({ transaction: 'all' });
    await expect(insert(after, null, 5)).rejects.toThrow();
    expect(await rows(after)).toEqual(kept);
  });
});
