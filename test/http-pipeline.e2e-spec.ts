import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { expectProblem } from './support/problems.js';
import { until } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The HTTP pipeline (src/api/http-pipeline.ts): the hooks Fastify runs on each route, in order,
 * and what that order means for a request: a refusal still carries what every answer carries, the
 * rate limit comes before any other refusal, and answers from the response cache are limited and
 * counted like the others.
 */

type Hooks = Record<string, string[]>;

/**
 * The hooks Fastify runs for each route ("GET /posts/:id"), from its own listing
 * (`printRoutes({ includeHooks: true })`): a tree of path segments, each route's line followed by
 * one line per hook kind with the functions' names in the order they run.
 */
function routeHooks(fastify: FastifyInstance): Map<string, Hooks> {
  const routes = new Map<string, Hooks>();
  const segments: string[] = [];
  let current: Hooks = {};
  for (const line of fastify.printRoutes({ commonPrefix: false, includeHooks: true }).split('\n')) {
    const hook = /^[│ ]*• \((\w+)\) (\[.*\])$/.exec(line);
    if (hook) {
      current[hook[1]] = (JSON.parse(hook[2]) as string[]).map((name) => name.replace(/\(\)$/, ''));
      continue;
    }
    const route = /^([│├└─ ]*)(\S.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!route) continue;
    const depth = route[1].length / 4;
    segments.length = depth;
    segments[depth] = route[2];
    current = {};
    for (const method of route[3].split(', ')) routes.set(`${method} ${segments.join('')}`, current);
  }
  return routes;
}

/** Nest's FastifyAdapter adds its own onRequest hooks when it is built, before the pipeline's: 503 while closing, CORS, middleware… */
const NEST_ON_REQUEST = [...Array<string>(6).fill('anonymous'), 'runMiddie'];

const PIPELINE: Hooks = {
  // The last is @fastify/multipart's (loaded at ready, after the pipeline's own): it watches for a premature close.
  onRequest: [...NEST_ON_REQUEST, 'echoRequestId', 'sendSecurityHeaders', 'rateLimit', 'refuseMalformedQuery', 'refuseHostileHeaders', 'negotiate', 'anonymous'],
  preParsing: ['refuseUnrouted', 'refuseMisplacedUploads'],
  preHandler: ['answerRepresentationFromCache', 'answerGraphQLFromCache', 'answerPlannedDocument', 'keepRequestSource'],
  preSerialization: ['renderRepresentation'],
  onSend: ['keepGraphQLAnswer', 'sendPageHeaders'],
  // Nest's adapter's own, @fastify/multipart's, then the metrics.
  onResponse: ['anonymous', 'anonymous', 'recordHttpMetrics'],
};

const ORIGIN = 'https://app.example.com';
let addressCounter = 0;
/** A client address of its own, so each test has the whole rate limit to itself. */
const uniqueAddress = () => `198.18.${randomBytes(1)[0]}.${(addressCounter += 1) % 256}`;

