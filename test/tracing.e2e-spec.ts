import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from './support/auth.js';
import { createTestDatabase, type DatabaseKind, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from './support/otlp-receiver.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { rawStream } from './support/sse.js';
import { until, wsClient } from './support/subscriptions.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * CONTRACT §10 "Tracing", on the built server (a child process) exporting to an OTLP/HTTP
 * collector in this process: the incoming `traceparent` continued, the spans of a request (HTTP,
 * GraphQL operation, SQL statements, Redis) and their parents, no value a client sent in any
 * span, the live operations, the event relay and webhook attempts (their `traceparent` sent),
 * `traceId` in the log lines, both OTLP encodings, and no SDK at all when tracing is off.
 */

const SECRET = 'zq-secret-9981';
const RECORDER = resolve('test/support/module-recorder.mjs');
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface Run {
  server: ServerProcess;
  modulesFile: string;
}

async function start(env: Record<string, string>, dir: string): Promise<Run> {
  const modulesFile = join(dir, `modules-${hex(4)}.txt`);
  const server = await startServer({ NODE_OPTIONS: `--import=${RECORDER}`, RECORD_MODULES_TO: modulesFile, ...env }, dir);
  return { server, modulesFile };
}

const loadedModules = (run: Run) => (existsSync(run.modulesFile) ? readFileSync(run.modulesFile, 'utf8').split('\n') : []);

async function stop(run: Run | undefined): Promise<void> {
  if (!run) return;
  run.server.child.kill('SIGTERM');
  await run.server.exited;
}

async function graphql(url: string, body: object, headers: Record<string, string> = {}): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

async function tokenFor(url: string): Promise<string> {
  const response = await fetch(`${url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

const KINDS: DatabaseKind[] = TEST_DATABASE_URL && TEST_REDIS_URL ? ['sqlite', 'postgres'] : ['sqlite'];
if (KINDS.length === 1) describe.skip('tracing [postgres + redis] (skipped: TEST_DATABASE_URL and TEST_REDIS_URL are not both set)', () => undefined);

for (const kind of KINDS) {
  describe(`tracing on (OTLP/HTTP JSON) [${kind === 'postgres' ? 'postgres + redis' : 'sqlite'}]`, () => {
    let work: { dir: string; remove: () => void };
    let database: TestDatabase;
    let collector: OtlpReceiver;
    let hooks: Receiver;
    let run: Run;
    let token: string;

    beforeAll(async () => {
      requireBuild();
      work = tempWorkDir('blog-tracing-');
      database = await createTestDatabase(kind, { file: true });
      collector = await new OtlpReceiver().start();
      hooks = await new Receiver().start();
      run = await start(
        {
          DATABASE_URL: database.url,
          ...(kind === 'postgres' ? { REDIS_URL: TEST_REDIS_URL! } : {}),
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'blog-under-test',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          WEBHOOK_ALLOW_PRIVATE: 'true',
        },
        work.dir,
      );
      token = await tokenFor(run.server.url);
    });
    afterAll(async () => {
      await stop(run);
      killAllServers();
      await collector?.stop();
      await hooks?.stop();
      await database?.drop();
      work?.remove();
    });

    const inTrace = (traceId: string) => collector.spans.filter((span) => span.traceId === traceId);

    it('loads the SDK, names the service, and exports over OTLP/HTTP JSON to <endpoint>/v1/traces', async () => {
      await fetch(`${run.server.url}/posts`);
      await until('an export', () => collector.spans.length > 0);
      expect(loadedModules(run).some((url) => url.includes('/@opentelemetry/sdk-node/'))).toBe(true);
      expect(collector.exports.every((each) => each.path === '/v1/traces' && each.contentType.startsWith('application/json'))).toBe(true);
      expect(collector.resources.some((resource) => resource['service.name'] === 'blog-under-test')).toBe(true);
    });

    it('continues an incoming traceparent: HTTP server span (by route) → GraphQL operation (name, type, cost) → SQL statements without values', async () => {
      const traceId = hex(16);
      const parent = hex(8);
      const result = await graphql(
        run.server.url,
        {
          query: 'mutation WriteSecret($input: CreatePostInput!) { createPost(input: $input) { id title } }',
          variables: { input: { title: `A title ${SECRET}`, body: `A body ${SECRET}`, status: 'PUBLISHED' } },
          operationName: 'WriteSecret',
        },
        { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${parent}-01` },
      );
      expect(result.errors).toBeUndefined();

      const server = await until('the HTTP server span', () => inTrace(traceId).find((span) => span.kind === SPAN_KIND.server));
      expect(server.parentSpanId).toBe(parent);
      expect(server.name).toBe('POST /graphql');
      expect(server.attributes['http.route']).toBe('/graphql');
      expect(server.attributes['http.request.method']).toBe('POST');
      expect(server.attributes['http.response.status_code']).toBe(200);

      const operation = await until('the GraphQL operation span', () => inTrace(traceId).find((span) => span.attributes['graphql.operation.name'] === 'WriteSecret'));
      expect(operation.parentSpanId).toBe(server.spanId);
      expect(operation.attributes['graphql.operation.type']).toBe('mutation');
      expect(operation.attributes['graphql.operation.cost']).toEqual(expect.any(Number));
      expect(operation.attributes['graphql.operation.cost']).toBeGreaterThan(0);

      const statements = await until('SQL statement spans', () => {
        const found = inTrace(traceId).filter((span) => typeof (span.attributes['db.query.text'] ?? span.attributes['db.statement']) === 'string');
        return found.some((span) => /INSERT/i.test(String(span.attributes['db.query.text'] ?? span.attributes['db.statement']))) && found;
      });
      for (const statement of statements) {
        expect(statement.kind).toBe(SPAN_KIND.client);
        expect(collector.descendsFrom(statement, server.spanId)).toBe(true);
      }
      // What the resolvers send is the operation's: the INSERT is below its span, not only the request's.
      const writes = statements.filter((span) => /INSERT/i.test(String(span.attributes['db.query.text'] ?? span.attributes['db.statement'])));
      expect(writes.length).toBeGreaterThan(0);
      for (const write of writes) expect(collector.descendsFrom(write, operation.spanId)).toBe(true);
    });

    it('records no value a client sent: a search string in variables is in no span', async () => {
      const traceId = hex(16);
      const result = await graphql(
        run.server.url,
        { query: 'query FindSecret($search: String) { posts(search: $search, first: 5) { edges { node { id } } } }', variables: { search: SECRET } },
        { traceparent: `00-${traceId}-${hex(8)}-01` },
      );
      expect(result.errors).toBeUndefined();
      await until('SQL spans of the search', () => inTrace(traceId).some((span) => span.attributes['db.query.text'] ?? span.attributes['db.statement']));
      const leaking = collector.spans.filter((span) => JSON.stringify(span).includes(SECRET));
      expect(leaking).toEqual([]);
    });

    it('records a query string as the log writes it: url.query without passwords, tokens, keys or GraphQL variables (REST and GraphQL GET)', async () => {
      const key = `blog_${hex(12)}`;
      const urls = [
        `/posts?limit=5&password=${SECRET}&token=${SECRET}-t&api_key=${key}`,
        `/graphql?query=${encodeURIComponent('query Find($search: String) { posts(search: $search, first: 5) { edges { node { id } } } }')}&variables=${encodeURIComponent(JSON.stringify({ search: SECRET }))}`,
      ];
      for (const url of urls) {
        const traceId = hex(16);
        const response = await fetch(`${run.server.url}${url}`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01`, accept: 'application/json' } });
        // The REST one is refused (unknown parameters): what it sent is traced all the same.
        expect(response.status, url).toBe(url.startsWith('/posts') ? 400 : 200);
        const server = await until(`the server span of ${url}`, () => inTrace(traceId).find((span) => span.kind === SPAN_KIND.server));
        const query = String(server.attributes['url.query']);
        expect(query, url).not.toContain(SECRET);
        expect(query, url).not.toContain(key);
        expect(JSON.stringify(server), url).not.toContain(SECRET);
        // The same redaction as the request's log line: one function for both.
        const line = await until(`the log line of ${url}`, () => run.server.logLines().find((each) => each.msg === 'request' && each.traceId === traceId));
        expect(`${server.attributes['url.path']}?${query}`, url).toBe(line.url);
      }
    });

    it("sends webhook receivers a traceparent but never the caller's baggage", async () => {
      const created = await fetch(`${run.server.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ url: hooks.url(), types: ['POST_CREATED'] }),
      });
      expect(created.status).toBe(201);
      const written = await fetch(`${run.server.url}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, traceparent: `00-${hex(16)}-${hex(8)}-01`, baggage: `user.secret=${SECRET},session=${SECRET}-2` },
        body: JSON.stringify({ title: 'Baggage', body: 'Carried by the caller' }),
      });
      expect(written.status).toBe(201);
      const postId = ((await written.json()) as { id: number }).id;
      const receipt = await until('the delivery of the post', () => hooks.receipts.find((each) => (JSON.parse(each.body) as { data: { postId?: number } }).data.postId === postId), 20_000);
      expect(String(receipt.headers.traceparent ?? '')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      expect(receipt.headers.baggage).toBeUndefined();
      expect(JSON.stringify(receipt.headers)).not.toContain(SECRET);
    });

    it('writes traceId and spanId on the log lines of a traced request', async () => {
      const traceId = hex(16);
      const response = await fetch(`${run.server.url}/posts/1`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
      expect(response.status).toBe(200);
      const line = await until('the request line', () => run.server.logLines().find((each) => each.msg === 'request' && each.traceId === traceId));
      expect(line.spanId).toMatch(/^[0-9a-f]{16}$/);
      const server = await until('the server span', () => inTrace(traceId).find((span) => span.kind === SPAN_KIND.server));
      expect(line.spanId).toBe(server.spanId);
      expect(server.name).toBe('GET /posts/:id');
    });

    it('traces each WebSocket operation (name, type, cost)', async () => {
      const ws = wsClient(`${run.server.url.replace('http', 'ws')}/graphql`);
      try {
        await ws.connected;
        const subscribed = new Promise<void>((resolveNext, reject) => {
          ws.client.subscribe({ query: 'subscription WatchPosts { postCreated { id } }' }, { next: () => resolveNext(), error: reject, complete: () => undefined });
        });
        const span = await until('the subscription span', () => collector.spans.find((each) => each.attributes['graphql.operation.name'] === 'WatchPosts'));
        expect(span.attributes['graphql.transport']).toBe('ws');
        expect(span.attributes['graphql.operation.type']).toBe('subscription');
        expect(span.attributes['graphql.operation.cost']).toEqual(expect.any(Number));
        expect(span.kind).toBe(SPAN_KIND.server);
        const query = await new Promise<unknown>((resolveResult, reject) =>
          ws.client.subscribe({ query: 'query OverSocket { posts(first: 1) { totalCount } }' }, { next: resolveResult, error: reject, complete: () => undefined }),
        );
        expect(query).toHaveProperty('data');
        const overSocket = await until('the query span', () =>
          collector.spans.find((each) => each.attributes['graphql.operation.name'] === 'OverSocket' && each.attributes['graphql.transport'] === 'ws'),
        );
        // The span lasts until the query has run: its statements are below it.
        await until('a statement of the socket query', () => collector.spans.some((each) => each.kind === SPAN_KIND.client && collector.descendsFrom(each, overSocket.spanId)));
        // The subscription works with tracing on: a new post reaches it.
        await fetch(`${run.server.url}/posts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ title: 'For the socket', body: 'Hello' }),
        });
        await subscribed;
      } finally {
        await ws.dispose();
      }
    });

    it('traces each SSE operation, a child of its HTTP request', async () => {
      const traceId = hex(16);
      const stream = await rawStream(run.server.url, { query: 'query OverStream { posts(first: 1) { totalCount } }' }, { traceparent: `00-${traceId}-${hex(8)}-01` });
      await stream.ended;
      expect(stream.events.some((event) => event.event === 'next')).toBe(true);
      const operation = await until('the SSE operation span', () => inTrace(traceId).find((span) => span.attributes['graphql.operation.name'] === 'OverStream'));
      expect(operation.attributes['graphql.transport']).toBe('sse');
      expect(operation.attributes['graphql.operation.type']).toBe('query');
      const server = await until('the HTTP server span', () => inTrace(traceId).find((span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] !== undefined));
      expect(operation.parentSpanId).toBe(server.spanId);
      expect(operation.kind).toBe(SPAN_KIND.internal);
      await until('a statement of the stream query', () => inTrace(traceId).some((span) => span.kind === SPAN_KIND.client && collector.descendsFrom(span, operation.spanId)));
    });

    it('traces the event relay (a span per batch) and each webhook attempt, whose traceparent the receiver gets', async () => {
      const created = await fetch(`${run.server.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ url: hooks.url(), types: ['POST_CREATED'] }),
      });
      expect(created.status).toBe(201);
      const written = await fetch(`${run.server.url}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ title: 'For the webhook', body: 'Hello' }),
      });
      expect(written.status).toBe(201);
      const receipt = await until('a delivery', () => hooks.receipts[0]);
      const traceparent = String(receipt.headers.traceparent ?? '');
      const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(traceparent);
      expect(match, `traceparent: ${traceparent}`).not.toBeNull();
      const attempt = await until('the attempt span', () => collector.spans.find((span) => span.spanId === match![2]));
      expect(attempt.traceId).toBe(match![1]);
      expect(attempt.kind).toBe(SPAN_KIND.client);
      expect(attempt.name).toBe('webhook POST');
      expect(attempt.attributes['http.response.status_code']).toBe(204);
      expect(attempt.attributes['server.address']).toBe('127.0.0.1');

      const relay = await until('an event relay span', () => collector.spans.find((span) => span.name === 'event relay batch'));
      expect(relay.attributes['messaging.batch.message_count']).toBeGreaterThan(0);
    });

    const isStatement = (span: ReceivedSpan) => span.attributes['db.system.name'] === (kind === 'postgres' ? 'postgresql' : 'sqlite') && typeof span.attributes['db.query.text'] === 'string';

    it('names SQL spans `{db.operation.name} {db.collection.name}` (SELECT posts), with those attributes (OpenTelemetry database conventions)', async () => {
      const traceId = hex(16);
      const result = await graphql(
        run.server.url,
        // With a tag: a plain INSERT on both databases (a post without tags is one WITH chain on PostgreSQL, a `SELECT posts` by the main statement).
        { query: 'mutation Named($input: CreatePostInput!) { createPost(input: $input) { id } }', variables: { input: { title: 'Named spans', body: 'Hello', status: 'PUBLISHED', tags: ['named-spans'] } } },
        { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${hex(8)}-01` },
      );
      expect(result.errors).toBeUndefined();
      const id = (result.data!.createPost as { id: number }).id;
      const read = await fetch(`${run.server.url}/posts/${id}`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
      expect(read.status).toBe(200);
      const statements = await until('an INSERT into posts and a SELECT from posts', () => {
        const found = inTrace(traceId).filter(isStatement);
        return found.some((span) => span.name === 'INSERT posts') && found.some((span) => span.name === 'SELECT posts') && found;
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}: ${JSON.stringify(inTrace(traceId).map((span) => [span.name, span.attributes['db.system.name'], span.attributes['db.query.text']]))}`);
      });
      for (const span of statements) {
        const operation = span.attributes['db.operation.name'];
        const collection = span.attributes['db.collection.name'];
        expect(operation, span.name).toMatch(/^[A-Z]+$/);
        expect(span.name).toBe(collection === undefined ? operation : `${String(operation)} ${String(collection)}`);
        expect(span.kind).toBe(SPAN_KIND.client);
      }
      const insert = statements.find((span) => span.name === 'INSERT posts')!;
      expect(insert.attributes).toMatchObject({ 'db.operation.name': 'INSERT', 'db.collection.name': 'posts' });
      expect(String(insert.attributes['db.query.text'])).toMatch(/INSERT INTO "?posts"?/i);
      expect(statements.find((span) => span.name === 'SELECT posts')!.attributes).toMatchObject({ 'db.operation.name': 'SELECT', 'db.collection.name': 'posts' });
    });

    it("gives the relay's batch, the webhook feed and each attempt traces of their own, linked to the mutation whose event they carry; the mutation's trace ends with its request", async () => {
      const created = await fetch(`${run.server.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ url: hooks.url(), types: ['POST_CREATED'] }),
      });
      expect(created.status).toBe(201);
      const traceId = hex(16);
      const result = await graphql(
        run.server.url,
        { query: 'mutation Linked($input: CreatePostInput!) { createPost(input: $input) { id } }', variables: { input: { title: 'Linked spans', body: 'Hello', status: 'PUBLISHED' } }, operationName: 'Linked' },
        { authorization: `Bearer ${token}`, traceparent: `00-${traceId}-${hex(8)}-01` },
      );
      expect(result.errors).toBeUndefined();
      const postId = (result.data!.createPost as { id: number }).id;
      const mutation = await until('the mutation span', () => inTrace(traceId).find((span) => span.attributes['graphql.operation.name'] === 'Linked'));
      const server = await until('the HTTP server span', () => inTrace(traceId).find((span) => span.kind === SPAN_KIND.server));
      const linksToMutation = (span: ReceivedSpan) => span.links.some((link) => link.traceId === traceId && link.spanId === mutation.spanId);

      const receipt = await until('the delivery of the post', () => hooks.receipts.find((each) => (JSON.parse(each.body) as { data: { postId?: number } }).data.postId === postId), 20_000);
      const [, attemptTrace, attemptId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(receipt.headers.traceparent ?? '')) ?? [];
      const attempt = await until('the attempt span', () => collector.spans.find((span) => span.spanId === attemptId));
      const relay = await until('the relay batch of the event', () => collector.spans.find((span) => span.name === 'event relay batch' && linksToMutation(span)));
      const feed = await until('the webhook feed of the event', () => collector.spans.find((span) => span.name === 'webhook feed' && linksToMutation(span)));
      for (const background of [attempt, relay, feed]) {
        expect(background.parentSpanId, background.name).toBe('');
        expect(background.traceId, background.name).not.toBe(traceId);
        expect(linksToMutation(background), background.name).toBe(true);
      }
      expect(attempt.traceId).toBe(attemptTrace);
      // The feed's statements are its own trace's (the INSERT of the delivery below its span).
      await until("the feed's INSERT", () => collector.spans.some((span) => isStatement(span) && span.name === 'INSERT webhook_deliveries' && collector.descendsFrom(span, feed.spanId)));

      // Nothing of the background work is in the mutation's trace, and nothing in it starts after its request has ended.
      const mutationTrace = inTrace(traceId);
      const background = (span: ReceivedSpan) => /webhook|relay/.test(span.name) || /^webhook/.test(String(span.attributes['db.collection.name'] ?? '')) || span.name === 'SELECT events';
      expect(mutationTrace.filter(background).map((span) => span.name)).toEqual([]);
      for (const span of mutationTrace) expect(BigInt(span.startTimeUnixNano), span.name).toBeLessThanOrEqual(BigInt(server.endTimeUnixNano));
    });

    if (kind === 'postgres') {
      it('traces Redis calls with the command name only', async () => {
        // The response cache and rate limits live in Redis: a traced request makes calls.
        const traceId = hex(16);
        await fetch(`${run.server.url}/posts?search=${SECRET}`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
        const redis = await until('a Redis span', () => collector.spans.filter((span) => span.scope.includes('ioredis')).length > 0 && collector.spans.filter((span) => span.scope.includes('ioredis')));
        for (const span of redis) expect(String(span.attributes['db.statement'] ?? span.attributes['db.query.text'] ?? '')).toMatch(/^[a-z]*$/i);
        const statements = await until('PostgreSQL statement spans', () => collector.spans.filter((span) => span.scope.includes('instrumentation-pg')).length > 0 && collector.spans.filter((span) => span.scope.includes('instrumentation-pg')));
        expect(statements.length).toBeGreaterThan(0);
        expect(collector.spans.filter((span) => JSON.stringify(span).includes(SECRET))).toEqual([]);
      });
    }
  });
}

describe('tracing with the default encoding (http/protobuf)', () => {
  let work: { dir: string; remove: () => void };
  let collector: OtlpReceiver;
  let run: Run | undefined;

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-tracing-proto-');
    collector = await new OtlpReceiver().start();
    // A batch delay longer than the test: spans leave only when the SIGTERM shutdown flushes them.
    run = await start({ DATABASE_URL: `sqlite:${work.dir}/blog.sqlite`, OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`, OTEL_BSP_SCHEDULE_DELAY: '600000' }, work.dir);
  });
  afterAll(async () => {
    await stop(run);
    killAllServers();
    await collector?.stop();
    work?.remove();
  });

  it('POSTs application/x-protobuf to <endpoint>/v1/traces, flushed on SIGTERM', async () => {
    expect((await fetch(`${run!.server.url}/posts`)).status).toBe(200);
    expect(collector.exports).toEqual([]);
    run!.server.child.kill('SIGTERM');
    expect((await run!.server.exited).code).toBe(0);
    const sent = collector.exports[0];
    expect(sent).toBeDefined();
    expect(sent.path).toBe('/v1/traces');
    expect(sent.contentType).toBe('application/x-protobuf');
    expect(sent.bytes).toBeGreaterThan(0);
  });
});

