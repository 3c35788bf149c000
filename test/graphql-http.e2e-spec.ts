import { createHash, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { serverAudits } from 'graphql-http';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/app-config.js';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { PostFinder } from '../src/posts/post-finder.service.js';
import { ALICE, tokenFor } from './support/auth.js';
import { TEST_REDIS_URL } from './support/databases.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/** GraphQL over HTTP: the graphql-http audit, GET and POST, CSRF, persisted queries, introspection, the IDE. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

/** GET /graphql with the search parameters, as a non-browser client (which passes CSRF prevention) sends it. */
function get(app: TestApp, params: Record<string, unknown>, headers: Record<string, string> = { 'apollo-require-preflight': 'true' }) {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) query[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return request(app.server).get('/graphql').query(query).set(headers);
}

describeEachDatabase('GraphQL over HTTP', (kind) => {
  let app: TestApp;
  let url: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => app?.close());

  describe('the graphql-http server audit', () => {
    const audits = serverAudits({ url: () => url, fetchFn: fetch });
    const must = audits.filter((audit) => audit.name.startsWith('MUST'));

    it('has MUST items to check', () => {
      expect(must.length).toBeGreaterThanOrEqual(10);
    });

    it.each(must.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
      const result = await audit.fn();
      expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
    });
  });

  describe('POST and GET', () => {
    it('answers a query over GET from a client that passes CSRF prevention', async () => {
      const response = await get(app, { query: 'query($id: Int!) { post(id: $id) { id } }', variables: { id: 2 } }).expect(200);
      expect(response.body).toEqual({ data: { post: { id: 2 } } });
      const json = await get(app, { query: '{ post(id: 2) { id } }' }, { 'content-type': 'application/json' }).expect(200);
      expect(json.body.data).toEqual({ post: { id: 2 } });
    });

    it('refuses a mutation over GET: 405 with Allow: POST', async () => {
      const token = await tokenFor(app, ALICE);
      const response = await get(app, { query: 'mutation { createPost(input: { title: "via GET", body: "b" }) { id } }' }, {
        'apollo-require-preflight': 'true',
        authorization: `Bearer ${token}`,
      });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions.code).toEqual(expect.any(String));
      const posts = expectData(await graphql(app, '{ posts(first: 1) { nodes { title } } }'));
      expect(posts.posts.nodes[0].title).not.toBe('via GET');
    });

    it('answers a GET query with no Content-Type and no preflight header (no credential is ever a cookie)', async () => {
      const response = await get(app, { query: '{ post(id: 2) { id } }' }, {});
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { post: { id: 2 } } });
      // A form post is not even parsed: only JSON bodies are.
      const form = await request(app.server).post('/graphql').set('content-type', 'application/x-www-form-urlencoded').send('query={__typename}');
      expect(form.status).toBe(415);
    });

    it('answers application/graphql-response+json when asked for it', async () => {
      const response = await request(app.server)
        .post('/graphql')
        .set('accept', 'application/graphql-response+json')
        .send({ query: '{ __typename }' })
        .expect(200);
      expect(response.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    });

    it('refuses batched requests and empty ones with a code', async () => {
      const batch = await request(app.server).post('/graphql').send([{ query: '{ __typename }' }, { query: '{ __typename }' }]);
      expect(batch.status).toBe(400);
      expect(batch.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      const empty = await graphql(app, undefined);
      expect(empty.status).toBe(400);
      expectError(empty, 'BAD_REQUEST');
    });
  });

  describe('automatic persisted queries', () => {
    it('asks for an unknown hash, registers the document, then runs it by hash alone (POST and GET)', async () => {
      const query = `{ post(id: 4) { id title } } # ${randomBytes(4).toString('hex')}`;
      const hash = sha256(query);
      const unknown = await graphql(app, undefined, undefined, { extensions: persisted(hash) });
      expectError(unknown, 'PERSISTED_QUERY_NOT_FOUND');
      const registered = await graphql(app, query, undefined, { extensions: persisted(hash) });
      const data = expectData(registered);
      expect(data.post.id).toBe(4);
      expect(expectData(await graphql(app, undefined, undefined, { extensions: persisted(hash) }))).toEqual(data);
      const viaGet = await get(app, { extensions: persisted(hash) }).expect(200);
      expect(viaGet.body.data).toEqual(data);
    });

    it('refuses a hash that is not the hash of the document sent with it', async () => {
      const result = await graphql(app, '{ __typename }', undefined, { extensions: persisted(sha256('{ something else }')) });
      expect(result.status).toBe(400);
      expect(result.body.data).toBeUndefined();
      expect(result.body.errors![0].extensions.code).toEqual(expect.any(String));
    });
  });
});