describeEachDatabase('the HTTP pipeline', (kind) => {
  let app: TestApp;
  const LIMIT = 3;

  beforeAll(async () => {
    app = await startTestApp(kind, {
      env: { RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_S: '60', TRUST_PROXY: 'true', CORS_ORIGINS: ORIGIN },
    });
  });
  afterAll(() => app?.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });

  /** Waits until http_requests_total for this series reaches `count` (it is counted once the answer is sent). */
  async function expectCounted(method: string, route: string, status: number, count: number, label = `${method} ${route} ${status}`): Promise<void> {
    await until(`${label} counted ${count} times`, async () => (await requestsCounted(method, route, status)) === count);
    expect(await requestsCounted(method, route, status), label).toBe(count);
  }

  /** http_requests_total for one method, route template and status. */
  async function requestsCounted(method: string, route: string, status: number): Promise<number> {
    const metric = await app.app.get(MetricsService).httpRequests.get();
    return metric.values.find((value) => value.labels.method === method && value.labels.route === route && value.labels.status === String(status))?.value ?? 0;
  }

  it('Fastify runs the same hooks, in the pipeline\'s order, on every route: controllers, Apollo, SSE, metrics, GraphiQL, docs, preflights', () => {
    const routes = routeHooks(app.app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
    for (const route of [
      'GET /posts/:id',
      'PATCH /posts/:id',
      'POST /posts',
      'GET /health',
      'GET /graphql',
      'POST /graphql',
      'GET /graphql/stream',
      'POST /graphql/stream',
      'GET /metrics',
      'GET /graphql/ide/:file',
      'GET /docs-json',
      'GET /favicon.ico',
      'OPTIONS *',
    ]) {
      expect(routes.get(route), route).toEqual(PIPELINE);
    }
    // HEAD is GET's route with Fastify's own onSend added last (it drops the body).
    expect(routes.get('HEAD /posts/:id')).toEqual({ ...PIPELINE, onSend: [...PIPELINE.onSend, 'headRouteOnSendHandler'] });
  });

  describe('a client over the rate limit', () => {
    async function exhaust(address: string): Promise<void> {
      for (let i = 0; i < LIMIT; i += 1) await request(app.server).get('/health').set(from(address)).expect(200);
    }

    it('gets 429 before anything else could refuse its request: a malformed query, an unacceptable Accept, an unserved method, a body over the limit', async () => {
      const address = uniqueAddress();
      await exhaust(address);
      const refusals = [
        request(app.server).get('/posts?cursor=%ED%B0%80'),
        request(app.server).get('/posts/1').set('accept', 'image/png'),
        request(app.server).put('/posts/1').send({ title: 'x' }),
        request(app.server).post('/posts').set('content-type', 'application/json').send(`{"title":"${'x'.repeat(2 * 1024 * 1024)}"}`),
        request(app.server).get('/no/such/route'),
      ];
      for (const refusal of refusals) expectProblem(await refusal.set(from(address)), 429, 'RATE_LIMITED');
    });

    it('still gets the request id, the security headers and CORS on its 429, and is counted', async () => {
      const address = uniqueAddress();
      await exhaust(address);
      const before = await requestsCounted('GET', '/posts/:id', 429);
      const refused = await request(app.server).get('/posts/1').set(from(address)).set('origin', ORIGIN).set('x-request-id', 'limited-1');
      expectProblem(refused, 429, 'RATE_LIMITED');
      expect(refused.headers['x-request-id']).toBe('limited-1');
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
      expect(refused.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(refused.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      await expectCounted('GET', '/posts/:id', 429, before + 1);
    });
  });

  it('an answer from the response cache passes the rate limit first, and is counted like any other', async () => {
    const address = uniqueAddress();
    const before = await requestsCounted('GET', '/posts/:id', 200);
    const first = await request(app.server).get('/posts/2').set(from(address)).expect(200);
    expect(first.headers['cache-status']).toBe('blog; fwd=miss');
    for (let i = 1; i < LIMIT; i += 1) {
      const hit = await request(app.server).get('/posts/2').set(from(address)).expect(200);
      expect(hit.headers['cache-status']).toBe('blog; hit');
      expect(hit.headers['x-request-id']).toBeDefined();
      expect(hit.headers['x-content-type-options']).toBe('nosniff');
    }
    await expectCounted('GET', '/posts/:id', 200, before + LIMIT);
    const limited = await request(app.server).get('/posts/2').set(from(address));
    expectProblem(limited, 429, 'RATE_LIMITED');
    expect(limited.headers['cache-status']).toBeUndefined();
  });

  it('the same for GraphQL: a kept answer passes the rate limit and counts as a request and an operation', async () => {
    const address = uniqueAddress();
    const query = { query: '{ post(id: 3) { id title } }' };
    const requestsBefore = await requestsCounted('POST', '/graphql', 200);
    const operations = async () => (await app.app.get(MetricsService).graphqlOperations.get()).values.find((value) => value.labels.type === 'query')?.value ?? 0;
    const operationsBefore = await operations();
    await request(app.server).post('/graphql').set(from(address)).send(query).expect(200);
    for (let i = 1; i < LIMIT; i += 1) {
      const hit = await request(app.server).post('/graphql').set(from(address)).send(query).expect(200);
      expect(hit.headers['cache-status']).toBe('blog; hit');
    }
    await expectCounted('POST', '/graphql', 200, requestsBefore + LIMIT);
    expect(await operations()).toBe(operationsBefore + LIMIT);
    const limited = await request(app.server).post('/graphql').set(from(address)).send(query).expect(429);
    expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('a refusal before the router, the body parser or the handler carries the request id and is counted', async () => {
    const cases: [string, () => request.Test, string, number, string][] = [
      ['405', () => request(app.server).put('/posts/1').send({}), 'unmatched', 405, 'PUT'],
      ['404', () => request(app.server).get('/no/such/route'), 'unmatched', 404, 'GET'],
      ['406', () => request(app.server).get('/posts/1').set('accept', 'image/png'), '/posts/:id', 406, 'GET'],
      ['400 (query)', () => request(app.server).get('/posts?cursor=%zz'), '/posts', 400, 'GET'],
      ['415', () => request(app.server).post('/posts').set('content-type', 'text/plain').send('hello'), '/posts', 415, 'POST'],
    ];
    for (const [label, send, route, status, method] of cases) {
      const before = await requestsCounted(method, route, status);
      const id = `refused-${randomBytes(4).toString('hex')}`;
      const response = await send().set(from(uniqueAddress())).set('x-request-id', id);
      expect(response.status, `${label}: ${response.text}`).toBe(status);
      expect(response.headers['x-request-id'], label).toBe(id);
      expect(response.headers['x-content-type-options'], label).toBe('nosniff');
      await expectCounted(method, route, status, before + 1, label);
    }
  });

  it('/favicon.ico is a real icon (ICO of 16×16 and 32×32 PNGs), cacheable and revalidated by its ETag; HEAD too; never a 404 problem', async () => {
    const binary = (response: request.Response, done: (error: Error | null, body: Buffer) => void) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    };
    const icon = await request(app.server).get('/favicon.ico').set(from(uniqueAddress())).buffer(true).parse(binary);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/x-icon');
    expect(icon.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(icon.headers['x-content-type-options']).toBe('nosniff');
    const bytes = icon.body as Buffer;
    expect(Number(icon.headers['content-length'])).toBe(bytes.length);
    // ICONDIR: reserved 0, type 1 (icon), two images; each entry's width, size and offset point at a PNG.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 2]);
    const sizes = [0, 1].map((index) => {
      const entry = 6 + index * 16;
      const [width, length, offset] = [bytes[entry], bytes.readUInt32LE(entry + 8), bytes.readUInt32LE(entry + 12)];
      const png = bytes.subarray(offset, offset + length);
      expect(png.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, width]);
      return width;
    });
    expect(sizes).toEqual([16, 32]);

    const etag = icon.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const revalidated = await request(app.server).get('/favicon.ico').set(from(uniqueAddress())).set('if-none-match', etag);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(etag);
    const head = await request(app.server).head('/favicon.ico').set(from(uniqueAddress()));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('image/x-icon');
    expect(head.headers['content-length']).toBe(String(bytes.length));
    expect(head.text ?? '').toBe('');
  });

  it('a body over the limit is 413 in the format Accept asks for, with the request id', async () => {
    const big = `{"title":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const json = await request(app.server).post('/posts').set(from(uniqueAddress())).set('content-type', 'application/json').set('x-request-id', 'big-json').send(big);
    expectProblem(json, 413);
    expect(json.headers['x-request-id']).toBe('big-json');
    const xml = await request(app.server)
      .post('/posts')
      .set(from(uniqueAddress()))
      .set('content-type', 'application/json')
      .set('accept', 'application/xml')
      .set('x-request-id', 'big-xml')
      .send(big);
    expect(xml.status).toBe(413);
    expect(xml.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
    expect(xml.text).toContain('<status>413</status>');
    expect(xml.headers['x-request-id']).toBe('big-xml');
  });
});

describe('the HTTP pipeline: the steps that settings turn off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RATE_LIMIT_MAX: '0', METRICS_ENABLED: 'false', NODE_ENV: 'production' } });
  });
  afterAll(() => app?.close());

  it('no rate limit, no metrics and no GraphiQL assets: their hooks and routes are not registered at all', async () => {
    const routes = routeHooks(app.app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
    expect(routes.get('GET /posts/:id')).toEqual({
      ...PIPELINE,
      onRequest: PIPELINE.onRequest.filter((name) => name !== 'rateLimit'),
      onResponse: PIPELINE.onResponse.filter((name) => name !== 'recordHttpMetrics'),
    });
    expect(routes.has('GET /metrics')).toBe(false);
    expect(routes.has('GET /graphql/ide/:file')).toBe(false);
    expect(routes.has('GET /graphql/stream')).toBe(true);
  });
});
