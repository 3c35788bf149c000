import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ALICE } from './support/auth.js';
import { sampleValue } from './support/graphql-client.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';

/**
 * Issue 7, observability, on the built server in production mode with LOG_LEVEL=info and its
 * real stdout: X-Request-Id honoured and echoed, one JSON log line per request, no secret in any
 * log line, and every /metrics series of CONTRACT §2 moving with the traffic.
 * (metrics.e2e-spec.ts covers the metric types and HTTP/GraphQL/SQL counting in process.)
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const unique = () => randomBytes(4).toString('hex');

describe('observability (the built server, NODE_ENV=production, LOG_LEVEL=info)', () => {
  let work: { dir: string; remove: () => void };
  let server: ServerProcess;

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-observability-');
    server = await startServer({ NODE_ENV: 'production', DATABASE_URL: `sqlite:${work.dir}/blog.sqlite` }, work.dir);
  });
  afterAll(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    killAllServers();
    work?.remove();
  });

  const call = async (method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; raw?: string } = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined || options.raw !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${server.url}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  };

  /** Waits until the server has logged a line for each of these request ids. */
  async function loggedLines(ids: string[]): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const lines = server.logLines().filter((line) => ids.includes(line.requestId as string));
      if (ids.every((id) => lines.some((line) => line.requestId === id)) || Date.now() > deadline) return lines;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  describe('X-Request-Id', () => {
    const requests: [string, string, Record<string, unknown> | undefined][] = [
      ['GET', '/posts/1', undefined],
      ['GET', '/no/such/route', undefined],
      ['GET', '/posts/%zz', undefined],
      ['POST', '/posts', { title: 'no token', body: 'x' }],
      ['POST', '/graphql', { query: '{ post(id: 1) { id } }' }],
      ['GET', '/health', undefined],
    ];

    it('a valid one (1-128 of A-Z a-z 0-9 . _ : -) is kept and echoed, on success and on errors', async () => {
      for (const [method, path, body] of requests) {
        for (const id of [`req-${unique()}`, `A.b_c:d-${unique()}`, `${'a'.repeat(120)}${unique()}`]) {
          const response = await call(method, path, { headers: { 'x-request-id': id }, body });
          expect(response.headers.get('x-request-id'), `${method} ${path} ${id}`).toBe(id);
        }
      }
    });

    it('an invalid one (too long, spaces, other characters, empty) is replaced by a fresh id, and echoed', async () => {
      const invalid = ['x'.repeat(129), 'x'.repeat(300), 'has space', 'tab\there', 'comma,separated', 'quote"d', 'semi;colon', '<script>', '../../etc', 'ünïcode'];
      const seen = new Set<string>();
      for (const [method, path, body] of requests) {
        for (const id of invalid) {
          const response = await call(method, path, { headers: { 'x-request-id': Buffer.from(id, 'utf8').toString('latin1') }, body });
          const echoed = response.headers.get('x-request-id');
          expect(echoed, `${method} ${path} ${JSON.stringify(id)}`).toMatch(UUID);
          expect(seen.has(echoed!), 'a fresh id each time').toBe(false);
          seen.add(echoed!);
        }
        const none = await call(method, path, { body });
        expect(none.headers.get('x-request-id')).toMatch(UUID);
        const empty = await call(method, path, { headers: { 'x-request-id': '' }, body });
        expect(empty.headers.get('x-request-id')).toMatch(UUID);
      }
    });

    it('the id in the log is the one echoed to the client', async () => {
      const response = await call('GET', '/posts/2', { headers: { 'x-request-id': 'has space' } });
      const id = response.headers.get('x-request-id')!;
      const [line] = await loggedLines([id]);
      expect(line).toMatchObject({ requestId: id, method: 'GET', route: '/posts/:id', status: 200 });
    });
  });

  describe('request log', () => {
    it('one JSON line per request, with requestId, method, route (the template) and status', async () => {
      const run = unique();
      const cases: [string, string, Record<string, unknown> | undefined, string | null, number][] = [
        ['GET', '/posts/1', undefined, '/posts/:id', 200],
        ['GET', '/posts/999999', undefined, '/posts/:id', 404],
        ['GET', '/posts/abc', undefined, '/posts/:id', 400],
        ['GET', '/posts?limit=2', undefined, '/posts', 200],
        ['GET', '/users/2/posts', undefined, '/users/:id/posts', 200],
        ['POST', '/posts', { title: 't', body: 'b' }, '/posts', 401],
        ['POST', '/graphql', { query: '{ posts { totalCount } }' }, '/graphql', 200],
        ['POST', '/graphql', { query: '{' }, '/graphql', 400],
        ['GET', '/no/such/route', undefined, null, 404],
        ['GET', '/posts/%zz', undefined, null, 400],
        ['GET', '/health', undefined, '/health', 200],
        ['DELETE', '/comments/1', undefined, '/comments/:id', 401],
      ];
      const ids = cases.map((_, index) => `log-${run}-${index}`);
      for (const [index, [method, path, body]] of cases.entries()) {
        await call(method, path, { headers: { 'x-request-id': ids[index] }, body });
      }
      const lines = await loggedLines(ids);
      for (const [index, [method, path, , route, status]] of cases.entries()) {
        const mine = lines.filter((line) => line.requestId === ids[index]);
        expect(mine, `${method} ${path}: ${JSON.stringify(mine)}`).toHaveLength(1);
        expect(mine[0], `${method} ${path}`).toMatchObject({ requestId: ids[index], method, route, status });
        expect(Object.keys(mine[0])).toEqual(expect.arrayContaining(['level', 'time', 'requestId', 'method', 'route', 'status', 'msg']));
      }
      // Every line the process wrote to stdout is JSON.
      const stdout = server.stdout().split('\n').filter((line) => line.trim() !== '');
      for (const line of stdout) expect(() => JSON.parse(line), line).not.toThrow();
    });

    it('a request refused by a hook or parser before any handler (405, 406, 413, 415, 400) is logged once, with the id it was answered with', async () => {
      const run = unique();
      const cases: [string, string, Record<string, string>, string | undefined, string | null, number][] = [
        ['PUT', '/posts/1', {}, undefined, null, 405],
        ['GET', '/posts/1', { accept: 'image/png' }, undefined, '/posts/:id', 406],
        ['POST', '/posts', { 'content-type': 'application/json' }, `{"title":"${'x'.repeat(1024 * 1024)}"}`, '/posts', 413],
        ['POST', '/posts', { 'content-type': 'text/plain' }, 'hello', '/posts', 415],
        ['GET', '/posts?cursor=%ED%B0%80', {}, undefined, '/posts', 400],
      ];
      const ids = cases.map((_, index) => `refused-${run}-${index}`);
      for (const [index, [method, path, headers, raw, , status]] of cases.entries()) {
        const response = await call(method, path, { headers: { ...headers, 'x-request-id': ids[index] }, raw });
        expect(response.status, `${method} ${path}: ${response.text}`).toBe(status);
        expect(response.headers.get('x-request-id')).toBe(ids[index]);
      }
      const lines = await loggedLines(ids);
      for (const [index, [method, , , , route, status]] of cases.entries()) {
        const mine = lines.filter((line) => line.requestId === ids[index]);
        expect(mine, `${method} ${status}: ${JSON.stringify(mine)}`).toHaveLength(1);
        expect(mine[0]).toMatchObject({ method, route, status });
      }
    });

    it('never holds an Authorization header, a token or a password, after sign-ins and authenticated writes', async () => {
      const password = `Secret-${unique()}-pw`;
      const newPassword = `Changed-${unique()}-pw`;
      const email = `observed.${unique()}@example.com`;
      const signUp = await call('POST', '/users', { body: { name: 'Observed', email, password } });
      expect(signUp.status).toBe(201);
      const userId = (JSON.parse(signUp.text) as { id: number }).id;
      const rest = await call('POST', '/tokens', { body: { email, password } });
      const token = (JSON.parse(rest.text) as { accessToken: string }).accessToken;
      const viaGraphQL = await call('POST', '/graphql', {
        body: { query: 'mutation($input: CreateTokenInput!) { createToken(input: $input) { accessToken } }', variables: { input: { email, password } } },
      });
      const graphqlToken = (JSON.parse(viaGraphQL.text) as { data: { createToken: { accessToken: string } } }).data.createToken.accessToken;
      const auth = { authorization: `Bearer ${token}` };
      expect((await call('POST', '/posts', { headers: auth, body: { title: 'Observed post', body: 'b' } })).status).toBe(201);
      expect((await call('POST', '/graphql', { headers: { authorization: `Bearer ${graphqlToken}` }, body: { query: 'mutation { createPost(input: { title: "t", body: "b" }) { id } }' } })).status).toBe(200);
      expect((await call('PATCH', `/users/${userId}`, { headers: auth, body: { password: newPassword, currentPassword: password } })).status).toBe(200);
      // Failures too: a wrong password, a forged token, a malformed body with a password in it.
      expect((await call('POST', '/tokens', { body: { email, password: `${password}-wrong` } })).status).toBe(401);
      expect((await call('GET', '/posts/1', { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
      expect((await call('POST', '/users', { raw: `{"name": "x", "email": "${email}", "password": "${password}"` })).status).toBe(400);
      expect((await call('POST', '/tokens', { body: { email, password: 12345678 } })).status).toBe(400);
      const alice = await call('POST', '/tokens', { body: ALICE });
      const aliceToken = (JSON.parse(alice.text) as { accessToken: string }).accessToken;
      // A preview link's token, read through REST (every format, and a forged one) and a GraphQL GET.
      const asAlice = { authorization: `Bearer ${aliceToken}` };
      const draft = await call('POST', '/posts', { headers: asAlice, body: { title: 'Observed draft', body: 'b', status: 'draft' } });
      const draftId = (JSON.parse(draft.text) as { id: number }).id;
      const link = await call('POST', `/posts/${draftId}/previews`, { headers: asAlice });
      expect(link.status, link.text).toBe(201);
      const previewToken = (JSON.parse(link.text) as { token: string }).token;
      expect(link.text).toContain(previewToken);
      for (const accept of ['application/json', 'text/html']) expect((await call('GET', `/posts/${draftId}?preview=${previewToken}`, { headers: { accept } })).status).toBe(200);
      expect((await call('GET', `/posts/${draftId}?preview=${previewToken}x`)).status).toBe(404);
      const previewQuery = `{ post(id: ${draftId}, preview: "${previewToken}") { id } }`;
      expect((await call('GET', `/graphql?query=${encodeURIComponent(previewQuery)}`, { headers: { accept: 'application/json' } })).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 300));
      const output = `${server.stdout()}\n${server.stderr()}`;
      for (const secret of [password, newPassword, `${password}-wrong`, ALICE.password, token, graphqlToken, aliceToken, token.split('.')[2], aliceToken.split('.')[2], previewToken, previewToken.split('.')[1]]) {
        expect(output.includes(secret), `the log holds a secret (${secret.slice(0, 12)}…)`).toBe(false);
      }
      expect(output).not.toMatch(/authorization/i);
      expect(output).not.toMatch(/Bearer\s/);
      expect(output).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
      expect(output).not.toMatch(/scrypt\$/);
    });
  });

  describe('GraphQL data in the log (CONTRACT §11)', () => {
    it('never holds the variables or extensions of a GET, nor a string literal or block string of any document, valid or not', async () => {
      const secret = (label: string) => `s3cr3t-${label}-${unique()}`;
      const secrets: string[] = [];
      const keep = (label: string) => {
        const value = secret(label);
        secrets.push(value);
        return value;
      };
      const q = encodeURIComponent;
      const document = `query Paged($after: String) { posts(after: $after) { totalCount } first: post(id: 1) { title @include(if: true) } } # ${keep('comment')}`;
      const literals = `{ a: posts(after: "${keep('string')}") { totalCount } b: posts(after: """${keep('block')}\n""") { totalCount } }`;
      const run = unique();
      const requests: [string, string, unknown][] = [
        ['GET', `/graphql?query=${q(document)}&variables=${q(JSON.stringify({ after: keep('variable') }))}&extensions=${q(JSON.stringify({ trace: keep('extension') }))}`, undefined],
        ['GET', `/graphql?query=${q(literals)}`, undefined],
        ['GET', `/graphql?query=${q(`{ posts(after: "${keep('unterminated')}`)}`, undefined],
        ['GET', `/graphql?query=${q(`{ posts(after: "${keep('unparsable')}" { totalCount }`)}`, undefined],
        ['GET', `/graphql/stream?query=${q(`subscription { postCreated(authorId: "${keep('sse')}") { id } }`)}&variables=${q(JSON.stringify({ x: keep('sse-variable') }))}`, undefined],
        ['POST', '/graphql', { query: `query($after: String) { posts(after: $after) { totalCount } x: posts(after: """${keep('post-block')}""") { totalCount } }`, variables: { after: keep('post-variable') } }],
      ];
      const ids = requests.map((_, index) => `graphql-log-${run}-${index}`);
      for (const [index, [method, path, body]] of requests.entries()) {
        const response = await call(method, path, { headers: { 'x-request-id': ids[index] }, body });
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
      }
      const lines = await loggedLines(ids);
      expect(lines.map((line) => line.requestId).sort()).toEqual([...ids].sort());
      const output = `${server.stdout()}\n${server.stderr()}`;
      for (const value of secrets) expect(output.includes(value), `the log holds ${value}`).toBe(false);
      // What is logged: the documents' shape, nothing the client typed as a value.
      const first = lines.find((line) => line.requestId === ids[0])!;
      const url = new URL(first.url as string, 'http://x');
      expect(url.searchParams.get('query')).toBe('query Paged($after:String){posts(after:$after){totalCount}first:post(id:1){title@include(if:true)}}');
      expect(first.url).toContain('&variables=[REDACTED]&extensions=[REDACTED]');
      const second = lines.find((line) => line.requestId === ids[1])!;
      expect(new URL(second.url as string, 'http://x').searchParams.get('query')).toBe('{a:posts(after:"[REDACTED]"){totalCount}b:posts(after:"[REDACTED]"){totalCount}}');
      expect(lines.find((line) => line.requestId === ids[2])!.url).toBe('/graphql?query=[REDACTED]');
    });
  });

  describe('/metrics', () => {
    it('has every series of CONTRACT §2 with its labels, and they move with the traffic (subscriptions included)', async () => {
      const before = (await call('GET', '/metrics')).text;
      expect(sampleValue(before, 'ws_connections')).toBe(0);

      // A live subscriber, an event for it, and some REST and GraphQL traffic.
      const client = createClient({ url: `${server.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
      const received: unknown[] = [];
      const subscribed = new Promise<void>((resolve, reject) => {
        const dispose = client.subscribe(
          { query: 'subscription { postCreated { id title } }' },
          { next: (value) => received.push(value), error: reject, complete: () => undefined },
        );
        client.on('connected', () => setTimeout(resolve, 200));
        void dispose;
      });
      try {
        await subscribed;
        const during = (await call('GET', '/metrics')).text;
        expect(sampleValue(during, 'ws_connections')).toBe(1);

        const token = (JSON.parse((await call('POST', '/tokens', { body: ALICE })).text) as { accessToken: string }).accessToken;
        expect((await call('POST', '/posts', { headers: { authorization: `Bearer ${token}` }, body: { title: 'Metered', body: 'b' } })).status).toBe(201);
        await call('POST', '/graphql', { body: { query: '{ post(id: 1) { id } }' } });
        await call('POST', '/graphql', { headers: { authorization: `Bearer ${token}` }, body: { query: 'mutation { createPost(input: { title: "m", body: "b" }) { id } }' } });
        await call('GET', '/posts/1');
        const deadline = Date.now() + 5000;
        while (received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
        expect(received).toHaveLength(2);
      } finally {
        await client.dispose();
      }

      let after = '';
      for (let attempt = 0; attempt < 40; attempt += 1) {
        after = (await call('GET', '/metrics')).text;
        if (sampleValue(after, 'ws_connections') === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const moved = (name: string, labels: Record<string, string> = {}) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
      expect(moved('http_requests_total', { method: 'GET', route: '/posts/:id', status: '200' })).toBeGreaterThanOrEqual(1);
      expect(moved('http_requests_total', { method: 'POST', route: '/posts', status: '201' })).toBe(1);
      expect(moved('http_request_duration_seconds_count', { method: 'POST', route: '/posts', status: '201' })).toBe(1);
      expect(moved('http_request_duration_seconds_bucket', { method: 'POST', route: '/posts', status: '201', le: '+Inf' })).toBe(1);
      expect(moved('graphql_operations_total', { type: 'query' })).toBeGreaterThanOrEqual(1);
      expect(moved('graphql_operations_total', { type: 'mutation' })).toBe(1);
      expect(moved('db_queries_total')).toBeGreaterThan(0);
      expect(moved('subscription_events_total', { event: 'postCreated' })).toBe(2);
      expect(sampleValue(after, 'ws_connections')).toBe(0);
      for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
        expect(after, name).toMatch(new RegExp(`^${name} `, 'm'));
      }
      // Labels stay bounded: route templates, never raw paths, ids or what a client typed.
      for (const match of after.matchAll(/route="([^"]*)"/g)) expect(match[1]).toMatch(/^(\/[\w:/-]*|unmatched)$/);
      expect(after).not.toMatch(/route="[^"]*\/\d+/);
      expect(after).not.toContain('%zz');
    });
  });
});
