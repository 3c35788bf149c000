import { createClient as createSseClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import { expectData, graphql, metricValue } from './support/graphql-client.js';
import { type Standby, standbyTools, startStandby, until } from './support/standby.js';
import { listen, LiveSubscription, wsClient } from './support/subscriptions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * DATABASE_REPLICA_URLS against a real streaming standby of the test cluster, made by this suite
 * (pg_basebackup, pg_ctl) and removed after it. The standby's replay is paused for the
 * read-your-writes test and DATABASE_REPLICA_MAX_LAG_MS is an hour, so that only the write's
 * commit position keeps its writer off the replica that has not seen it.
 */
const tools = standbyTools();
const describeReplicas = 'bin' in tools ? describe : describe.skip;
const title = 'bin' in tools ? 'read replicas [postgres]' : `read replicas [postgres] (skipped: ${tools.missing})`;

const POST_PAGE = 'query Page($id: Int!) { post(id: $id) { id title body author { name } commentCount comments { body author { name } } } }';

describeReplicas(title, () => {
  let standby: Standby | undefined;
  let database: TestDatabase | undefined;
  let app: TestApp | undefined;
  let token: string;

  const replicaReads = () => metricValue(app!, 'db_read_route_total', { target: 'replica' });
  const primaryReads = () => metricValue(app!, 'db_read_route_total', { target: 'primary' });
  const replicaHealth = async () => {
    const response = await request(app!.server).get('/health').expect(200);
    return response.body.checks.replicas as { status: string; replicas: { replica: string; status: string; lagSeconds: number | null }[] };
  };
  const databaseName = () => new URL(database!.url).pathname.slice(1);

  beforeAll(async () => {
    standby = await startStandby((tools as { bin: string }).bin, TEST_DATABASE_URL!);
    // Made on the primary after the copy: the standby gets it by streaming.
    database = await createTestDatabase('postgres');
    await until('the new database on the standby', 120_000, async () => ((await standby!.query(databaseName(), 'SELECT 1 AS one')).length === 1 ? true : undefined));
    app = await startTestApp('postgres', {
      database,
      env: {
        DATABASE_REPLICA_URLS: standby.urlFor(database.url),
        DATABASE_REPLICA_MAX_LAG_MS: '3600000',
        // Every anonymous read goes the whole way (a cacheable miss reads from the primary).
        RESPONSE_CACHE: 'off',
        METRICS_ENABLED: 'true',
        ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
      },
    });
    token = await tokenFor(app, ALICE);
    await until('the replica up in /health', 60_000, async () => ((await replicaHealth()).status === 'up' ? true : undefined));
  }, 900_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await standby?.remove();
    await database?.drop().catch(() => undefined);
  }, 180_000);

  it('reports the replica by host:port (never its credentials) in /health and the metrics', async () => {
    const health = await replicaHealth();
    expect(health.replicas).toEqual([{ replica: `127.0.0.1:${standby!.port}`, status: 'up', lagSeconds: expect.any(Number) }]);
    expect(await metricValue(app!, 'db_replica_up', { replica: `127.0.0.1:${standby!.port}` })).toBe(1);
  }, 120_000);

  it('anonymous REST reads and GraphQL queries are answered from the replica', async () => {
    // Signing in wrote nothing, but a write by anyone at this address would route it to the primary for a moment.
    let before = await replicaReads();
    await until('an anonymous REST read on the replica', 30_000, async () => {
      await request(app!.server).get('/posts/1').expect(200);
      await request(app!.server).get('/posts?limit=5').expect(200);
      return (await replicaReads()) > before ? true : undefined;
    });
    before = await replicaReads();
    await until('an anonymous GraphQL query on the replica', 30_000, async () => {
      const page = expectData(await graphql(app!, POST_PAGE, { id: 1 }));
      expect(page.post.id).toBe(1);
      return (await replicaReads()) > before ? true : undefined;
    });
    // The standby itself holds the connections the reads came through.
    const sessions = await standby!.query<{ count: string }>(
      databaseName(),
      "SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = 'blog-replica-reads' AND datname = current_database()",
    );
    expect(Number(sessions[0].count)).toBeGreaterThan(0);
  }, 120_000);

  it('authenticated reads and mutations go to the primary', async () => {
    const before = await replicaReads();
    await request(app!.server).get('/posts/1').set(bearer(token)).expect(200);
    expectData(await graphql(app!, POST_PAGE, { id: 1 }, { token }));
    expect(await replicaReads()).toBe(before);
  }, 120_000);

  it('a writer reads its own write at once, REST and GraphQL, although the replica has stopped replaying', async () => {
    await standby!.query(databaseName(), 'SELECT pg_wal_replay_pause()');
    try {
      await until('replay paused', 30_000, async () => {
        const [row] = await standby!.query<{ state: string }>(databaseName(), 'SELECT pg_get_wal_replay_pause_state() AS state');
        return row.state === 'paused' ? true : undefined;
      });
      for (let round = 1; round <= 3; round++) {
        const title = `Written in round ${round}`;
        const created = await request(app!.server).post('/posts').set(bearer(token)).send({ title, body: 'Read it back at once' }).expect(201);
        const id = created.body.id as number;
        const primaryBefore = await primaryReads();
        const read = await request(app!.server).get(`/posts/${id}`);
        expect(read.status, read.text).toBe(200);
        expect(read.body.title).toBe(title);
        expect(expectData(await graphql(app!, POST_PAGE, { id })).post.title).toBe(title);
        expect(await primaryReads()).toBeGreaterThan(primaryBefore);

        const changed = `${title}, changed by GraphQL`;
        const mutation = 'mutation Change($id: Int!, $title: String!) { updatePost(id: $id, input: { title: $title }) { id title } }';
        expect(expectData(await graphql(app!, mutation, { id, title: changed }, { token })).updatePost.title).toBe(changed);
        expect(expectData(await graphql(app!, POST_PAGE, { id })).post.title).toBe(changed);
        const again = await request(app!.server).get(`/posts/${id}`).expect(200);
        expect(again.body.title).toBe(changed);
      }
    } finally {
      await standby!.query(databaseName(), 'SELECT pg_wal_replay_resume()');
    }
  }, 120_000);

  it('a mutation over WebSocket or SSE marks its writer too: its next anonymous read sees it, although the replica has stopped replaying', async () => {
    const urls = await listen(app!);
    const mutation = 'mutation Write($title: String!) { createPost(input: { title: $title, body: "Over a live transport" }) { id } }';
    const overWs = async (title: string) => {
      const ws = wsClient(urls.ws, { token });
      try {
        await ws.connected;
        const [result] = await new LiveSubscription(ws.client, mutation, { title }).received(1);
        return (result as { id: number }).id;
      } finally {
        await ws.dispose();
      }
    };
    const overSse = async (title: string) => {
      const client = createSseClient({ url: `${urls.http}/graphql/stream`, singleConnection: false, retryAttempts: 0, headers: { authorization: `Bearer ${token}` } });
      try {
        const [result] = await new LiveSubscription(client, mutation, { title }).received(1);
        return (result as { id: number }).id;
      } finally {
        client.dispose();
      }
    };
    for (const [transport, write] of [['WebSocket', overWs], ['SSE', overSse]] as const) {
      // Replaying, and past every earlier write of this address: anonymous reads go to the replica again.
      await standby!.query(databaseName(), 'SELECT pg_wal_replay_resume()');
      const before = await replicaReads();
      await until(`${transport}: anonymous reads on the replica again`, 60_000, async () => {
        await request(app!.server).get('/posts?limit=1').expect(200);
        return (await replicaReads()) > before ? true : undefined;
      });
      await standby!.query(databaseName(), 'SELECT pg_wal_replay_pause()');
      try {
        await until('replay paused', 30_000, async () => {
          const [row] = await standby!.query<{ state: string }>(databaseName(), 'SELECT pg_get_wal_replay_pause_state() AS state');
          return row.state === 'paused' ? true : undefined;
        });
        const title = `Written over ${transport}`;
        const id = await write(title);
        const read = await request(app!.server).get(`/posts/${id}`);
        expect(read.status, `${transport}: ${read.text}`).toBe(200);
        expect(read.body.title).toBe(title);
        expect(expectData(await graphql(app!, POST_PAGE, { id })).post.title).toBe(title);
      } finally {
        await standby!.query(databaseName(), 'SELECT pg_wal_replay_resume()');
      }
    }
  }, 240_000);

  it('with the response cache on, a miss that will be kept reads from the primary', async () => {
    const cached = await startTestApp('postgres', {
      database: database!,
      env: { DATABASE_REPLICA_URLS: standby!.urlFor(database!.url), RESPONSE_CACHE: 'memory', METRICS_ENABLED: 'true' },
    });
    try {
      await until('the replica up', 60_000, async () => {
        const response = await request(cached.server).get('/health').expect(200);
        return response.body.checks.replicas.status === 'up' ? true : undefined;
      });
      const replica = () => metricValue(cached, 'db_read_route_total', { target: 'replica' });
      const before = await replica();
      const miss = await request(cached.server).get('/posts/1').expect(200);
      expect(miss.headers['cache-status']).toMatch(/miss/i);
      expectData(await graphql(cached, POST_PAGE, { id: 1 }));
      expect(await replica()).toBe(before);
    } finally {
      await cached.close();
    }
  }, 120_000);

  it('a stopped replica is skipped without an error, and /health shows it down', async () => {
    // Once the replica has caught up with the writes above, it answers again...
    await until('a read on the replica again', 60_000, async () => {
      const before = await replicaReads();
      await request(app!.server).get('/posts/1').expect(200);
      return (await replicaReads()) > before ? true : undefined;
    });
    // ...until it stops, as in a crash.
    await standby!.kill();
    for (let round = 0; round < 10; round++) {
      const rest = await request(app!.server).get('/posts/1');
      expect(rest.status, rest.text).toBe(200);
      const list = await request(app!.server).get('/posts?limit=3');
      expect(list.status, list.text).toBe(200);
      expect(expectData(await graphql(app!, POST_PAGE, { id: 1 })).post.id).toBe(1);
    }
    const health = await until('the replica down in /health and db_replica_up', 30_000, async () => {
      const checks = await replicaHealth();
      const up = await metricValue(app!, 'db_replica_up', { replica: `127.0.0.1:${standby!.port}` });
      return checks.replicas[0].status === 'down' && up === 0 ? checks : undefined;
    });
    expect(health.status).toBe('down');
    // Nothing else is degraded: the service answers 200 and reads go to the primary.
    const before = await primaryReads();
    await request(app!.server).get('/posts/1').expect(200);
    expect(await primaryReads()).toBeGreaterThan(before);
  }, 120_000);
});

describe('read replicas: settings', () => {
  it('DATABASE_REPLICA_URLS needs a PostgreSQL primary, and an invalid URL is refused without being quoted', async () => {
    const { loadConfig } = await import('../src/config/app-config.js');
    expect(() => loadConfig({ DATABASE_URL: 'sqlite::memory:', DATABASE_REPLICA_URLS: 'postgres://u:p@127.0.0.1:5433/db' })).toThrow(/DATABASE_REPLICA_URLS/);
    let message = '';
    try {
      loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/db', DATABASE_REPLICA_URLS: 'postgres://u:secretword@127.0.0.1:5433/db, mysql://u:secretword@h/db' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/DATABASE_REPLICA_URLS/);
    expect(message).not.toMatch(/secretword/);
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/db', DATABASE_REPLICA_URLS: 'postgres://127.0.0.1:5433/db,postgres://127.0.0.1:5434/db' });
    expect(config.databaseReplicaUrls).toHaveLength(2);
    expect(config.databaseReplicaMaxLagMs).toBe(5000);
  }, 120_000);
});
