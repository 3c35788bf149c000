import pg from 'pg';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { expectData, graphql } from './support/graphql-client.js';
import { findPgbouncer, type Pgbouncer, startPgbouncer } from './support/pgbouncer.js';
import { expectProblem } from './support/problems.js';
import { type ListeningApp, LiveSubscription, listen, until, waitForNoSubscribers, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * Behind a connection pooler (README, "Behind a connection pooler"): the service reaches
 * PostgreSQL through a real PgBouncer in transaction mode (each transaction, or each statement
 * outside one, on whichever server connection is free), with DATABASE_DIRECT_URL for what needs
 * a session of its own: LISTEN and the migrations with their lock. Two instances, no Redis: the
 * database carries everything between them.
 */

const HIT = 'blog; hit';
const MIGRATION_NAMES = MIGRATIONS.map((Migration) => new Migration().name!).sort();

const missing = [!TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set', !findPgbouncer() && 'pgbouncer is not installed (Debian: apt-get install pgbouncer)'].filter(Boolean);
const title = (name: string) => (missing.length === 0 ? name : `${name} (skipped: ${missing.join('; ')})`);

describe.skipIf(missing.length > 0)(title('behind PgBouncer in transaction mode, with DATABASE_DIRECT_URL'), () => {
  let bouncer: Pgbouncer;
  let database: TestDatabase;
  /** The database through the pooler: what the instances get as DATABASE_URL. */
  let pooled: TestDatabase;
  let direct: pg.Client;
  let a: TestApp;
  let b: TestApp;
  let aUrls: ListeningApp;
  let alice: string;
  let bob: string;
  let started: PromiseSettledResult<TestApp>[];
  const clients: WsClient[] = [];
  const subscriptions: LiveSubscription[] = [];

  const start = () => startTestApp('postgres', { database: pooled, env: { DATABASE_DIRECT_URL: database.url, SEARCH_TIMEOUT_MS: '300' } });

  beforeAll(async () => {
    bouncer = await startPgbouncer(TEST_DATABASE_URL!, { poolMode: 'transaction', poolSize: 5 });
    database = await createTestDatabase('postgres');
    pooled = { ...database, url: bouncer.rewrite(database.url) };
    direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    // Both at once on the fresh database: they serialize on the start-up lock.
    started = await Promise.allSettled([start(), start()]);
    [a, b] = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (a) aUrls = await listen(a);
    if (a) alice = await tokenFor(a, ALICE);
    if (b) bob = await tokenFor(b, BOB);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    if (a) await waitForNoSubscribers(a);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await direct?.end();
    await database?.drop();
    await bouncer?.stop();
  });

  const count = async (sql: string) => Number(((await direct.query(sql)).rows[0] as { n: string }).n);

  it('two instances started together through the pooler both come up; each migration and the demo data once; no lock left held', async () => {
    expect(started.map((result) => (result.status === 'fulfilled' ? 'fulfilled' : String((result.reason as Error).message)))).toEqual(['fulfilled', 'fulfilled']);
    const applied = await direct.query('SELECT name, count(*) AS n FROM migrations GROUP BY name');
    expect(Object.fromEntries(applied.rows.map((row: { name: string; n: string }) => [row.name, Number(row.n)]))).toEqual(
      Object.fromEntries(MIGRATION_NAMES.map((name) => [name, 1])),
    );
    // The demo data once: every demo account once, whoever seeded it.
    expect(await count('SELECT count(*) AS n FROM users')).toBeGreaterThan(0);
    expect(await count('SELECT count(*) - count(DISTINCT email) AS n FROM users')).toBe(0);
    expect(await count("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).toBe(0);
  });

  it('a third instance starting later (a restart) comes up and applies nothing', async () => {
    const c = await start();
    try {
      await request(c.server).get('/health').expect(200);
      expect(await count('SELECT count(*) AS n FROM migrations')).toBe(MIGRATION_NAMES.length);
    } finally {
      await c.close();
    }
    expect(await count("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).toBe(0);
  });

  it('REST and GraphQL writes on one instance read on the other, many at once (each statement on any server connection)', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        request(a.server).post('/posts').set(bearer(alice)).send({ title: `Pooled ${index}`, body: `written through the pooler ${index}` }).expect(201),
      ),
    );
    const ids = created.map((response) => response.body.id as number);
    const read = await Promise.all(ids.map((id) => request(b.server).get(`/posts/${id}`).set(bearer(bob)).expect(200)));
    expect(read.map((response) => response.body.title)).toEqual(ids.map((_, index) => `Pooled ${index}`));

    const comments = await Promise.all(
      ids.map((id) => graphql(b, 'mutation($postId: Int!) { createComment(input: { postId: $postId, body: "through the pooler" }) { id postId } }', { postId: id }, { token: bob })),
    );
    for (const [index, result] of comments.entries()) expect(expectData(result).createComment.postId).toBe(ids[index]);
    const queried = await Promise.all(ids.map((id) => graphql(a, 'query($id: Int!) { post(id: $id) { title commentCount } }', { id })));
    expect(queried.map((result) => expectData(result).post)).toEqual(ids.map((_, index) => ({ title: `Pooled ${index}`, commentCount: 1 })));

    await request(b.server).patch(`/posts/${ids[0]}`).set(bearer(alice)).send({ title: 'Pooled, edited' }).expect(200);
    expect((await request(a.server).get(`/posts/${ids[0]}`).expect(200)).body.title).toBe('Pooled, edited');
  });

  it('a subscriber on A receives a post created on B', async () => {
    const client = wsClient(aUrls.ws, { token: alice });
    clients.push(client);
    await client.connected;
    const created = new LiveSubscription(client.client, 'subscription { postCreated { title authorId } }');
    subscriptions.push(created);
    await waitForSubscribers(a, 'postCreated', 1);
    expectData(await graphql(b, 'mutation { createPost(input: { title: "Written on B", body: "heard on A" }) { id } }', undefined, { token: bob }));
    expect(await created.received(1)).toEqual([{ title: 'Written on B', authorId: 3 }]);
  });

  it("a write that records no event (a new name) on B reaches A's cached answers: A hears B's NOTIFY (LISTEN on the direct connection)", async () => {
    const userOnA = () => request(a.server).get('/users/2').expect(200);
    await until('A to answer the user from memory', async () => (await userOnA()).headers['cache-status'] === HIT);
    await request(b.server).patch('/users/2').set(bearer(alice)).send({ name: 'Alice, renamed on B' }).expect(200);
    await until('A to show the new name', async () => (await userOnA()).body.name === 'Alice, renamed on B');
  });

  it('search through the pooler, and its timeout (SET LOCAL in its own transaction): 503 with Retry-After, no setting left on any server connection', async () => {
    const match = (await request(a.server).get('/posts?q=pooler').expect(200)).body as { id: number }[];
    expect(match.length).toBeGreaterThan(0);
    // A search that cannot finish in time, deterministically: the posts locked by another transaction.
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE posts IN ACCESS EXCLUSIVE MODE');
      const rest = await request(a.server).get('/posts?q=pooler').set(bearer(alice));
      expectProblem(rest, 503, 'SERVICE_UNAVAILABLE');
      expect(rest.headers['retry-after']).toBe('1');
      const ql = await graphql(b, '{ posts(search: "pooler") { totalCount } }', undefined, { token: bob });
      expect(ql.body.errors?.map((error) => error.extensions.code)).toContain('SERVICE_UNAVAILABLE');
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const again = await Promise.all(Array.from({ length: 6 }, () => request(a.server).get('/posts?q=pooler').expect(200)));
    for (const response of again) expect(response.body.length).toBe(match.length);
    // Every server connection the pooler holds still has the server's statement_timeout.
    const expected = ((await direct.query('SHOW statement_timeout')).rows[0] as { statement_timeout: string }).statement_timeout;
    const through = new pg.Pool({ connectionString: pooled.url, max: 5 });
    try {
      const seen = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const client = await through.connect();
          try {
            await client.query('BEGIN');
            const row = (await client.query('SHOW statement_timeout')).rows[0] as { statement_timeout: string };
            await client.query('COMMIT');
            return row.statement_timeout;
          } finally {
            client.release();
          }
        }),
      );
      expect(new Set(seen)).toEqual(new Set([expected]));
    } finally {
      await through.end();
    }
  });
});
