import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS } from '../src/redis/redis.module.js';
import { TEST_REDIS_URL } from './support/databases.js';
import { expectData, graphql, metricValue } from './support/graphql-client.js';
import { rawStream } from './support/sse.js';
import { type ListeningApp, LiveSubscription, listen, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §10 "Cost": every operation has a cost by the @cost/@listSize convention (README,
 * "Cost and limits"); GRAPHQL_MAX_COST refuses a costlier one before it runs, on every transport;
 * RATE_LIMIT_COST_MAX is each address's budget per window.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };

const WINDOW_S = 60;
const uniqueAddress = () => {
  const [a, b] = randomBytes(2);
  return `198.19.${a}.${b}`;
};

async function overWs(client: WsClient, query: string, variables?: Record<string, unknown>): Promise<Result> {
  const operation = new LiveSubscription(client.client, query, variables);
  await until('an answer over the socket', () => operation.results.length > 0 || operation.error !== undefined);
  if (operation.results.length > 0) return operation.results[0] as Result;
  if (Array.isArray(operation.error)) return { errors: operation.error };
  throw new Error(`The socket closed: ${JSON.stringify(operation.error)}`);
}

async function overSse(urls: ListeningApp, body: Record<string, unknown>): Promise<{ status: number; result: Result }> {
  const stream = await rawStream(urls.http, body);
  try {
    if (stream.text !== undefined) return { status: stream.response.status, result: JSON.parse(stream.text) as Result };
    await until('an event', () => stream.events.some((event) => event.event === 'next'));
    return { status: stream.response.status, result: stream.events.find((event) => event.event === 'next')!.data as Result };
  } finally {
    stream.close();
  }
}

/** posts(first: n, search:) { nodes { id author { name } } }: the connection 1 + search 10 + n × (post 1 + author 1). */
const searchCost = (n: number) => 1 + 10 + n * 2;
const search = (n: number) => `{ posts(first: ${n}, search: "lorem") { nodes { id author { name } } } }`;
/** posts(first: n) { nodes { id author { name } } }: 1 + n × 2. */
const list = (n: number) => `{ posts(first: ${n}) { nodes { id author { name } } } }`;

describeEachDatabase('GraphQL cost', (kind) => {
  describe('GRAPHQL_MAX_COST=100', () => {
    let app: TestApp;
    let urls: ListeningApp;
    let client: WsClient;
    beforeAll(async () => {
      app = await startTestApp(kind, { env: { GRAPHQL_MAX_COST: '100' } });
      urls = await listen(app);
      client = wsClient(urls.ws);
      await client.connected;
    });
    afterAll(async () => {
      await client?.dispose();
      await app?.close();
    });

    const expectOverCost = (result: Result) => {
      expect(result.data).toBeUndefined();
      expect(result.errors).toHaveLength(1);
      expect(result.errors![0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', cost: searchCost(50), maxCost: 100 });
    };

    it('refuses an operation over it with COST_LIMIT_EXCEEDED and its cost, over POST, GET, WebSocket and SSE, and runs no SQL', async () => {
      // A cold document first: the statements of the first request of its kind (none expected) are counted too.
      for (const send of [
        async () => {
          const post = await graphql(app, search(50));
          expect(post.status).toBe(400);
          return post.body as Result;
        },
        async () => {
          const get = await request(app.server).get('/graphql').query({ query: search(50) });
          expect(get.status).toBe(400);
          return JSON.parse(get.text) as Result;
        },
        () => overWs(client, search(50)),
        async () => {
          const sse = await overSse(urls, { query: search(50) });
          expect(sse.status).toBe(400);
          return sse.result;
        },
      ]) {
        const before = await metricValue(app, 'db_queries_total');
        expectOverCost(await send());
        expect(await metricValue(app, 'db_queries_total')).toBe(before);
      }
    });

    it('admits what fits, and the same document with a smaller `first` variable', async () => {
      expectData(await graphql(app, search(5)));
      const query = 'query($n: Int) { posts(first: $n, search: "lorem") { nodes { id author { name } } } }';
      expectData(await graphql(app, query, { n: 5 }));
      const refused = await graphql(app, query, { n: 50 });
      expect(refused.status).toBe(400);
      expect(refused.body.errors![0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', cost: searchCost(50) });
      expectData(await graphql(app, query, { n: 5 }));
      // Without search the same list is cheaper: 1 + 45 × 2 = 91.
      expectData(await graphql(app, list(45)));
      expect((await overWs(client, list(45))).errors).toBeUndefined();
    });

    it('is the one budget: nested lists are COST_LIMIT_EXCEEDED too (the complexity formula is retired, §18)', async () => {
      const result = await graphql(app, '{ posts(first: 100) { nodes { comments(first: 100) { id } } } }');
      expect(result.status).toBe(400);
      expect(result.body.errors![0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', cost: 1 + 100 * (1 + 100 * 1) });
    });

    it('observes every admitted operation in the graphql_operation_cost histogram, every transport', async () => {
      const count = () => metricValue(app, 'graphql_operation_cost_count', { type: 'query' });
      const sum = () => metricValue(app, 'graphql_operation_cost_sum', { type: 'query' });
      const [countBefore, sumBefore] = [await count(), await sum()];
      expectData(await graphql(app, list(3)));
      expect((await overWs(client, list(4))).errors).toBeUndefined();
      expect(await count()).toBe(countBefore + 2);
      expect(await sum()).toBe(sumBefore + (1 + 3 * 2) + (1 + 4 * 2));
      const mutations = await metricValue(app, 'graphql_operation_cost_count', { type: 'mutation' });
      // Refused operations are not observed.
      await graphql(app, search(50));
      expect(await count()).toBe(countBefore + 2);
      expect(await metricValue(app, 'graphql_operation_cost_count', { type: 'mutation' })).toBe(mutations);
      const text = (await request(app.server).get('/metrics').expect(200)).text;
      expect(text).toContain('# TYPE graphql_operation_cost histogram');
      expect(text).toMatch(/graphql_operation_cost_bucket\{le="5000",type="query"\} \d+/);
    });
  });

  describe('RATE_LIMIT_COST_MAX=30 per address per window', () => {
    let app: TestApp;
    let urls: ListeningApp;
    beforeAll(async () => {
      // Answers from the response cache run nothing and cost nothing: off, so that every request runs.
      app = await startTestApp(kind, { env: { TRUST_PROXY: 'true', RATE_LIMIT_COST_MAX: '30', RATE_LIMIT_WINDOW_S: String(WINDOW_S), RESPONSE_CACHE: 'off' } });
      urls = await listen(app);
    });
    afterAll(() => app?.close());

    it('admits operations until their costs spend the budget, then 429 RATE_LIMITED with Retry-After; another address goes on', async () => {
      const address = uniqueAddress();
      const from = { 'X-Forwarded-For': address };
      // 9 + 9 + 9 = 27 of 30 ...
      for (let i = 0; i < 3; i += 1) expectData(await graphql(app, list(4), undefined, { headers: from }));
      // ... 36 is over.
      const refused = await graphql(app, list(4), undefined, { headers: from });
      expect(refused.status).toBe(429);
      expect(refused.body.errors![0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(refused.response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.response.headers['retry-after'])).toBeLessThanOrEqual(WINDOW_S);
      // Even the cheapest operation is refused now; REST is not a GraphQL cost.
      expect((await graphql(app, '{ __typename }', undefined, { headers: from })).status).toBe(429);
      await request(app.server).get('/posts').set(from).expect(200);
      expectData(await graphql(app, list(4), undefined, { headers: { 'X-Forwarded-For': uniqueAddress() } }));
    });

    it('over SSE the refusal is the operation\'s error', async () => {
      const address = uniqueAddress();
      const body = { query: list(14) };
      // 29 of 30, then over.
      const first = await rawStream(urls.http, body, { 'X-Forwarded-For': address });
      first.close();
      expect(first.response.status).toBe(200);
      const refused = await rawStream(urls.http, body, { 'X-Forwarded-For': address });
      expect(refused.response.status).toBe(429);
      expect(JSON.parse(refused.text!).errors[0].extensions.code).toBe('RATE_LIMITED');
    });
  });

  if (kind === 'sqlite' && TEST_REDIS_URL) {
    describe('two instances share one budget through Redis', () => {
      let first: TestApp;
      let second: TestApp;
      beforeAll(async () => {
        const env = { REDIS_URL: TEST_REDIS_URL!, TRUST_PROXY: 'true', RATE_LIMIT_COST_MAX: '30', RATE_LIMIT_WINDOW_S: String(WINDOW_S), RESPONSE_CACHE: 'off' };
        [first, second] = await Promise.all([startTestApp(kind, { env }), startTestApp(kind, { env })]);
        for (const app of [first, second]) {
          const redis = app.app.get<Redis | null>(REDIS, { strict: false });
          if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
        }
      });
      afterAll(async () => {
        await Promise.all([first?.close(), second?.close()]);
      });

      it('costs spent on one instance count on the other', async () => {
        const from = { 'X-Forwarded-For': uniqueAddress() };
        expectData(await graphql(first, list(4), undefined, { headers: from }));
        expectData(await graphql(second, list(4), undefined, { headers: from }));
        expectData(await graphql(first, list(4), undefined, { headers: from }));
        expect((await graphql(second, list(4), undefined, { headers: from })).status).toBe(429);
        expect((await graphql(first, list(4), undefined, { headers: from })).status).toBe(429);
      });
    });
  }
});
