import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/** Posts made and linked in one statement each: what an import, a bulk retag or a prolific writer's deletion does. */
const POSTS = 50_000;

/**
 * tags.post_count under bulk statements (issue 36): one statement that links, publishes,
 * unlinks or deletes tens of thousands of posts keeps every tag's stored count equal to a real
 * count of its public posts (and does not take minutes: the counting is per statement).
 */
describeEachDatabase('tag counts under bulk statements', (kind) => {
  let app: TestApp;
  /** SQL straight to the test database; on PostgreSQL a client of its own, without the service's 2 s statement timeout. */
  let query: (sql: string) => Promise<Record<string, unknown>[]>;
  let client: pg.Client | undefined;

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'off' } });
    if (kind === 'postgres') {
      const connected = new pg.Client({ connectionString: app.database.url });
      await connected.connect();
      client = connected;
      query = async (sql) => (await connected.query(sql)).rows as Record<string, unknown>[];
    } else {
      const data = app.app.get(DataSource);
      query = (sql) => data.query(sql);
    }
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await app?.close();
  });

  it(`links ${POSTS} posts to a tag in one statement, then publishes, unlinks and deletes in bulk: the stored counts stay the real ones`, async () => {
    const writer = await createUser(app);
    const now = "'2026-01-01 00:00:00.000'";
    const made: number[] = [];
    for (const slug of [`bulk-${kind}`, `bulk-half-${kind}`]) {
      await query(`INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ('${slug}', '${slug}', ${now}, ${now}, 1)`);
      made.push(Number((await query(`SELECT id FROM tags WHERE slug = '${slug}'`))[0].id));
    }
    const [every, half] = made;
    const series =
      kind === 'postgres'
        ? `generate_series(1, ${POSTS}) AS s(g)`
        : `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${POSTS}) SELECT g FROM s) s`;
    // One post in four a draft.
    await query(
      `INSERT INTO posts (title, body, author_id, created_at, updated_at, version, status, published_at, group_published_at) ` +
        `SELECT 'Bulk', 'A bulk post', ${writer.id}, ${now}, ${now}, 1, CASE WHEN g % 4 = 0 THEN 'draft' ELSE 'published' END, ${now}, ${now} FROM ${series}`,
    );
    const mine = `SELECT id FROM posts WHERE author_id = ${writer.id}`;

    async function expectRealCounts(step: string): Promise<number[]> {
      const rows = await query(
        `SELECT t.id, t.post_count, t.link_count, (SELECT COUNT(*) FROM post_tags pt JOIN posts p ON p.id = pt.post_id WHERE pt.tag_id = t.id AND p.status = 'published') AS real, ` +
          `(SELECT COUNT(*) FROM post_tags pt WHERE pt.tag_id = t.id) AS links ` +
          `FROM tags t WHERE t.id IN (${every}, ${half}) ORDER BY t.id`,
      );
      for (const row of rows) {
        expect(Number(row.post_count), `${step}: tag ${String(row.id)}'s public posts`).toBe(Number(row.real));
        // Every post that carries it, whatever its status (whether the tag is public follows from both).
        expect(Number(row.link_count), `${step}: tag ${String(row.id)}'s posts`).toBe(Number(row.links));
      }
      return rows.map((row) => Number(row.post_count));
    }

    await query(`INSERT INTO post_tags (post_id, tag_id) SELECT id, ${every} FROM (${mine}) m`);
    await query(`INSERT INTO post_tags (post_id, tag_id) SELECT id, ${half} FROM (${mine}) m WHERE id % 2 = 0`);
    const linked = await expectRealCounts('linked');
    expect(linked[0]).toBe((POSTS * 3) / 4);

    await query(`UPDATE posts SET status = 'published' WHERE author_id = ${writer.id} AND status = 'draft'`);
    expect((await expectRealCounts('drafts published'))[0]).toBe(POSTS);
    await query(`UPDATE posts SET status = 'trashed' WHERE author_id = ${writer.id} AND id % 3 = 0`);
    await expectRealCounts('a third trashed');
    // An update that changes no post's visibility changes no count.
    await query(`UPDATE posts SET title = 'Bulk, renamed' WHERE author_id = ${writer.id}`);
    await expectRealCounts('renamed');

    await query(`DELETE FROM post_tags WHERE tag_id = ${every} AND post_id % 2 = 1`);
    await expectRealCounts('half unlinked');
    // Their links go with them (the foreign key cascades).
    await query(`DELETE FROM posts WHERE author_id = ${writer.id} AND id % 5 = 0`);
    await expectRealCounts('a fifth of the posts deleted');
    await query(`DELETE FROM users WHERE id = ${writer.id}`);
    expect(await expectRealCounts('their writer deleted')).toEqual([0, 0]);
  }, 240_000);
});
