import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { createTestDatabase, migratedTo, type TestDatabase } from './support/databases.js';
import { describeEachDatabase } from './support/test-app.js';

// The migration of languages (PostLocales1765800000000, CONTRACT §15): every post there before it
// is in DEFAULT_LOCALE as the environment says it then (else the first of SUPPORTED_LOCALES,
// else en), in a translation group of its own; one post per locale and group from then on.
describeEachDatabase('migration: post locales and translation groups', (kind) => {
  let database: TestDatabase;
  const open: DataSource[] = [];
  const saved = { DEFAULT_LOCALE: process.env.DEFAULT_LOCALE, SUPPORTED_LOCALES: process.env.SUPPORTED_LOCALES };

  const migrated = async (migrations: readonly unknown[]) => {
    const dataSource = await migratedTo(database, kind, migrations);
    open.push(dataSource);
    return dataSource;
  };
  const p = (index: number) => (kind === 'postgres' ? `$${index}` : '?');
  const now = () => (kind === 'postgres' ? new Date() : new Date().toISOString());
  const index = MIGRATIONS.findIndex((migration) => migration.name === 'PostLocales1765800000000');

  /** The database as it was before the migration, with a user and three posts. */
  async function before(): Promise<void> {
    expect(index).toBeGreaterThan(0);
    const earlier = await migrated(MIGRATIONS.slice(0, index));
    await earlier.query(`INSERT INTO users (name, email, password_hash, role, created_at, updated_at, version) VALUES ('A', 'a@example.com', 'x', 'author', ${p(1)}, ${p(2)}, 1)`, [now(), now()]);
    for (const title of ['One', 'Two', 'Three']) {
      await earlier.query(`INSERT INTO posts (title, body, author_id, created_at, updated_at, version) VALUES (${p(1)}, 'b', 1, ${p(2)}, ${p(3)}, 1)`, [title, now(), now()]);
    }
    await earlier.query(
      `INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience) VALUES ('POST_CREATED', ${p(1)}, 1, NULL, 1, ${p(2)}, NULL, 'public')`,
      [now(), JSON.stringify({ id: 1, title: 'One', body: 'b "locale":', authorId: 1 })],
    );
    await earlier.query(`INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience) VALUES ('POST_DELETED', ${p(1)}, 1, NULL, 1, NULL, NULL, 'public')`, [now()]);
    await earlier.destroy();
  }

  const snapshots = async (dataSource: DataSource) =>
    ((await dataSource.query('SELECT type, resource FROM events ORDER BY id')) as { type: string; resource: string | null }[]).map((row) => ({
      type: row.type,
      resource: row.resource === null ? null : JSON.parse(row.resource),
    }));

  const posts = async (dataSource: DataSource) =>
    ((await dataSource.query('SELECT id, locale, translation_group_id FROM posts ORDER BY id')) as Record<string, unknown>[]).map((row) => ({
      id: Number(row.id),
      locale: row.locale,
      group: Number(row.translation_group_id ?? row.id),
    }));

  beforeEach(async () => {
    database = await createTestDatabase(kind, { file: true });
  });
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('puts every post in DEFAULT_LOCALE (canonical) and in a group of its own; a second post of a group in one locale is refused; down drops both', async () => {
    await before();
    process.env.SUPPORTED_LOCALES = 'en,de-ch';
    process.env.DEFAULT_LOCALE = 'de-ch';
    const after = await migrated(MIGRATIONS.slice(0, index + 1));
    const rows = await posts(after);
    expect(rows).toEqual(rows.map(({ id }) => ({ id, locale: 'de-CH', group: id })));
    expect(await snapshots(after)).toEqual([
      { type: 'POST_CREATED', resource: { locale: 'de-CH', id: 1, title: 'One', body: 'b "locale":', authorId: 1 } },
      { type: 'POST_DELETED', resource: null },
    ]);
    const [first, second] = rows;
    await after.query(`UPDATE posts SET translation_group_id = ${p(1)}, locale = 'en' WHERE id = ${p(2)}`, [first.id, second.id]);
    await expect(after.query(`UPDATE posts SET translation_group_id = ${p(1)} WHERE id = ${p(2)}`, [first.id, rows[2].id])).rejects.toThrow();
    // And down again: the posts stay, without the two columns.
    await after.undoLastMigration({ transaction: 'all' });
    const kept = (await after.query('SELECT * FROM posts ORDER BY id')) as Record<string, unknown>[];
    expect(kept.map((row) => Number(row.id))).toEqual(rows.map((row) => row.id));
    expect(Object.keys(kept[0])).not.toContain('locale');
    expect(Object.keys(kept[0])).not.toContain('translation_group_id');
  });

  it('without DEFAULT_LOCALE: the first of SUPPORTED_LOCALES; without either: en', async () => {
    await before();
    delete process.env.DEFAULT_LOCALE;
    process.env.SUPPORTED_LOCALES = 'fr,en';
    const after = await migrated(MIGRATIONS.slice(0, index + 1));
    expect((await posts(after)).map((row) => row.locale)).toEqual(['fr', 'fr', 'fr']);
    await after.destroy();
    // On a fresh database, without either setting.
    await database.drop();
    database = await createTestDatabase(kind, { file: true });
    await before();
    delete process.env.SUPPORTED_LOCALES;
    const plain = await migrated(MIGRATIONS.slice(0, index + 1));
    expect((await posts(plain)).map((row) => row.locale)).toEqual(['en', 'en', 'en']);
  });
});
