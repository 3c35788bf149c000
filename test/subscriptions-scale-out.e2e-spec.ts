import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import { expectData, graphql, metricValue } from './support/graphql-client.js';
import {
  type ListeningApp,
  LiveSubscription,
  listen,
  sleep,
  until,
  waitForNoSubscribers,
  waitForSubscribers,
  type WsClient,
  wsClient,
} from './support/subscriptions.js';
import { rawStream } from './support/sse.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §5, scale-out: with REDIS_URL, events travel through Redis pub/sub, so a write on
 * one instance reaches subscribers on every instance, exactly once; and a Redis outage costs
 * live events only, never the API.
 */

const ALICE_ID = 2;
/** How long to keep listening after a delivery before asserting that no duplicate followed. */
const SETTLE_MS = 500;

const missing = [!TEST_DATABASE_URL && 'TEST_DATABASE_URL', !TEST_REDIS_URL && 'TEST_REDIS_URL'].filter(Boolean);
const enabled = missing.length === 0;
const describeScaleOut = enabled ? describe : describe.skip;
const titled = (name: string) => (enabled ? name : `${name} (skipped: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set)`);

/** A key prefix of its own per suite and run, so parallel runs on one Redis never hear each other. */
const uniquePrefix = (what: string) => `blog-test-${what}-${process.pid}-${randomBytes(4).toString('hex')}:`;

interface Instance {
  app: TestApp;
  urls: ListeningApp;
}

/** Two instances on one fresh PostgreSQL database, sharing a Redis (or a proxy in front of it). */
async function startInstances(database: TestDatabase, env: Record<string, string>): Promise<[Instance, Instance]> {
  // One after the other: the first runs the migrations and loads the demo data.
  const a = await startTestApp('postgres', { database, env });
  const b = await startTestApp('postgres', { database, env }).catch(async (error: unknown) => {
    await a.close();
    throw error;
  });
  return [
    { app: a, urls: await listen(a) },
    { app: b, urls: await listen(b) },
  ];
}

/** Live clients per test, all disposed after it; subscribe() waits until the instance's bus subscription is confirmed. */
function liveClients() {
  const clients: WsClient[] = [];
  const subscriptions: LiveSubscription[] = [];

  const subscribe = async (instance: Instance, query: string, variables?: Record<string, unknown>, token?: string) => {
    const client = wsClient(instance.urls.ws, { token });
    clients.push(client);
    await client.connected;
    const subscription = new LiveSubscription(client.client, query, variables);
    subscriptions.push(subscription);
    return subscription;
  };

  const cleanUp = async (...instances: Instance[]) => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    for (const instance of instances) await waitForNoSubscribers(instance.app);
  };

  return { subscribe, cleanUp };
}

/** The number of Redis connections subscribed to a channel, seen from Redis itself. */
async function redisSubscribers(redis: Redis, channel: string): Promise<number> {
  const [, count] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
  return Number(count);
}