describe('GraphQL persisted queries', () => {
  const manifestPath = join(tmpdir(), `persisted-${process.pid}-${randomBytes(4).toString('hex')}.json`);
  const POST_TITLE = 'query PostTitle($id: Int!) { post(id: $id) { id title } }';
  const ME = 'query Me { me { id } }';
  let only: TestApp;

  beforeAll(async () => {
    writeFileSync(
      manifestPath,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [
          { id: sha256(POST_TITLE), name: 'PostTitle', type: 'query', body: POST_TITLE },
          { id: sha256(ME), name: 'Me', type: 'query', body: ME },
        ],
      }),
    );
    only = await startTestApp('sqlite', { env: { GRAPHQL_PERSISTED_QUERIES: 'only', GRAPHQL_PERSISTED_QUERIES_FILE: manifestPath } });
  });
  afterAll(async () => {
    await only?.close();
    rmSync(manifestPath, { force: true });
  });

  describe('GRAPHQL_PERSISTED_QUERIES=only', () => {
    it('runs a listed document by its manifest id alone, with variables', async () => {
      const result = await graphql(only, undefined, { id: 3 }, { extensions: persisted(sha256(POST_TITLE)) });
      expect(expectData(result)).toEqual({ post: { id: 3, title: 'Keyset paging' } });
      const token = await tokenFor(only, ALICE);
      expect(expectData(await graphql(only, undefined, undefined, { token, extensions: persisted(sha256(ME)) }))).toEqual({ me: { id: 2 } });
    });

    it('runs a listed document sent with its id and text, or as its text alone', async () => {
      expectData(await graphql(only, POST_TITLE, { id: 1 }, { extensions: persisted(sha256(POST_TITLE)) }));
      expectData(await graphql(only, POST_TITLE, { id: 1 }));
    });

    it('runs a listed document by id over GET', async () => {
      const response = await get(only, { extensions: persisted(sha256(POST_TITLE)), variables: { id: 2 } }).expect(200);
      expect(response.body).toEqual({ data: { post: { id: 2, title: 'Content negotiation' } } });
    });

    it('refuses anything else with PERSISTED_QUERY_REQUIRED (400), before parsing or validating it', async () => {
      const cases: [string | undefined, Record<string, unknown> | undefined][] = [
        ['{ posts { nodes { id } } }', undefined],
        ['{ posts { nodes { id } } }', persisted(sha256('{ posts { nodes { id } } }'))],
        [undefined, persisted(sha256('{ not listed }'))],
        ['this is not even GraphQL', undefined],
        ['{ nope }', undefined],
        [getIntrospectionQuery(), undefined],
        ['mutation { deletePost(id: 1) }', undefined],
      ];
      for (const [query, extensions] of cases) {
        const result = await graphql(only, query, undefined, { extensions });
        expect(result.status).toBe(400);
        expect(result.body.data).toBeUndefined();
        expectError(result, 'PERSISTED_QUERY_REQUIRED');
      }
      expect(expectData(await graphql(only, undefined, { id: 1 }, { extensions: persisted(sha256(POST_TITLE)) })).post.id).toBe(1);
    });

    it('refuses a listed id sent with some other text', async () => {
      const result = await graphql(only, '{ posts { nodes { id } } }', undefined, { extensions: persisted(sha256(POST_TITLE)) });
      expect(result.status).toBe(400);
      expect(result.body.data).toBeUndefined();
    });
  });

  describe('settings', () => {
    it('needs a manifest file for only-mode, and a valid one, or start-up stops naming the setting', async () => {
      expect(() => loadConfig({ GRAPHQL_PERSISTED_QUERIES: 'only' })).toThrow(ConfigError);
      expect(() => loadConfig({ GRAPHQL_PERSISTED_QUERIES: 'only' })).toThrow(/GRAPHQL_PERSISTED_QUERIES_FILE/);
      expect(() => loadConfig({ GRAPHQL_PERSISTED_QUERIES: 'sometimes' })).toThrow(/GRAPHQL_PERSISTED_QUERIES/);
      expect(() => loadConfig({ GRAPHQL_PERSISTED_QUERIES_FILE: '/no/such/manifest.json' })).toThrow(/GRAPHQL_PERSISTED_QUERIES_FILE/);
      const bad = join(tmpdir(), `bad-manifest-${process.pid}.json`);
      for (const content of ['not json', '{"format":"other","version":1,"operations":[]}', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'abc', body: '{ __typename }' }] })]) {
        writeFileSync(bad, content);
        await expect(startTestApp('sqlite', { env: { GRAPHQL_PERSISTED_QUERIES: 'only', GRAPHQL_PERSISTED_QUERIES_FILE: bad } })).rejects.toThrow(/GRAPHQL_PERSISTED_QUERIES_FILE/);
      }
      rmSync(bad, { force: true });
    });

    it('GRAPHQL_PERSISTED_QUERIES=off answers PERSISTED_QUERY_NOT_SUPPORTED', async () => {
      const off = await startTestApp('sqlite', { env: { GRAPHQL_PERSISTED_QUERIES: 'off' } });
      try {
        expectError(await graphql(off, undefined, undefined, { extensions: persisted(sha256('{ __typename }')) }), 'PERSISTED_QUERY_NOT_SUPPORTED');
        expectData(await graphql(off, '{ __typename }'));
      } finally {
        await off.close();
      }
    });
  });

  describe.skipIf(!TEST_REDIS_URL)('APQ shared through Redis (TEST_REDIS_URL)', () => {
    const prefix = `blog-test-${process.pid}-${randomBytes(3).toString('hex')}:`;
    let first: TestApp;
    let second: TestApp;
    let redis: Redis;

    beforeAll(async () => {
      const env = { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix };
      [first, second] = await Promise.all([startTestApp('sqlite', { env }), startTestApp('sqlite', { env })]);
      redis = new Redis(TEST_REDIS_URL!);
    });
    afterAll(async () => {
      const keys = await redis?.keys(`${prefix}*`);
      if (keys?.length) await redis.del(...keys);
      await redis?.quit();
      await first?.close();
      await second?.close();
    });

    it('a document registered on one instance runs by hash on another', async () => {
      const query = `{ post(id: 5) { title } } # ${randomBytes(4).toString('hex')}`;
      const hash = sha256(query);
      expectError(await graphql(second, undefined, undefined, { extensions: persisted(hash) }), 'PERSISTED_QUERY_NOT_FOUND');
      expectData(await graphql(first, query, undefined, { extensions: persisted(hash) }));
      // Stored without its comment: padding a document buys no storage.
      await vi.waitFor(async () => expect(await redis.get(`${prefix}apq:doc:${hash}`)).toBe('{post(id:5){title}}'));
      expect(expectData(await graphql(second, undefined, undefined, { extensions: persisted(hash) }))).toEqual({ post: { title: 'Running in production' } });
    });
  });
});

