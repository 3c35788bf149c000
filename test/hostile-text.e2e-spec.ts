import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createPost } from './support/resources.js';
import { type DataSnapshot, snapshotData } from './support/snapshot.js';
import { rawStream } from './support/sse.js';
import { LiveSubscription, listen, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 36: text that no column, renderer or header can hold — NUL and the other C0 controls, lone
 * surrogates, overlong values — is refused at the boundary of every door (400 BAD_USER_INPUT naming
 * the field, or a GraphQL error with that code), as are null where a list is required, dates
 * outside years 0001-9999, and malformed federation representations. Never a 500.
 * test/fuzz.e2e-spec.ts walks every parameter and argument with such values.
 */
describeEachDatabase('hostile text at the boundary', (kind) => {
  let app: TestApp;
  let alice: string;
  const http = () => request(app.server);
  const fieldsOf = (response: request.Response) => ((response.body as { errors?: { field: string }[] }).errors ?? []).map((error) => error.field);

  beforeAll(async () => {
    app = await startTestApp(kind);
    alice = await tokenFor(app, ALICE);
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('the six inputs of the issue that answered 500', () => {
    it('NUL in q (GET /posts?q=%00x): 400 naming q', async () => {
      const response = await http().get('/posts?q=%00x');
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(fieldsOf(response)).toEqual(['q']);
    });

    it('NUL in the slug filter (GET /tags?slug=%00x): 400 naming slug', async () => {
      const response = await http().get('/tags?slug=news%00');
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(fieldsOf(response)).toEqual(['slug']);
    });

    it('a forged cursor whose key (a title) holds NUL: 400 naming cursor', async () => {
      const first = await http().get('/posts?sort=title&limit=1').expect(200);
      const issued = /[?&]cursor=([^&>]+)/.exec(String(first.headers.link))?.[1];
      expect(issued).toBeDefined();
      const text = Buffer.from(issued!, 'base64url').toString('utf8');
      const forged = Buffer.from(text.replace(/:[^:]*$/, ':a\u0000b')).toString('base64url');
      const response = await http().get(`/posts?sort=title&limit=1&cursor=${forged}`);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(fieldsOf(response)).toEqual(['cursor']);
      // GraphQL's after takes the same cursors.
      const viaGraphQL = await graphql(app, `{ posts(orderBy: TITLE_ASC, first: 1, after: "${forged}") { nodes { id } } }`);
      expectError(viaGraphQL, 'BAD_USER_INPUT', ['posts']);
    });

    it('{"tags": null} in PATCH /posts/{id}: 400 naming tags, the post unchanged', async () => {
      const post = await createPost(app, alice, { title: 'Tagged', body: 'b', tags: ['keep'] } as never);
      const before = await http().get(`/posts/${post.id}`).expect(200);
      const response = await http().patch(`/posts/${post.id}`).set(bearer(alice)).send({ tags: null });
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(fieldsOf(response)).toEqual(['tags']);
      expect((await http().get(`/posts/${post.id}`).expect(200)).body).toEqual(before.body);
      // [] is how tags are cleared.
      expect((await http().patch(`/posts/${post.id}`).set(bearer(alice)).send({ tags: [] }).expect(200)).body.tags).toEqual([]);
    });

    it('tags: null in GraphQL updatePost: BAD_USER_INPUT at updatePost', async () => {
      const post = await createPost(app, alice, { title: 'Tagged', body: 'b' });
      const literal = await graphql(app, `mutation { updatePost(id: ${post.id}, input: { tags: null }) { id } }`, undefined, { token: alice });
      expect(expectError(literal, 'BAD_USER_INPUT', ['updatePost']).extensions.fieldErrors).toEqual([{ field: 'tags', message: expect.stringContaining('null') }]);
      const variable = await graphql(app, 'mutation($id: Int!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { id } }', { id: post.id, input: { tags: null } }, { token: alice });
      expectError(variable, 'BAD_USER_INPUT', ['updatePost']);
    });

    it('dates outside years 0001-9999 in publishedAfter/Before (REST and GraphQL): 400 naming them', async () => {
      for (const date of ['-271821-04-20T00:00:00Z', '+275760-09-13T00:00:00Z', '0000-01-01T00:00:00Z', '0000-12-31T23:59:59Z', '0001-01-01T00:30:00+01:00']) {
        for (const name of ['publishedAfter', 'publishedBefore']) {
          const response = await http().get(`/posts?${name}=${encodeURIComponent(date)}`);
          expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(fieldsOf(response), `${name}=${date}`).toEqual([name]);
          const viaGraphQL = await graphql(app, `query($d: DateTime) { posts(${name}: $d) { nodes { id } } }`, { d: date });
          expect(viaGraphQL.body.errors?.map((error) => error.extensions.code), `${name}: ${date} ${JSON.stringify(viaGraphQL.body)}`).toEqual(['BAD_USER_INPUT']);
        }
      }
      // The edges of the range are taken.
      await http().get('/posts?publishedAfter=0001-01-01T00:00:00Z&publishedBefore=9999-12-31T23:59:59Z').expect(200);
      const edges = await graphql(app, '{ posts(publishedAfter: "0001-01-01T00:00:00Z", publishedBefore: "9999-12-31T23:59:59Z") { nodes { id } } }');
      expect(edges.body.errors).toBeUndefined();
    });

    it('the same dates as publishAt (POST /posts, createPost): 400, nothing written', async () => {
      const before: DataSnapshot = await snapshotData(app);
      for (const date of ['+275760-09-13T00:00:00Z', '-271821-04-20T00:00:00Z']) {
        const viaGraphQL = await graphql(app, 'mutation($d: DateTime) { createPost(input: { title: "t", body: "b", status: SCHEDULED, publishAt: $d }) { id } }', { d: date }, { token: alice });
        expect(viaGraphQL.body.errors?.map((error) => error.extensions.code), JSON.stringify(viaGraphQL.body)).toEqual(['BAD_USER_INPUT']);
      }
      expectProblem(await http().post('/posts').set(bearer(alice)).send({ title: 't', body: 'b', status: 'scheduled', publishAt: '0000-06-01T00:00:00Z' }), 400, 'BAD_USER_INPUT');
      expect(await snapshotData(app)).toEqual(before);
    });
  });

  describe('the class: control characters, lone surrogates and overlong text on every door', () => {
    const CONTROLS = ['\u0000', '\u0001', '\u0008', '\u000b', '\u001f', '\u007f'];

    it('REST query parameters: every C0 control (and DEL) in q, tag, slug, cursor, status, sort → 400 naming it', async () => {
      for (const control of CONTROLS) {
        for (const [path, name] of [['/posts', 'q'], ['/posts', 'tag'], ['/tags', 'slug'], ['/posts', 'cursor'], ['/posts', 'status'], ['/users', 'cursor']] as const) {
          const response = await http().get(`${path}?${name}=${encodeURIComponent(`a${control}b`)}`);
          expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(fieldsOf(response), `${path}?${name} with U+${control.charCodeAt(0).toString(16)}`).toEqual([name]);
        }
      }
      // Tab, line feed and carriage return are text: a search for them finds nothing, without error.
      await http().get(`/posts?q=${encodeURIComponent('a\tb\nc\r')}`).expect(200);
    });

    it('REST: a parameter past 2048 characters is refused whatever it is (400 naming it)', async () => {
      // In process: over a socket, Node refuses a URL past 16 KiB itself (431).
      const fastify = app.app.getHttpAdapter().getInstance();
      for (const length of [2049, 10_001, 100_001]) {
        for (const [path, name] of [['/posts', 'q'], ['/tags', 'slug'], ['/posts', 'cursor'], ['/users', 'limit']] as const) {
          const response = await fastify.inject({ method: 'GET', url: `${path}?${name}=${'x'.repeat(length)}` });
          expect(response.statusCode, `${path}?${name} of ${length}`).toBe(400);
          expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: name }] });
        }
      }
    });

    it('REST bodies: C0 controls other than tab, line feed and carriage return are refused in every field', async () => {
      const before = await snapshotData(app);
      for (const control of CONTROLS) {
        for (const [field, body] of [['title', { title: `t${control}`, body: 'b' }], ['body', { title: 't', body: `b${control}` }], ['tags.0', { title: 't', body: 'b', tags: [`n${control}`] }]] as const) {
          const response = await http().post('/posts').set(bearer(alice)).send(body);
          expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(fieldsOf(response), `${field} with U+${control.charCodeAt(0).toString(16)}`).toEqual([field]);
        }
      }
      expect(await snapshotData(app)).toEqual(before);
      const kept = await http().post('/posts').set(bearer(alice)).send({ title: 'Tabs', body: 'a\tb\r\nc' }).expect(201);
      expect(kept.body.body).toBe('a\tb\r\nc');
    });

    it('GraphQL: controls and lone surrogates in arguments, as literals or variables: BAD_USER_INPUT', async () => {
      for (const bad of ['\u0000', '\u0001', '\u001f', '\u007f', '\ud800', '\udfff', '\udc00\ud800']) {
        // eslint-disable-next-line no-control-regex -- the control characters are the point
        const escaped = JSON.stringify(`x${bad}`).replace(/[\u0000-\u001f\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
        // graphql-js itself refuses a lone surrogate's escape in a literal (a syntax error).
        const code = /[\ud800-\udfff]/.test(bad) ? 'GRAPHQL_PARSE_FAILED' : 'BAD_USER_INPUT';
        for (const document of [`{ posts(search: ${escaped}) { nodes { id } } }`, `{ tag(slug: ${escaped}) { id } }`, `{ posts(tag: [${escaped}]) { nodes { id } } }`]) {
          const result = await graphql(app, document, undefined, { checkLeaks: false });
          expect(result.body.errors?.map((error) => error.extensions.code), `${document} ${JSON.stringify(result.body)}`).toEqual([code]);
        }
        const variable = await graphql(app, 'query($s: String) { posts(search: $s) { nodes { id } } }', { s: `x${bad}` }, { checkLeaks: false });
        expect(variable.body.errors?.map((error) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
      }
    });

    it('GraphQL over GET, WebSocket and SSE: a control character in an argument or a variable is refused the same way', async () => {
      const get = await http().get('/graphql').query({ query: 'query($s: String) { posts(search: $s) { totalCount } }', variables: JSON.stringify({ s: 'a\u0000' }) });
      expect(get.status, get.text).toBe(400);
      expect(get.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', fieldErrors: [{ field: 's', message: expect.stringMatching(/NUL/) }] } });
      const literal = await http().get('/graphql').query({ query: '{ posts(search: "a\\u0001") { totalCount } }' });
      expect(literal.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code), literal.text).toEqual(['BAD_USER_INPUT']);

      const urls = await listen(app);
      const socket = wsClient(urls.ws);
      try {
        await socket.connected;
        const subscription = 'subscription($after: String) { events(after: $after) { cursor } }';
        const variable = new LiveSubscription(socket.client, subscription, { after: 'x\u0000' });
        await until('the refusal', () => variable.error !== undefined || variable.results.length > 0);
        expect((variable.error as { extensions?: { code?: string } }[])[0].extensions?.code).toBe('BAD_USER_INPUT');
        const inline = new LiveSubscription(socket.client, 'subscription { events(after: "x\\u001f") { cursor } }');
        await until('the refusal', () => inline.error !== undefined || inline.results.length > 0);
        expect(JSON.stringify(inline.error ?? inline.results)).toContain('BAD_USER_INPUT');
        expect(socket.closes).toEqual([]);
      } finally {
        socket.dispose();
      }
      const stream = await rawStream(urls.http, { query: 'subscription($after: String) { events(after: $after) { cursor } }', variables: { after: '\u007f' } });
      stream.close();
      expect(stream.response.status, stream.text).toBe(400);
      expect(JSON.parse(stream.text!).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    });

    it('headers: a control character or a character past U+00FF in a header value → 400 naming the header', async () => {
      const fastify = app.app.getHttpAdapter().getInstance();
      for (const [name, value] of [['if-none-match', '"a\u0000"'], ['authorization', 'Bearer \u0001'], ['x-request-id', 'id\u007f'], ['accept-language', 'en\ud800'], ['if-match', '"x'.padEnd(100_001, 'x')]] as const) {
        const response = await fastify.inject({ method: 'GET', url: '/posts', headers: { [name]: value } });
        expect(response.statusCode, `${name}: ${response.body.slice(0, 200)}`).toBe(400);
        expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: name }] });
      }
      expect((await fastify.inject({ method: 'GET', url: '/posts', headers: { 'accept-language': 'de-CH, caf\u00e9' } })).statusCode).toBe(200);
    });
  });
});

