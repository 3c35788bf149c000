import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS } from '../src/redis/redis.module.js';
import { ADMIN, tokenFor } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { TEST_REDIS_URL, type DatabaseKind } from './support/databases.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

const WINDOW_S = 60;

let addressCounter = 0;
/**
 * A client address no other test (nor another run sharing the same Redis within a window) uses:
 * random, from the TEST-NET and benchmarking ranges.
 */
function uniqueAddress(): string {
  addressCounter += 1;
  const [a, b] = randomBytes(2);
  return `198.18.${a}.${(b + addressCounter) % 256}`;
}

const uniqueEmail = () => `limited.${randomBytes(6).toString('hex')}@example.com`;

function expectRateLimited(response: Response): void {
  expectProblem(response, 429, 'RATE_LIMITED');
  const retryAfter = response.headers['retry-after'] as string | undefined;
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW_S);
}

/** With REDIS_URL, waits until the app's Redis connection is up (the limiter fails open while it is down). */
async function redisReady(app: TestApp): Promise<void> {
  const redis = app.app.get<Redis | null>(REDIS, { strict: false });
  if (!redis || redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', () => resolve());
    setTimeout(() => reject(new Error(`Redis is not ready (${redis.status})`)), 10_000).unref();
  });
}

async function start(kind: DatabaseKind, env: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp(kind, { env: { TRUST_PROXY: 'true', RATE_LIMIT_WINDOW_S: String(WINDOW_S), ...env } });
  await redisReady(app);
  return app;
}