describeScaleOut(titled('subscriptions scale-out: two instances, one PostgreSQL, Redis pub/sub'), () => {
  let database: TestDatabase;
  let a: Instance;
  let b: Instance;
  let redis: Redis;
  let alice: string;
  let bob: string;
  const prefix = uniquePrefix('scale');
  const live = liveClients();

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    [a, b] = await startInstances(database, { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix });
    redis = new Redis(TEST_REDIS_URL!, { lazyConnect: true });
    await redis.connect();
    alice = await tokenFor(a.app, ALICE);
    bob = await tokenFor(b.app, BOB);
  });
  afterEach(() => live.cleanUp(a, b));
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    redis?.disconnect();
    await database?.drop();
  });

  it('both instances share the database (events travel through its log) and the bus on prefixed channels (credential changes)', async () => {
    expect(a.app.config.redisUrl).toBe(TEST_REDIS_URL);
    expect(a.app.config.database.url).toBe(b.app.config.database.url);
    await until('both instances on the credentials channel', async () => (await redisSubscribers(redis, `${prefix}events:credentialsChanged`)) === 2);
    expect(await redisSubscribers(redis, 'credentialsChanged')).toBe(0);
    // Subscription events are not Redis messages: each instance's relay reads them from the database.
    await live.subscribe(b, 'subscription { postCreated { id } }');
    await waitForSubscribers(b.app, 'postCreated', 1);
    expect(await redisSubscribers(redis, `${prefix}events:postCreated`)).toBe(0);
  });

  it('a REST write on A reaches a subscriber on B exactly once, with its selection and timestamps intact', async () => {
    const onB = await live.subscribe(b, 'subscription { postCreated { id title createdAt author { name } commentCount } }');
    await waitForSubscribers(b.app, 'postCreated', 1);

    const created = await request(a.app.server).post('/posts').set(bearer(alice)).send({ title: 'from A', body: 'b' }).expect(201);
    expect(await onB.received(1)).toEqual([
      { id: created.body.id, title: 'from A', createdAt: created.body.createdAt, author: { name: 'Alice Author' }, commentCount: 0 },
    ]);
    await sleep(SETTLE_MS);
    expect(onB.results).toHaveLength(1);
  });

  it('a GraphQL mutation on B reaches a subscriber on A exactly once; a subscriber on B itself also gets one copy', async () => {
    const onA = await live.subscribe(a, 'subscription($a: Int) { postCreated(authorId: $a) { id title } }', { a: ALICE_ID });
    const onB = await live.subscribe(b, 'subscription { postCreated { id } }');
    await waitForSubscribers(a.app, 'postCreated', 1);
    await waitForSubscribers(b.app, 'postCreated', 1);

    expectData(await graphql(b.app, 'mutation { createPost(input: { title: "Bob on B", body: "b" }) { id } }', undefined, { token: bob }));
    const id = expectData(await graphql(b.app, 'mutation { createPost(input: { title: "Alice on B", body: "b" }) { id } }', undefined, { token: alice }))
      .createPost.id;

    expect(await onA.received(1)).toEqual([{ id, title: 'Alice on B' }]);
    expect((await onB.received(2)).map((post) => post.id)[1]).toBe(id);
    await sleep(SETTLE_MS);
    expect(onA.results).toHaveLength(1);
    expect(onB.results).toHaveLength(2);
  });

  it('several subscribers on each instance each get exactly one copy', async () => {
    const query = 'subscription { commentCreated { id body author { name } post { title } } }';
    const subscribers = [
      ...(await Promise.all([1, 2, 3].map(() => live.subscribe(a, query)))),
      ...(await Promise.all([1, 2, 3].map(() => live.subscribe(b, query)))),
    ];
    await waitForSubscribers(a.app, 'commentCreated', 3);
    await waitForSubscribers(b.app, 'commentCreated', 3);
    const deliveredOnA = await metricValue(a.app, 'subscription_events_total', { event: 'commentCreated' });
    const deliveredOnB = await metricValue(b.app, 'subscription_events_total', { event: 'commentCreated' });

    const post = (await request(b.app.server).post('/posts').set(bearer(bob)).send({ title: 'commented', body: 'b' }).expect(201)).body.id;
    const comment = (await request(a.app.server).post(`/posts/${post}/comments`).set(bearer(alice)).send({ body: 'once each' }).expect(201)).body.id;

    for (const subscriber of subscribers) {
      expect(await subscriber.received(1)).toEqual([{ id: comment, body: 'once each', author: { name: 'Alice Author' }, post: { title: 'commented' } }]);
    }
    await sleep(SETTLE_MS);
    expect(subscribers.map((subscriber) => subscriber.results.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await metricValue(a.app, 'subscription_events_total', { event: 'commentCreated' })).toBe(deliveredOnA + 3);
    expect(await metricValue(b.app, 'subscription_events_total', { event: 'commentCreated' })).toBe(deliveredOnB + 3);
  });

  it("an API key revoked on A closes its socket (4403) and ends its stream on B at once; so does revoking its user's tokens", async () => {
    const email = `scale-keys-${randomBytes(4).toString('hex')}@example.com`;
    const { id } = (await request(a.app.server).post('/users').send({ name: 'Keys across', email, password: 'keys-password' }).expect(201)).body;
    const token = await tokenFor(a.app, { email, password: 'keys-password' });
    const newKey = async () => (await request(a.app.server).post(`/users/${id}/api-keys`).set(bearer(token)).send({ name: 'k', scopes: ['read'] }).expect(201)).body;
    const revocations: [string, (keyId: number) => Promise<unknown>][] = [
      ['the DELETE of the key', (keyId) => request(a.app.server).delete(`/users/${id}/api-keys/${keyId}`).set(bearer(token)).expect(204)],
      ['DELETE /users/{id}/tokens', () => request(a.app.server).delete(`/users/${id}/tokens`).set(bearer(token)).expect(204)],
    ];
    for (const [how, revoke] of revocations) {
      const key = await newKey();
      const socket = wsClient(b.urls.ws, { token: key.key });
      const stream = await rawStream(b.urls.http, { query: 'subscription { postCreated { id } }' }, bearer(key.key));
      try {
        await socket.connected;
        expect(stream.response.status).toBe(200);
        await revoke(key.id);
        expect((await socket.closed).code, how).toBe(4403);
        await stream.ended;
      } finally {
        stream.close();
        await socket.dispose();
      }
    }
  });

  it('every event crosses instances with its filter: updates, deletions and the cascade', async () => {
    const post = (await request(a.app.server).post('/posts').set(bearer(alice)).send({ title: 'crossing', body: 'b' }).expect(201)).body.id;
    const other = (await request(a.app.server).post('/posts').set(bearer(alice)).send({ title: 'not watched', body: 'b' }).expect(201)).body.id;
    const postUpdated = await live.subscribe(b, 'subscription($id: Int) { postUpdated(id: $id) { id title updatedAt } }', { id: post });
    const commentUpdated = await live.subscribe(b, 'subscription($p: Int) { commentUpdated(postId: $p) { id body } }', { p: post });
    // As the author, who sees her post in the trash until its second DELETE deletes it for good with its comments.
    const commentDeleted = await live.subscribe(b, 'subscription($p: Int) { commentDeleted(postId: $p) }', { p: post }, alice);
    const postDeleted = await live.subscribe(b, 'subscription($id: Int) { postDeleted(id: $id) }', { id: post }, alice);
    for (const name of ['postUpdated', 'commentUpdated', 'commentDeleted', 'postDeleted'] as const) await waitForSubscribers(b.app, name, 1);

    await request(a.app.server).patch(`/posts/${other}`).set(bearer(alice)).send({ title: 'x' }).expect(200);
    const updated = await request(a.app.server).patch(`/posts/${post}`).set(bearer(alice)).send({ title: 'crossed' }).expect(200);
    const c1 = (await request(a.app.server).post(`/posts/${post}/comments`).set(bearer(bob)).send({ body: 'c1' }).expect(201)).body.id;
    const c2 = (await request(a.app.server).post(`/posts/${post}/comments`).set(bearer(bob)).send({ body: 'c2' }).expect(201)).body.id;
    await request(a.app.server).patch(`/comments/${c1}`).set(bearer(bob)).send({ body: 'c1 changed' }).expect(200);
    await request(a.app.server).delete(`/posts/${other}`).set(bearer(alice)).expect(204);
    await request(a.app.server).delete(`/posts/${post}`).set(bearer(alice)).expect(204);
    await request(a.app.server).delete(`/posts/${post}`).set(bearer(alice)).expect(204);

    expect(await postUpdated.received(1)).toEqual([{ id: post, title: 'crossed', updatedAt: updated.body.updatedAt }]);
    expect(await commentUpdated.received(1)).toEqual([{ id: c1, body: 'c1 changed' }]);
    expect((await commentDeleted.received(2)).sort((x, y) => x - y)).toEqual([c1, c2]);
    expect(await postDeleted.received(1)).toEqual([post]);
    await sleep(SETTLE_MS);
    expect([postUpdated, commentUpdated, commentDeleted, postDeleted].map((sub) => sub.results.length)).toEqual([1, 1, 2, 1]);
  });
});