describeEachDatabase('hostile federation representations', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { env: { GRAPHQL_FEDERATION: 'true' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Post { id } } }';

  it('a malformed __typename in _entities: BAD_USER_INPUT at _entities naming the representation, never an internal error', async () => {
    const cases: [unknown, string][] = [
      [{ __typename: 'Nope', id: 1 }, 'representations.0.__typename'],
      [{ __typename: '', id: 1 }, 'representations.0.__typename'],
      [{ __typename: '__proto__', id: 1 }, 'representations.0.__typename'],
      [{ __typename: 'toString', id: 1 }, 'representations.0.__typename'],
      [{ __typename: 'Query', id: 1 }, 'representations.0.__typename'],
      [{ __typename: 'PostConnection', id: 1 }, 'representations.0.__typename'],
      [{ __typename: 7, id: 1 }, 'representations.0.__typename'],
      [{ id: 1 }, 'representations.0.__typename'],
      ['Post', 'representations.0'],
    ];
    for (const [representation, field] of cases) {
      const result = await graphql(app, ENTITIES, { r: [representation] });
      const error = expectError(result, 'BAD_USER_INPUT', ['_entities']);
      expect(error.extensions.fieldErrors, JSON.stringify(representation)).toEqual([{ field, message: expect.any(String) }]);
    }
    // Written into the document, with a NUL: the same.
    const literal = await graphql(app, '{ _entities(representations: [{ __typename: "Post\\u0000", id: 1 }]) { __typename } }', undefined, { checkLeaks: false });
    expectError(literal, 'BAD_USER_INPUT', ['_entities']);
    // A well-formed one still resolves.
    const fine = await graphql(app, ENTITIES, { r: [{ __typename: 'Post', id: 1 }] });
    expect(fine.body.errors).toBeUndefined();
    expect(fine.body.data._entities).toEqual([{ __typename: 'Post', id: 1 }]);
  });
});
