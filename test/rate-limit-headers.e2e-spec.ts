import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { REDIS } from '../src/redis/redis.module.js';
import { TEST_REDIS_URL } from './support/databases.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §10 "Rate-limit headers": draft-ietf-httpapi-ratelimit-headers, structured fields.
 * `RateLimit-Policy: "requests";q=5;w=60` and `RateLimit: "requests";r=4;t=59` on every answer
 * a limit counts; a GraphQL answer adds a "cost" item.
 */

const WINDOW_S = 60;
const uniqueAddress = () => {
  const [a, b] = randomBytes(2);
  return `198.18.${a}.${b}`;
};

type Parameters = Record<string, number | string | boolean>;

/** A small RFC 8941 List parser: items that are strings or tokens, with integer/string/token parameters. */
function parseList(value: string | undefined): Map<string, Parameters> {
  const items = new Map<string, Parameters>();
  if (value === undefined) return items;
  for (const member of value.split(',')) {
    const [bare, ...parameters] = member.trim().split(';');
    const name = /^"(.*)"$/.exec(bare)?.[1];
    expect(name, `an item is a string: ${member}`).toBeDefined();
    const parsed: Parameters = {};
    for (const parameter of parameters) {
      const match = /^([a-z*][a-z0-9_\-.*]*)(?:=(-?\d+|"[^"]*"|[A-Za-z*][\w:/!#$%&'*+\-.^`|~]*))?$/.exec(parameter.trim());
      expect(match, `a parameter: ${parameter}`).not.toBeNull();
      const raw = match![2];
      parsed[match![1]] = raw === undefined ? true : /^-?\d+$/.test(raw) ? Number(raw) : raw.replace(/^"|"$/g, '');
    }
    items.set(name!, parsed);
  }
  return items;
}

const policyOf = (response: Response) => parseList(response.headers['ratelimit-policy'] as string | undefined);
const limitOf = (response: Response) => parseList(response.headers['ratelimit'] as string | undefined);

/** posts(first: 4) { nodes { id } }: 1 + 4 × 2. */
/** The connection 1 + 4 × (post 1 + author 1); scalars cost nothing. */
const QUERY = '{ posts(first: 4) { nodes { id author { name } } } }';
const QUERY_COST = 9;

describeEachDatabase('RateLimit-Policy and RateLimit headers', (kind) => {
  describe('RATE_LIMIT_MAX=5, RATE_LIMIT_COST_MAX=100 per 60 s', () => {
    let app: TestApp;
    beforeAll(async () => {
      // On PostgreSQL with TEST_REDIS_URL, counted in Redis (SQLite counts in the process).
      const redisEnv: Record<string, string> = kind === 'postgres' && TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {};
      app = await startTestApp(kind, {
        env: { ...redisEnv, TRUST_PROXY: 'true', RATE_LIMIT_MAX: '5', RATE_LIMIT_COST_MAX: '100', RATE_LIMIT_WINDOW_S: String(WINDOW_S), RESPONSE_CACHE: 'off', CORS_ORIGINS: 'https://app.example' },
      });
      const redis = app.app.get<Redis | null>(REDIS, { strict: false });
      if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    });
    afterAll(() => app?.close());

    it('REST: r goes down by one per request, t stays within the window, the 429 says r=0 and Retry-After agrees with t', async () => {
      const from = { 'X-Forwarded-For': uniqueAddress() };
      let lastT = WINDOW_S;
      for (let i = 1; i <= 5; i += 1) {
        const response = await request(app.server).get(i % 2 === 0 ? '/posts' : '/no-such-route').set(from);
        expect([200, 404]).toContain(response.status);
        expect([...policyOf(response)]).toEqual([['requests', { q: 5, w: WINDOW_S }]]);
        const item = limitOf(response).get('requests')!;
        expect([...limitOf(response).keys()]).toEqual(['requests']);
        expect(item.r).toBe(5 - i);
        expect(item.t).toBeGreaterThanOrEqual(1);
        expect(item.t).toBeLessThanOrEqual(lastT);
        lastT = item.t as number;
      }
      const refused = await request(app.server).get('/posts').set(from);
      expect(refused.status).toBe(429);
      expect([...policyOf(refused)]).toEqual([['requests', { q: 5, w: WINDOW_S }]]);
      const item = limitOf(refused).get('requests')!;
      expect(item.r).toBe(0);
      expect(item.t).toBeLessThanOrEqual(lastT);
      expect(refused.headers['retry-after']).toBe(String(item.t));
    });

    it('GraphQL: a "cost" item after the "requests" one, its r down by each operation\'s cost', async () => {
      const from = { 'X-Forwarded-For': uniqueAddress() };
      for (let i = 1; i <= 5; i += 1) {
        const response = await request(app.server).post('/graphql').set(from).send({ query: QUERY }).expect(200);
        expect(response.body.errors).toBeUndefined();
        expect([...policyOf(response)]).toEqual([
          ['requests', { q: 5, w: WINDOW_S }],
          ['cost', { q: 100, w: WINDOW_S }],
        ]);
        const items = limitOf(response);
        expect([...items.keys()]).toEqual(['requests', 'cost']);
        expect(items.get('requests')!.r).toBe(5 - i);
        expect(items.get('cost')!.r).toBe(100 - i * QUERY_COST);
        for (const { t } of items.values()) {
          expect(t).toBeGreaterThanOrEqual(1);
          expect(t).toBeLessThanOrEqual(WINDOW_S);
        }
      }
      // The request limit refuses first: answered before GraphQL, with the requests item at r=0.
      const refused = await request(app.server).post('/graphql').set(from).set('accept', 'application/graphql-response+json').send({ query: QUERY });
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      const item = limitOf(refused).get('requests')!;
      expect(item.r).toBe(0);
      expect(refused.headers['retry-after']).toBe(String(item.t));
    });

    it('GraphQL: past the cost budget, 429 with the cost item at r=0 and Retry-After agreeing with its t', async () => {
      const from = { 'X-Forwarded-For': uniqueAddress() };
      // 1 + 40 × 2 = 81 of 100, then over.
      const big = '{ posts(first: 40) { nodes { id author { name } } } }';
      const first = await request(app.server).post('/graphql').set(from).send({ query: big }).expect(200);
      expect(limitOf(first).get('cost')!.r).toBe(100 - 81);
      const refused = await request(app.server).post('/graphql').set(from).send({ query: big });
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      const items = limitOf(refused);
      expect(items.get('requests')!.r).toBe(3);
      expect(items.get('cost')!.r).toBe(0);
      expect(refused.headers['retry-after']).toBe(String(items.get('cost')!.t));
    });

    it('are declared in the OpenAPI document, on every response', async () => {
      const document = (await request(app.server).get('/docs-json').set('X-Forwarded-For', uniqueAddress()).expect(200)).body;
      for (const status of ['200', '404', '429']) {
        expect(Object.keys(document.paths['/posts/{id}'].get.responses[status].headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
      }
    });

    it('are exposed to browsers (CORS)', async () => {
      const response = await request(app.server).get('/posts').set('origin', 'https://app.example').set('X-Forwarded-For', uniqueAddress()).expect(200);
      const exposed = String(response.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['ratelimit-policy', 'ratelimit', 'retry-after']));
    });
  });

  describe('a limit turned off has no item', () => {
    let noRequests: TestApp;
    let noCost: TestApp;
    beforeAll(async () => {
      [noRequests, noCost] = await Promise.all([
        startTestApp(kind, { env: { RATE_LIMIT_MAX: '0', RATE_LIMIT_COST_MAX: '100', RESPONSE_CACHE: 'off' } }),
        startTestApp(kind, { env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_COST_MAX: '0', RESPONSE_CACHE: 'off' } }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([noRequests?.close(), noCost?.close()]);
    });

    it('RATE_LIMIT_MAX=0: REST answers carry none, GraphQL only the cost; RATE_LIMIT_COST_MAX=0: GraphQL only the requests', async () => {
      const rest = await request(noRequests.server).get('/posts').expect(200);
      expect(rest.headers['ratelimit']).toBeUndefined();
      expect(rest.headers['ratelimit-policy']).toBeUndefined();
      const costOnly = await request(noRequests.server).post('/graphql').send({ query: QUERY }).expect(200);
      expect([...limitOf(costOnly).keys()]).toEqual(['cost']);
      expect([...policyOf(costOnly).keys()]).toEqual(['cost']);
      const requestsOnly = await request(noCost.server).post('/graphql').send({ query: QUERY }).expect(200);
      expect([...limitOf(requestsOnly).keys()]).toEqual(['requests']);
      expect([...policyOf(requestsOnly).keys()]).toEqual(['requests']);
    });
  });
});