describe('GraphQL introspection, error masking and the IDE by environment', () => {
  describe('production', () => {
    let production: TestApp;
    beforeAll(async () => {
      production = await startTestApp('sqlite', { env: { NODE_ENV: 'production' } });
    });
    afterAll(() => production?.close());

    it('turns introspection off', async () => {
      for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Post") { name } }', getIntrospectionQuery()]) {
        const result = await graphql(production, query);
        expect(result.status).toBe(400);
        expect(result.body.errors!.every((error) => error.extensions.code === 'GRAPHQL_VALIDATION_FAILED')).toBe(true);
        expect(result.body.errors![0].message).toMatch(/introspection/i);
      }
      expectData(await graphql(production, '{ __typename post(id: 1) { __typename id } }'));
    });

    it('drops "Did you mean" hints, which would reveal the schema', async () => {
      const validation = await graphql(production, '{ post(id: 1) { titel } }');
      expectError(validation, 'GRAPHQL_VALIDATION_FAILED');
      expect(validation.body.errors![0].message).not.toMatch(/Did you mean/);
      const variables = await graphql(production, 'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', { input: { titel: 'x', body: 'y' } });
      expectError(variables, 'BAD_USER_INPUT');
      expect(variables.body.errors![0].message).not.toMatch(/Did you mean/);
    });

    it('masks internal errors', async () => {
      // The fault is the resolvers' read (a planned post page reads through its own statement).
      const planner = production.app.get(QueryPlanner);
      planner.enabled = false;
      onTestFinished(() => {
        planner.enabled = true;
      });
      const spy = vi.spyOn(production.app.get(PostFinder), 'findByIds').mockRejectedValueOnce(new Error('boom in the posts table'));
      const result = await graphql(production, '{ post(id: 1) { id } }');
      expect(expectError(result, 'INTERNAL_SERVER_ERROR', ['post']).message).toBe('Internal server error');
      expect(result.response.text).not.toContain('boom');
      spy.mockRestore();
    });

    it('serves no IDE: no HTML page, no assets', async () => {
      const page = await request(production.server).get('/graphql').set('accept', 'text/html');
      expect(page.headers['content-type']).not.toMatch(/text\/html/);
      await request(production.server).get('/graphql/ide/graphiql.min.js').expect(404);
    });

    it('GRAPHQL_INTROSPECTION=true turns introspection back on', async () => {
      const open = await startTestApp('sqlite', { env: { NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' } });
      try {
        const data = expectData(await graphql(open, getIntrospectionQuery()));
        expect(data.__schema.queryType.name).toBe('Query');
        const hint = await graphql(open, '{ post(id: 1) { titel } }');
        expect(hint.body.errors![0].message).toMatch(/Did you mean "title"\?/);
      } finally {
        await open.close();
      }
    });
  });

  describe('development', () => {
    let development: TestApp;
    beforeAll(async () => {
      development = await startTestApp('sqlite', { env: { NODE_ENV: 'development' } });
    });
    afterAll(() => development?.close());

    it('has introspection on', async () => {
      expect(expectData(await graphql(development, '{ __schema { queryType { name } } }')).__schema.queryType.name).toBe('Query');
    });

    it("shows an internal error's message, never its stack", async () => {
      // The fault is the resolvers' read (a planned post page reads through its own statement).
      const planner = development.app.get(QueryPlanner);
      planner.enabled = false;
      onTestFinished(() => {
        planner.enabled = true;
      });
      const spy = vi.spyOn(development.app.get(PostFinder), 'findByIds').mockRejectedValueOnce(new Error('boom in development'));
      const result = await graphql(development, '{ post(id: 1) { id } }');
      const error = expectError(result, 'INTERNAL_SERVER_ERROR', ['post']);
      expect(error.message).toBe('boom in development');
      expect(error.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
      spy.mockRestore();
    });

    it('serves GraphiQL to a browser, entirely from local assets', async () => {
      const page = await request(development.server).get('/graphql').set('accept', 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('id="graphiql"');
      expect(page.text).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
      expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
      const scripts = [...page.text.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((match) => match[1]);
      expect(scripts).toEqual([
        '/graphql/ide/graphiql.min.css',
        '/graphql/ide/react.production.min.js',
        '/graphql/ide/react-dom.production.min.js',
        '/graphql/ide/graphiql.min.js',
        '/graphql/ide/init.js',
      ]);
      expect(page.text).not.toMatch(/<script>(?!<)/);
      for (const path of scripts) {
        const asset = await request(development.server).get(path).expect(200);
        expect(asset.headers['content-type']).toMatch(path.endsWith('.css') ? /^text\/css/ : /^application\/javascript/);
        expect(asset.text.length).toBeGreaterThan(path.endsWith('init.js') ? 100 : 1000);
      }
      await request(development.server).get('/graphql/ide/nothing.js').expect(404);
    });
  });
});
