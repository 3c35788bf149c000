import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { createTestDatabase, migratedTo, type TestDatabase } from './support/databases.js';
import { describeEachDatabase } from './support/test-app.js';

// The migration of review before publishing (PostReviews1766000000000, CONTRACT §16): the
// decisions' table, whose rows go with their post and outlive their reviewer; down drops it and
// returns the posts in review to draft (the states before it have no in_review).
describeEachDatabase('migration: post reviews', (kind) => {
  let database: TestDatabase;
  const open: DataSource[] = [];
  const index = MIGRATIONS.findIndex((migration) => migration.name === 'PostReviews1766000000000');
  const p = (n: number) => (kind === 'postgres' ? `$${n}` : '?');
  const now = () => (kind === 'postgres' ? new Date() : new Date().toISOString());

  beforeEach(async () => {
    database = await createTestDatabase(kind, { file: true });
  });
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  });

  it('adds post_reviews (cascading with its post, keeping a deleted reviewer as null, refusing an unknown decision); down drops it and puts posts in review back to draft', async () => {
    expect(index).toBeGreaterThan(0);
    const after = await migratedTo(database, kind, MIGRATIONS.slice(0, index + 1));
    open.push(after);
    if (kind === 'sqlite') await after.query('PRAGMA foreign_keys = ON');
    for (const [name, email, role] of [['A', 'a@example.com', 'author'], ['E', 'e@example.com', 'editor']]) {
      await after.query(`INSERT INTO users (name, email, password_hash, role, created_at, updated_at, version) VALUES (${p(1)}, ${p(2)}, 'x', ${p(3)}, ${p(4)}, ${p(5)}, 1)`, [name, email, role, now(), now()]);
    }
    for (const [title, status] of [['Kept', 'published'], ['Waiting', 'in_review'], ['Gone', 'draft']]) {
      await after.query(`INSERT INTO posts (title, body, author_id, status, created_at, updated_at, version) VALUES (${p(1)}, 'b', 1, ${p(2)}, ${p(3)}, ${p(4)}, 1)`, [title, status, now(), now()]);
    }
    const review = (postId: number, decision: string) =>
      after.query(`INSERT INTO post_reviews (post_id, reviewer_id, decision, note, created_at) VALUES (${p(1)}, 2, ${p(2)}, 'n', ${p(3)})`, [postId, decision, now()]);
    await review(1, 'approve');
    await review(3, 'request_changes');
    await expect(review(1, 'reject')).rejects.toThrow();
    await after.query('DELETE FROM posts WHERE id = 3');
    await after.query('DELETE FROM users WHERE id = 2');
    const rows = (await after.query('SELECT post_id, reviewer_id, decision FROM post_reviews ORDER BY id')) as { post_id: number; reviewer_id: number | null; decision: string }[];
    expect(rows.map((row) => [Number(row.post_id), row.reviewer_id, row.decision])).toEqual([[1, null, 'approve']]);

    await after.undoLastMigration({ transaction: 'all' });
    const statuses = (await after.query('SELECT title, status FROM posts ORDER BY id')) as { title: string; status: string }[];
    expect(statuses).toEqual([{ title: 'Kept', status: 'published' }, { title: 'Waiting', status: 'draft' }]);
    await expect(after.query('SELECT 1 FROM post_reviews')).rejects.toThrow();
  });
});
