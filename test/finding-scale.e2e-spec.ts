import pg from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFindingPostgres, word } from '../bench/finding-data.mjs';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { nextLink } from './support/resources.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * Finding content at a million posts (CONTRACT §8: "no sequential scan of posts at 1M rows").
 * A fresh PostgreSQL database, migrated by the application, gets 1,000,000 posts in three locales
 * (translation groups of three, CONTRACT §15), 200 tags and
 * two tags per post straight from generate_series (bench/finding-data.mjs); then the real requests run (search, tags,
 * each order, date ranges, first and deep pages) while every statement they send is recorded,
 * and each statement that reads posts is EXPLAINed with its own parameters: the plan must read
 * posts through an index, never by a sequential scan.
 */

interface Recorded {
  query: string;
  parameters: unknown[];
}

const describeScale = TEST_DATABASE_URL ? describe : describe.skip;
const LOCALES = ['en', 'de', 'fr'];
const label = TEST_DATABASE_URL ? 'finding content at 1,000,000 posts [postgres]' : 'finding content at 1,000,000 posts [postgres] (skipped: TEST_DATABASE_URL is not set)';

describeScale(label, () => {
  let database: TestDatabase;
  let app: TestApp;
  let recording: Recorded[] | null = null;
  const http = () => request(app.server);

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    app = await startTestApp('postgres', { database, env: { SEED_DEMO_DATA: 'false', SEARCH_TIMEOUT_MS: '2000', SUPPORTED_LOCALES: LOCALES.join(',') } });
    const source = app.app.get(DataSource);
    const logQuery = source.logger.logQuery.bind(source.logger);
    source.logger.logQuery = (query, parameters, runner) => {
      recording?.push({ query, parameters: Array.isArray(parameters) ? parameters : [] });
      return logQuery(query, parameters, runner);
    };
    // Straight on the database: the application's own connections time out long before a bulk load ends.
    const loader = new pg.Client({ connectionString: database.url });
    await loader.connect();
    try {
      await loadFindingPostgres(loader, { locales: LOCALES });
    } finally {
      await loader.end();
    }
  }, 600_000);

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  /** The statements a request sends that read posts, answered 200 (the body and the next page's path). */
  async function statementsOf(path: string): Promise<{ statements: Recorded[]; body: { id: number; title: string; status?: string; publishedAt?: string | null }[]; next: string | null }> {
    recording = [];
    const response = await http().get(path).set('Accept', 'application/json');
    const statements = recording.filter((statement) => /\bposts\b/.test(statement.query) && /^\s*(WITH|SELECT)\b/i.test(statement.query));
    recording = null;
    expect(response.status, `${path}: ${response.text.slice(0, 300)}`).toBe(200);
    return { statements, body: response.body as never, next: nextLink(response) };
  }

  async function plansOf(path: string): Promise<{ plans: string[]; body: { id: number; title: string; publishedAt?: string | null }[]; next: string | null }> {
    const { statements, body, next } = await statementsOf(path);
    expect(statements.length, `${path} sends a statement that reads posts`).toBeGreaterThan(0);
    const source = app.app.get(DataSource);
    const plans: string[] = [];
    for (const statement of statements) {
      const rows = (await source.query(`EXPLAIN ${statement.query}`, statement.parameters)) as { 'QUERY PLAN': string }[];
      plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    return { plans, body, next };
  }

  function expectIndexed(path: string, plans: string[]): void {
    if (process.env.SHOW_PLANS) console.log(path, plans.join("\n---\n"));
    for (const plan of plans) {
      expect(plan, `${path}: no sequential scan of posts`).not.toMatch(/Seq Scan on posts\b/);
      expect(plan, `${path}: reads posts through an index`).toMatch(/(Index Scan|Index Only Scan|Bitmap Index Scan)/);
    }
  }

  const cases: [string, string][] = [
    ['search', `/posts?q=${word(4242)}`],
    ['search, two words', `/posts?q=${encodeURIComponent(`${word(4242)} ${word(15146)}`)}`],
    ['search, newest first', `/posts?q=${word(4242)}&sort=-publishedAt`],
    ['one tag', '/posts?tag=tag-7'],
    ['a rare tag', '/posts?tag=rare'],
    ['two tags', '/posts?tag=tag-7&tag=tag-43'],
    ['title order', '/posts?sort=title'],
    ['oldest first', '/posts?sort=publishedAt'],
    ['recently updated', '/posts?sort=-updatedAt'],
    ['published after', '/posts?publishedAfter=2025-06-01T00:00:00Z'],
    ['published between', '/posts?publishedAfter=2025-06-01T00:00:00Z&publishedBefore=2025-06-02T00:00:00Z'],
    ['tag and date', '/posts?tag=tag-7&publishedAfter=2025-06-01T00:00:00Z'],
    ['author and tag', '/posts?authorId=7&tag=tag-7'],
    // Lists in a language: one post per translation group (CONTRACT §15).
    ['in German', '/posts?locale=de'],
    ['every translation', '/posts?locale=*'],
    ["an author's, in French", '/users/7/posts?locale=fr'],
    ['a tag, in German', '/posts?tag=tag-7&locale=de'],
    ['search, in French', `/posts?q=${word(4242)}&locale=fr`],
    ['title order, in German', '/posts?sort=title&locale=de'],
  ];

  for (const [name, path] of cases) {
    it(`${name}: ${path} reads posts through indexes, on the first page and the next`, async () => {
      const first = await plansOf(`${path}&limit=20`);
      expectIndexed(path, first.plans);
      expect(first.body.length, `${path} finds posts`).toBeGreaterThan(0);
      if (first.next) {
        const second = await plansOf(first.next);
        expectIndexed(first.next, second.plans);
        const seen = new Set(first.body.map((post) => post.id));
        for (const post of second.body) expect(seen.has(post.id), `${first.next}: post ${post.id} again`).toBe(false);
      }
    });
  }

  it('a search finds exactly the posts that hold the word, every one once', async () => {
    const target = word(4242);
    // A scan of every post: on a client of its own, as the application's connections give any
    // statement 2 s, which a busy machine can exceed.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const expected = (
      await client
        .query<{ id: number }>(`SELECT id FROM posts WHERE status = 'published' AND (title ~ $1 OR body ~ $1) ORDER BY id`, [`\\m${target}\\M`])
        .finally(() => client.end())
    ).rows;
    expect(expected.length).toBeGreaterThan(10);
    const ids: number[] = [];
    let next: string | null = `/posts?q=${target}&limit=20&locale=*`;
    while (next) {
      const page = await statementsOf(next);
      ids.push(...page.body.map((post) => post.id));
      next = page.next;
      expect(ids.length).toBeLessThanOrEqual(expected.length);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(expected.map((row) => Number(row.id)));
  });

  it('pages further into the title order are read through the index too', async () => {
    // The cursor names a place in the order: the fourth page costs what the first does.
    let page = await plansOf('/posts?sort=title&limit=50');
    for (let i = 0; i < 3 && page.next; i++) page = await plansOf(page.next);
    expectIndexed('/posts?sort=title (page 4)', page.plans);
  });
});