/** The rate-limit suite, counted in process memory or (with `REDIS_URL` in `storeEnv`) in Redis. */
function rateLimitSuite(kind: DatabaseKind, storeEnv: Record<string, string>): void {
  describe('RATE_LIMIT_MAX=3 per window, every route', () => {
    let app: TestApp;
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    beforeAll(async () => {
      app = await start(kind, { ...storeEnv, RATE_LIMIT_MAX: '3', RATE_LIMIT_AUTH_MAX: '0' });
    });
    afterAll(() => app?.close());

    it('answers the 4th request in the window with 429 problem+json and Retry-After', async () => {
      const address = uniqueAddress();
      for (let i = 0; i < 3; i += 1) await request(app.server).get('/posts').set(from(address)).expect(200);
      expectRateLimited(await request(app.server).get('/posts').set(from(address)));
      expectRateLimited(await request(app.server).get('/posts/1').set(from(address)));
      // Another client is not affected.
      await request(app.server).get('/posts').set(from(uniqueAddress())).expect(200);
    });

    it('counts every route and method together: reads, writes, errors, docs', async () => {
      const address = uniqueAddress();
      await request(app.server).get('/users/1').set(from(address)).expect(200);
      await request(app.server).post('/posts').set(from(address)).send({ title: 't', body: 'b' }).expect(401);
      await request(app.server).get('/no-such-route').set(from(address)).expect(404);
      for (const [method, path] of [
        ['get', '/posts/1/comments'],
        ['get', '/docs-json'],
        ['post', '/users'],
        ['post', '/tokens'],
        ['delete', '/posts/1'],
        ['get', '/health'],
      ] as const) {
        const response = await request(app.server)[method](path).set(from(address)).send(method === 'get' ? undefined : {});
        expect(response.status, `${method.toUpperCase()} ${path}`).toBe(429);
        expectRateLimited(response);
      }
    });

    it('a rate-limited write changes nothing', async () => {
      const address = uniqueAddress();
      const email = uniqueEmail();
      for (let i = 0; i < 3; i += 1) await request(app.server).get('/health').set(from(address));
      const refused = await request(app.server).post('/users').set(from(address)).send({ name: 'Limited', email, password: 'limited-password' });
      expectRateLimited(refused);
      const users = await request(app.server).get('/users?limit=100').set(from(uniqueAddress())).expect(200);
      expect(users.body.map((user: { email: string }) => user.email)).not.toContain(email);
    });
  });

  describe('RATE_LIMIT_TAGS_MAX=5 new tags per writer per hour, made by naming them on posts', () => {
    let app: TestApp;
    const http = () => request(app.server);
    beforeAll(async () => {
      // Its own key prefix: the counts are per user id, which every fresh database hands out again.
      app = await start(kind, { ...storeEnv, RATE_LIMIT_MAX: '0', RATE_LIMIT_TAGS_MAX: '5', REDIS_KEY_PREFIX: `tags-limit-${randomBytes(4).toString('hex')}:` });
    });
    afterAll(() => app?.close());

    async function writer(): Promise<string> {
      const email = uniqueEmail();
      await http().post('/users').send({ name: 'Tagger', email, password: 'a-good-password' }).expect(201);
      return (await http().post('/tokens').send({ email, password: 'a-good-password' }).expect(201)).body.accessToken as string;
    }
    const tagsNamed = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix} ${index}`);

    it('drafts count too; past the limit the post is 429 with Retry-After and nothing is written; existing tags cost nothing', async () => {
      const token = await writer();
      const prefix = `Spam ${randomBytes(3).toString('hex')}`;
      const post = (tags: string[], status = 'draft') => http().post('/posts').set('Authorization', `Bearer ${token}`).send({ title: 'Tagged', body: 'b', status, tags });
      expect((await post(tagsNamed(`${prefix} a`, 3))).status).toBe(201);
      expect((await post(tagsNamed(`${prefix} b`, 2))).status).toBe(201);
      // Tags that exist are matched, not made.
      expect((await post(tagsNamed(`${prefix} a`, 3), 'published')).status).toBe(201);
      const refused = await post([...tagsNamed(`${prefix} a`, 1), `${prefix} c 0`]);
      expectProblem(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
      const [made] = (await http().get(`/tags?slug=${encodeURIComponent(`${prefix} c 0`.toLowerCase().replace(/ /g, '-'))}`).set('Authorization', `Bearer ${token}`).expect(200)).body as unknown[];
      expect(made).toBeUndefined();
      // Another writer has an allowance of their own.
      const other = await writer();
      expect((await http().post('/posts').set('Authorization', `Bearer ${other}`).send({ title: 'Tagged', body: 'b', status: 'draft', tags: tagsNamed(`${prefix} d`, 5) })).status).toBe(201);
      // Admins and editors manage tags: not counted.
      const admin = await tokenFor(app, ADMIN);
      for (const round of ['e', 'f']) {
        expect((await http().post('/posts').set('Authorization', `Bearer ${admin}`).send({ title: 'Tagged', body: 'b', tags: tagsNamed(`${prefix} ${round}`, 5) })).status).toBe(201);
      }
    });
  });

  describe('RATE_LIMIT_AUTH_MAX=2 sign-in attempts (RATE_LIMIT_MAX=0: no general limit)', () => {
    let app: TestApp;
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    beforeAll(async () => {
      app = await start(kind, { ...storeEnv, RATE_LIMIT_MAX: '0', RATE_LIMIT_AUTH_MAX: '2' });
    });
    afterAll(() => app?.close());

    /** A fresh account, so that no other test or run has spent its attempts. */
    async function newAccount(): Promise<{ email: string; password: string }> {
      const account = { email: uniqueEmail(), password: 'limited-password' };
      await request(app.server).post('/users').set(from(uniqueAddress())).send({ name: 'Limited', ...account }).expect(201);
      return account;
    }

    it('the 3rd POST /tokens from one address is 429, even with the right password; other routes still answer', async () => {
      const address = uniqueAddress();
      const account = await newAccount();
      await request(app.server).post('/tokens').set(from(address)).send({ ...account, password: 'wrong-password' }).expect(401);
      await request(app.server).post('/tokens').set(from(address)).send({ email: uniqueEmail(), password: 'whatever-1' }).expect(401);
      const third = await request(app.server).post('/tokens').set(from(address)).send(account);
      expectRateLimited(third);
      expect(third.text).not.toContain('accessToken');

      await request(app.server).get('/posts').set(from(address)).expect(200);
      await request(app.server).get('/users/1').set(from(address)).expect(200);
      // Another address signing in to another account is not affected.
      const other = await request(app.server).post('/tokens').set(from(uniqueAddress())).send(await newAccount());
      expect(other.status).toBe(201);
      expect(other.body.tokenType).toBe('Bearer');
    });

    it('failures are counted per (e-mail, address) pair, whatever the letter case: others at that address and that e-mail elsewhere go on', async () => {
      const account = await newAccount();
      const address = uniqueAddress();
      await request(app.server).post('/tokens').set(from(address)).send({ ...account, password: 'wrong-password' }).expect(401);
      await request(app.server).post('/tokens').set(from(address)).send({ ...account, email: account.email.toUpperCase(), password: 'wrong-again' }).expect(401);
      // Spent for this pair (the address's own attempt allowance too) ...
      expectRateLimited(await request(app.server).post('/tokens').set(from(address)).send(account));
      // ... not for the account from another address.
      await request(app.server).post('/tokens').set(from(uniqueAddress())).send(account).expect(201);
    });

    it('RATE_LIMIT_MAX=0 means no general limit', async () => {
      const address = uniqueAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 25; i += 1) statuses.push((await request(app.server).get('/posts/1').set(from(address))).status);
      expect(statuses).toEqual(Array(25).fill(200));
    });
  });

  describe('wrong currentPassword guesses are failed sign-ins (RATE_LIMIT_AUTH_MAX=3, RATE_LIMIT_ACCOUNT_MAX=5)', () => {
    let app: TestApp;
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    beforeAll(async () => {
      app = await start(kind, { ...storeEnv, RATE_LIMIT_MAX: '0', RATE_LIMIT_AUTH_MAX: '3', RATE_LIMIT_ACCOUNT_MAX: '5' });
    });
    afterAll(() => app?.close());

    /** A fresh account and a token for it, each from an address of its own. */
    async function newAccount() {
      const account = { email: uniqueEmail(), password: 'limited-password' };
      const { id } = (await request(app.server).post('/users').set(from(uniqueAddress())).send({ name: 'Guessed', ...account }).expect(201)).body;
      const token = (await request(app.server).post('/tokens').set(from(uniqueAddress())).send(account).expect(201)).body.accessToken as string;
      return { ...account, id: id as number, auth: { authorization: `Bearer ${token}` } };
    }
    const changePassword = (account: Awaited<ReturnType<typeof newAccount>>, address: string, currentPassword: string) =>
      request(app.server).patch(`/users/${account.id}`).set(account.auth).set(from(address)).send({ password: 'another-password', currentPassword });

    it('on PATCH /users/{id}, GraphQL updateUser and API key creation alike, in the sign-in counters: then 429, even for the right password', async () => {
      const account = await newAccount();
      const address = uniqueAddress();
      expectProblem(await changePassword(account, address, 'guess-1'), 403, 'FORBIDDEN');
      const update = await request(app.server)
        .post('/graphql')
        .set(account.auth)
        .set(from(address))
        .send({ query: 'mutation($id: Int!) { updateUser(id: $id, input: { password: "another-password", currentPassword: "guess-2" }) { id } }', variables: { id: account.id } });
      expect(update.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const key = await request(app.server).post(`/users/${account.id}/api-keys`).set(account.auth).set(from(address)).send({ name: 'k', scopes: ['read'], currentPassword: 'guess-3' });
      expectProblem(key, 403, 'FORBIDDEN');
      // Three failures of this (e-mail, address): the right password is refused from there now ...
      expectRateLimited(await changePassword(account, address, account.password));
      expectRateLimited(await request(app.server).post('/tokens').set(from(address)).send({ email: account.email, password: account.password }));
      const limited = await request(app.server)
        .post('/graphql')
        .set(account.auth)
        .set(from(address))
        .send({ query: 'mutation($id: Int!) { updateUser(id: $id, input: { password: "another-password", currentPassword: "limited-password" }) { id } }', variables: { id: account.id } });
      expect(limited.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
      // ... but not from another address.
      await changePassword(account, uniqueAddress(), account.password).expect(200);
    });

    it('count against the e-mail from every address: after RATE_LIMIT_ACCOUNT_MAX failures, 429 everywhere', async () => {
      const account = await newAccount();
      for (let guess = 1; guess <= 5; guess += 1) expectProblem(await changePassword(account, uniqueAddress(), `guess-${guess}`), 403, 'FORBIDDEN');
      // Counted per hour: Retry-After says when the oldest failure leaves it.
      for (const response of [
        await changePassword(account, uniqueAddress(), account.password),
        await request(app.server).post('/tokens').set(from(uniqueAddress())).send({ email: account.email, password: account.password }),
      ]) {
        expectProblem(response, 429, 'RATE_LIMITED');
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(WINDOW_S);
        expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(3600);
      }
    });
  });
}

describeEachDatabase('rate limits (in memory)', (kind) => {
  rateLimitSuite(kind, {});

  describe('without TRUST_PROXY, X-Forwarded-For does not pick the client address', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { env: { TRUST_PROXY: 'false', RATE_LIMIT_MAX: '3' } });
    });
    afterAll(() => app?.close());

    it('every request from the socket counts against one address, whatever it claims', async () => {
      for (let i = 0; i < 3; i += 1) await request(app.server).get('/posts').set('X-Forwarded-For', uniqueAddress()).expect(200);
      expectRateLimited(await request(app.server).get('/posts').set('X-Forwarded-For', uniqueAddress()));
    });
  });
});

const REDIS_URL = TEST_REDIS_URL;
if (REDIS_URL) {
  describe('rate limits (Redis)', () => {
    rateLimitSuite('sqlite', { REDIS_URL });

    describe('two instances share one count', () => {
      let first: TestApp;
      let second: TestApp;
      beforeAll(async () => {
        const env = { REDIS_URL, RATE_LIMIT_MAX: '3', RATE_LIMIT_AUTH_MAX: '0' };
        [first, second] = await Promise.all([start('sqlite', env), start('sqlite', env)]);
      });
      afterAll(async () => {
        await Promise.all([first?.close(), second?.close()]);
      });

      it('3 requests spread over both instances use up the limit on each', async () => {
        const address = uniqueAddress();
        await request(first.server).get('/posts').set('X-Forwarded-For', address).expect(200);
        await request(second.server).get('/posts').set('X-Forwarded-For', address).expect(200);
        await request(first.server).get('/posts').set('X-Forwarded-For', address).expect(200);
        expectRateLimited(await request(second.server).get('/posts').set('X-Forwarded-For', address));
        expectRateLimited(await request(first.server).get('/posts').set('X-Forwarded-For', address));
      });
    });
  });
} else {
  describe.skip('rate limits (Redis) (skipped: TEST_REDIS_URL is not set)', () => {
    it('runs the rate-limit suite with REDIS_URL', () => undefined);
  });
}