describe('tracing with OTEL_TRACES_SAMPLER=parentbased_always_off', () => {
  let work: { dir: string; remove: () => void };
  let collector: OtlpReceiver;
  let run: Run | undefined;

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-tracing-sampler-');
    collector = await new OtlpReceiver().start();
    run = await start(
      {
        DATABASE_URL: `sqlite:${work.dir}/blog.sqlite`,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_always_off',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      work.dir,
    );
  });
  afterAll(async () => {
    await stop(run);
    killAllServers();
    await collector?.stop();
    work?.remove();
  });

  it('keeps only the traces a sampled traceparent asks for', async () => {
    expect((await fetch(`${run!.server.url}/posts`)).status).toBe(200);
    const traceId = hex(16);
    const parent = hex(8);
    expect((await fetch(`${run!.server.url}/posts`, { headers: { traceparent: `00-${traceId}-${parent}-01` } })).status).toBe(200);
    await until('the sampled request', () => collector.spans.find((span) => span.traceId === traceId && span.kind === SPAN_KIND.server));
    // The first request's span ended before the second's: had it been sampled, it would have been exported by now.
    expect(collector.spans.filter((span) => span.kind === SPAN_KIND.server).map((span) => span.parentSpanId)).toEqual([parent]);
  });
});

describe('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  let work: { dir: string; remove: () => void };
  let run: Run | undefined;

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-tracing-off-');
    for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
    run = await start({ DATABASE_URL: `sqlite:${work.dir}/blog.sqlite` }, work.dir);
  });
  afterAll(async () => {
    await stop(run);
    killAllServers();
    work?.remove();
  });

  it('never loads OpenTelemetry (neither the SDK nor its API), and logs no traceId', async () => {
    const response = await fetch(`${run!.server.url}/posts`, { headers: { traceparent: `00-${hex(16)}-${hex(8)}-01` } });
    expect(response.status).toBe(200);
    await until('the request line', () => run!.server.logLines().find((line) => line.msg === 'request'));
    const modules = loadedModules(run!);
    expect(modules.some((url) => url.includes('/dist/src/app.factory.js'))).toBe(true);
    expect(modules.filter((url) => /@opentelemetry\/|import-in-the-middle/.test(url))).toEqual([]);
    expect(run!.server.logLines().filter((line) => 'traceId' in line)).toEqual([]);
  });
});