describeScaleOut(titled('subscriptions scale-out: a Redis outage'), () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let redis: Redis;
  let a: Instance;
  let b: Instance;
  let alice: string;
  const prefix = uniquePrefix('outage');
  const live = liveClients();

  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 6379));
    database = await createTestDatabase('postgres');
    // Rate limits on, so that their Redis counters are exercised (and must fail open) too.
    [a, b] = await startInstances(database, {
      REDIS_URL: proxy.rewrite(TEST_REDIS_URL!),
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_MAX: '10000',
      RATE_LIMIT_AUTH_MAX: '1000',
    });
    redis = new Redis(TEST_REDIS_URL!, { lazyConnect: true });
    await redis.connect();
    alice = await tokenFor(a.app, ALICE);
  });
  afterEach(async () => {
    proxy?.restore();
    await live.cleanUp(a, b);
  });
  afterAll(async () => {
    proxy?.restore();
    await a?.app.close();
    await b?.app.close();
    await proxy?.close();
    redis?.disconnect();
    await database?.drop();
  });

  const createOnA = async (title: string): Promise<number> =>
    (await request(a.app.server).post('/posts').set(bearer(alice)).send({ title, body: 'b' }).expect(201)).body.id;

  it('cut: both instances keep answering REST and GraphQL, /health is 200 with redis down, and no event is lost: they come from the database', async () => {
    expect(b.app.config.redisUrl).toContain(`:${proxy.port}`);
    const onB = await live.subscribe(b, 'subscription { postCreated { id title author { name } } }');
    await waitForSubscribers(b.app, 'postCreated', 1);
    const before = await createOnA('before the outage');
    expect(await onB.received(1)).toEqual([{ id: before, title: 'before the outage', author: { name: 'Alice Author' } }]);

    proxy.cut();
    await until('Redis to be reported down on both', async () => {
      const states = await Promise.all([a, b].map(async ({ app }) => (await request(app.server).get('/health')).body.checks?.redis?.status));
      return states.every((state) => state === 'down');
    });

    for (const [index, { app }] of [a, b].entries()) {
      const health = await request(app.server).get('/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(health.body.checks).toMatchObject({ database: { status: 'up' }, redis: { status: 'down' } });

      // Reads, sign-in, writes (whose events still reach B: they travel through the database), over REST and GraphQL.
      await request(app.server).get('/posts').expect(200);
      await request(app.server).get(`/posts/${before}`).expect(200);
      const token = (await request(app.server).post('/tokens').send(ALICE).expect(201)).body.accessToken as string;
      const post = (await request(app.server).post('/posts').set(bearer(token)).send({ title: `during the outage ${index}`, body: 'b' }).expect(201)).body.id;
      await request(app.server).patch(`/posts/${post}`).set(bearer(token)).send({ title: 'changed during the outage' }).expect(200);
      await request(app.server).post(`/posts/${post}/comments`).set(bearer(token)).send({ body: 'outage comment' }).expect(201);
      await request(app.server).delete(`/posts/${post}`).set(bearer(token)).expect(204);
      const query = expectData(await graphql(app, `{ post(id: ${before}) { title author { name } } me { id } }`, undefined, { token }));
      expect(query).toEqual({ post: { title: 'before the outage', author: { name: 'Alice Author' } }, me: { id: ALICE_ID } });
      const mutation = expectData(await graphql(app, 'mutation { createPost(input: { title: "GraphQL during the outage", body: "b" }) { title } }', undefined, { token }));
      expect(mutation).toEqual({ createPost: { title: 'GraphQL during the outage' } });
      expectData(await graphql(app, 'mutation($e: String!, $p: String!) { createToken(input: { email: $e, password: $p }) { tokenType } }', { e: ALICE.email, p: ALICE.password }));
      // An automatically persisted query: the Redis cache misses, the request does not fail.
      const apq = '{ posts(first: 1) { totalCount } }';
      const extensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(apq).digest('hex') } };
      expectData(await graphql(app, apq, undefined, { extensions }));
    }

    // Every post created during the outage (REST and GraphQL, on A and on B) reached B's subscriber, once, in order.
    await until('the outage posts on B', () => onB.results.length === 5, 10_000);
    expect(onB.results.slice(1).map((result) => result.data?.postCreated?.title)).toEqual([
      'during the outage 0',
      'GraphQL during the outage',
      'during the outage 1',
      'GraphQL during the outage',
    ]);

    proxy.restore();
    for (const { app } of [a, b]) {
      await until('/health to report redis up', async () => {
        const health = await request(app.server).get('/health');
        return health.status === 200 && health.body.checks?.redis?.status === 'up';
      }, 20_000, 200);
    }

    const after = await createOnA('after the outage');
    await until('the post-outage event on B', () => onB.results.some((result) => result.data?.postCreated?.id === after), 10_000);
    expect(onB.results.at(-1)).toEqual({ data: { postCreated: { id: after, title: 'after the outage', author: { name: 'Alice Author' } } } });
    await sleep(SETTLE_MS);
    expect(onB.results.filter((result) => result.data?.postCreated?.id === after)).toHaveLength(1);
  });

  it('a subscription started during the outage receives at once, and still after Redis is back', async () => {
    proxy.cut();
    await until('Redis to be reported down on B', async () => (await request(b.app.server).get('/health')).body.checks?.redis?.status === 'down');
    const onB = await live.subscribe(b, 'subscription($a: Int) { commentCreated(postId: $a) { body } }', { a: 1 });
    await waitForSubscribers(b.app, 'commentCreated', 1);
    await request(a.app.server).post('/posts/1/comments').set(bearer(alice)).send({ body: 'heard during the outage' }).expect(201);
    expect(await onB.received(1)).toEqual([{ body: 'heard during the outage' }]);

    proxy.restore();
    await until('A to see Redis again', async () => (await request(a.app.server).get('/health')).body.checks?.redis?.status === 'up', 20_000, 200);
    await request(a.app.server).post('/posts/1/comments').set(bearer(alice)).send({ body: 'heard after the outage' }).expect(201);
    expect(await onB.received(2)).toEqual([{ body: 'heard during the outage' }, { body: 'heard after the outage' }]);
  });
});
