import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { createTestDatabase, migratedTo, type TestDatabase } from './support/databases.js';
import { describeEachDatabase } from './support/test-app.js';

// The migration of search per language (SearchPerLanguage1765950000000, CONTRACT §15): the posts
// there before it are indexed again, each in its locale's language; down goes back to one
// configuration for every post, still finding them.
describeEachDatabase('migration: search per language', (kind) => {
  let database: TestDatabase;
  const open: DataSource[] = [];

  const migrated = async (migrations: readonly unknown[]) => {
    const dataSource = await migratedTo(database, kind, migrations);
    open.push(dataSource);
    return dataSource;
  };
  const p = (index: number) => (kind === 'postgres' ? `$${index}` : '?');
  const now = () => (kind === 'postgres' ? new Date() : new Date().toISOString());
  const index = MIGRATIONS.findIndex((migration) => migration.name === 'SearchPerLanguage1765950000000');

  /** The ids of the posts a search of `word` finds: PostgreSQL read in `configuration`, SQLite in every FTS5 table there is. */
  async function matching(dataSource: DataSource, word: string, configuration: string): Promise<number[]> {
    if (kind === 'postgres') {
      const rows = (await dataSource.query(`SELECT id FROM posts WHERE search @@ websearch_to_tsquery($1::regconfig, $2) ORDER BY id`, [configuration, word])) as { id: number }[];
      return rows.map((row) => Number(row.id));
    }
    const tables = ((await dataSource.query(`SELECT name FROM sqlite_master WHERE name IN ('posts_fts', 'posts_fts_plain')`)) as { name: string }[]).map((row) => row.name);
    const ids: number[] = [];
    for (const table of tables) ids.push(...((await dataSource.query(`SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?`, [word])) as { id: number }[]).map((row) => Number(row.id)));
    return ids.sort((a, b) => a - b);
  }

  beforeEach(async () => {
    database = await createTestDatabase(kind, { file: true });
  });
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  });

  it('indexes the posts written before it in their own languages, keeps doing so for new ones; down indexes them all in one again', async () => {
    expect(index).toBeGreaterThan(0);
    const earlier = await migrated(MIGRATIONS.slice(0, index));
    await earlier.query(`INSERT INTO users (name, email, password_hash, role, created_at, updated_at, version) VALUES ('A', 'a@example.com', 'x', 'author', ${p(1)}, ${p(2)}, 1)`, [now(), now()]);
    const posts: [string, string, string][] = [
      ['en', 'Running late', 'She keeps running'],
      ['de', 'Die Häuser', 'Wir testen das Streaming'],
    ];
    for (const [locale, title, body] of posts) {
      await earlier.query(`INSERT INTO posts (title, body, author_id, locale, created_at, updated_at, version) VALUES (${p(1)}, ${p(2)}, 1, ${p(3)}, ${p(4)}, ${p(5)}, 1)`, [title, body, locale, now(), now()]);
    }
    // Before: every post in English (PostgreSQL's column, SQLite's Porter table): the German post is found by an English stem.
    expect(await matching(earlier, 'stream', 'english')).toEqual([2]);
    await earlier.destroy();

    const after = await migrated(MIGRATIONS.slice(0, index + 1));
    expect(await matching(after, 'run', 'english')).toEqual([1]);
    expect(await matching(after, 'stream', 'english')).toEqual([]);
    expect(await matching(after, 'Streaming', 'german')).toEqual([2]);
    expect(await matching(after, 'Haus', 'german')).toEqual(kind === 'postgres' ? [2] : []);
    // A post written after it, and a change of locale, go to their language's index.
    await after.query(`INSERT INTO posts (title, body, author_id, locale, created_at, updated_at, version) VALUES ('Mehr Häuser', 'Streaming', 1, 'de-CH', ${p(1)}, ${p(2)}, 1)`, [now(), now()]);
    await after.query(`UPDATE posts SET locale = 'de' WHERE id = 1`);
    expect(await matching(after, 'run', 'english')).toEqual([]);
    expect(await matching(after, 'stream', 'english')).toEqual([]);
    expect(await matching(after, 'Streaming', 'german')).toEqual([2, 3]);
    if (kind === 'sqlite') {
      for (const table of ['posts_fts', 'posts_fts_plain']) await after.query(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`);
    }

    await after.undoLastMigration({ transaction: 'all' });
    expect(await matching(after, 'stream', 'english')).toEqual([2, 3]);
    expect(await matching(after, 'run', 'english')).toEqual([1]);
    if (kind === 'postgres') {
      expect(await after.query(`SELECT 1 FROM pg_proc WHERE proname = 'search_configuration'`)).toEqual([]);
    } else {
      await after.query(`INSERT INTO posts_fts (posts_fts) VALUES ('integrity-check')`);
    }
  });
});
