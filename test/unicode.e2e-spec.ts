import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { graphql } from './support/graphql-client.js';
import { snapshotData } from './support/snapshot.js';
import { rawStream } from './support/sse.js';
import { LiveSubscription, type ListeningApp, listen, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Issue 21: a string that is not well-formed Unicode — a lone surrogate, which JSON's `\udc00`
 * escape can write and no encoding can carry — is refused with 400 naming the field, in every
 * field and on every door: REST bodies and query strings, GraphQL variables and documents over
 * POST, GET, the WebSocket and SSE. It used to crash validation (`"email": "\udc00x"` was a 500,
 * `URIError: URI malformed` in the e-mail validator) or be stored as U+FFFD.
 */

const LONE_LOW = '\udc00x';
const LONE_HIGH = 'x\ud800';
const WELL_FORMED = /well-formed Unicode/;

describeEachDatabase('lone surrogates', (kind) => {
  const app = useApp(kind, { signIn: ['admin', 'alice'] });
  let urls: ListeningApp;
  let postId: number;
  const http = () => request(app.server);

  beforeAll(async () => {
    urls = await listen(app);
    postId = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Surrogates', body: 'b' }).expect(201)).body.id as number;
  });

  /** A 400 problem naming `field` as not well-formed. */
  function expectRefused(response: request.Response, field: string, what: string): void {
    expect(response.status, `${what}: ${response.text.slice(0, 300)}`).toBe(400);
    expect(response.headers['content-type'], what).toMatch(/^application\/problem\+json/);
    expect(response.body.code, what).toBe('BAD_USER_INPUT');
    expect(response.body.errors, what).toEqual([{ field, message: expect.stringMatching(WELL_FORMED) }]);
    expect(response.body.detail, what).toContain(field);
  }

  it('REST: in any string field of any body — 400 naming the field, before any other check, and nothing is written', async () => {
    const before = await snapshotData(app);
    const user = { name: 'Lone', email: 'lone@example.com', password: 'lone-password' };
    const cases: [string, () => request.Test, string][] = [
      ['POST /users email', () => http().post('/users').send({ ...user, email: LONE_LOW }), 'email'],
      ['POST /users email (high)', () => http().post('/users').send({ ...user, email: `a${LONE_HIGH}@example.com` }), 'email'],
      ['POST /users name', () => http().post('/users').send({ ...user, name: LONE_LOW }), 'name'],
      ['POST /users password', () => http().post('/users').send({ ...user, password: `password${LONE_HIGH}` }), 'password'],
      ['POST /users avatarUrl', () => http().post('/users').send({ ...user, avatarUrl: `https://example.com/${LONE_LOW}` }), 'avatarUrl'],
      ['POST /tokens email', () => http().post('/tokens').send({ email: LONE_LOW, password: 'whatever-password' }), 'email'],
      ['POST /posts title', () => http().post('/posts').set(bearer(app.tokens.alice)).send({ title: LONE_LOW, body: 'b' }), 'title'],
      ['POST /posts body', () => http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: LONE_HIGH }), 'body'],
      ['PATCH /posts title', () => http().patch(`/posts/${postId}`).set(bearer(app.tokens.alice)).send({ title: LONE_LOW }), 'title'],
      ['POST comment body', () => http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.alice)).send({ body: LONE_LOW }), 'body'],
      ['PATCH /users name', () => http().patch('/users/2').set(bearer(app.tokens.alice)).send({ name: LONE_HIGH }), 'name'],
      ['POST /webhooks description', () => http().post('/webhooks').set(bearer(app.tokens.admin)).send({ url: 'https://hooks.example.com/x', types: ['POST_CREATED'], description: LONE_LOW }), 'description'],
      ['a key', () => http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: 'b', [LONE_LOW]: 1 }), LONE_LOW],
    ];
    for (const [what, send, field] of cases) expectRefused(await send(), field, what);
    // A well-formed pair (an emoji) is of course fine.
    await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.alice)).send({ body: 'Fine \ud83d\ude00' }).expect(201);
    const after = await snapshotData(app);
    expect(after.counts).toEqual({ ...before.counts, comments: before.counts.comments + 1 });
  });

  it('REST: a query string that is not percent-encoded UTF-8 (the bytes of a lone surrogate, %zz) — 400 naming the parameter', async () => {
    for (const [url, field] of [
      ['/posts?cursor=%ED%B0%80', 'cursor'],
      ['/users?limit=5&cursor=%ED%A0%80x', 'cursor'],
      ['/posts?authorId=%zz', 'authorId'],
      ['/events?types=POST_CREATED%ED%B0%80', 'types'],
      [`/posts/${postId}/comments?limit=%E9`, 'limit'],
    ] as const) {
      const response = await http().get(url);
      expect(response.status, url).toBe(400);
      expect(response.body, url).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field, message: expect.stringMatching(/percent-encoded UTF-8/) }] });
    }
    // Also where the value would otherwise reach a resolver as text: a GraphQL GET.
    const document = encodeURIComponent('query($after: String) { posts(after: $after) { totalCount } }');
    const refused = await http().get(`/graphql?query=${document}&variables=${encodeURIComponent('{"after":"')}%ED%B0%80${encodeURIComponent('"}')}`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors).toEqual([{ field: 'variables', message: expect.stringMatching(/percent-encoded UTF-8/) }]);
  });

  const createUser = 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }';

  it('GraphQL over POST: in any variable, however deep — 400 BAD_USER_INPUT naming the variable, before anything runs', async () => {
    const before = await snapshotData(app);
    const user = { name: 'Lone', email: 'lone@example.com', password: 'lone-password' };
    const cases: [string, string, Record<string, unknown>, string | undefined, string][] = [
      ['createUser email', createUser, { input: { ...user, email: LONE_LOW } }, undefined, 'input.email'],
      ['createUser name', createUser, { input: { ...user, name: LONE_HIGH } }, undefined, 'input.name'],
      ['createToken email', 'mutation($input: CreateTokenInput!) { createToken(input: $input) { accessToken } }', { input: { email: LONE_LOW, password: 'p' } }, undefined, 'input.email'],
      ['createPost title', 'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', { input: { title: LONE_LOW, body: 'b' } }, app.tokens.alice, 'input.title'],
      ['updatePost body', 'mutation($id: Int!, $body: String) { updatePost(id: $id, input: { body: $body }) { id } }', { id: postId, body: LONE_LOW }, app.tokens.alice, 'body'],
      ['createComment body', 'mutation($input: CreateCommentInput!) { createComment(input: $input) { id } }', { input: { postId, body: LONE_HIGH } }, app.tokens.alice, 'input.body'],
      ['a query argument', 'query($after: String) { posts(after: $after) { totalCount } }', { after: LONE_LOW }, undefined, 'after'],
      ['an unused variable', '{ posts { totalCount } }', { unused: [{ deep: LONE_LOW }] }, undefined, 'unused.0.deep'],
    ];
    for (const [what, query, variables, token, field] of cases) {
      const result = await graphql(app, query, variables, { token });
      expect(result.status, `${what}: ${result.response.text}`).toBe(400);
      expect(result.body.data, what).toBeUndefined();
      expect(result.body.errors, what).toHaveLength(1);
      const [error] = result.body.errors!;
      expect(error.extensions, what).toEqual({ code: 'BAD_USER_INPUT', fieldErrors: [{ field, message: expect.stringMatching(WELL_FORMED) }] });
      expect(error.message, what).toContain(`$${field.split('.')[0]}`);
    }
    expect((await snapshotData(app)).checksum).toBe(before.checksum);
  });

  it('GraphQL over POST: in the document (a string literal, a block string, a comment, an escape) or the operation name — 400, never run', async () => {
    const before = await snapshotData(app);
    for (const query of [
      `mutation { createUser(input: { name: "x", email: "${LONE_LOW}", password: "lone-password" }) { id } }`,
      `mutation { createPost(input: { title: "t", body: """${LONE_HIGH}""" }) { id } }`,
      `{ posts { totalCount } } # ${LONE_LOW}`,
      '{ posts(after: "\\udc00x") { totalCount } }',
    ]) {
      const result = await graphql(app, query, undefined, { token: app.tokens.alice });
      expect(result.status, `${JSON.stringify(query)}: ${result.response.text}`).toBe(400);
      expect(result.body.errors?.[0].extensions.code, JSON.stringify(query)).toBe('GRAPHQL_PARSE_FAILED');
    }
    const named = await graphql(app, 'query Q { posts { totalCount } }', undefined, { operationName: `Q${LONE_LOW}` });
    expect(named.status).toBe(400);
    expect(named.body.errors?.[0].message).toMatch(WELL_FORMED);
    expect((await snapshotData(app)).checksum).toBe(before.checksum);
  });

  it('GraphQL over GET: in the variables or the document — 400', async () => {
    const query = 'query($after: String) { posts(after: $after) { totalCount } }';
    const variables = await http().get('/graphql').query({ query, variables: JSON.stringify({ after: LONE_LOW }) });
    expect(variables.status, variables.text).toBe(400);
    expect(variables.body.errors).toEqual([
      { message: expect.stringMatching(/\$after.*well-formed Unicode/), extensions: { code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'after', message: expect.stringMatching(WELL_FORMED) }] } },
    ]);
    // A lone surrogate cannot be percent-encoded (see above); a GraphQL escape can write one.
    const literal = await http().get('/graphql').query({ query: '{ posts(after: "\\ud800") { totalCount } }' });
    expect(literal.status, literal.text).toBe(400);
    expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  describe('subscriptions', () => {
    let socket: WsClient;
    beforeAll(async () => {
      socket = wsClient(urls.ws);
      await socket.connected;
    });
    afterAll(() => socket?.dispose());

    const subscription = 'subscription($after: String) { events(after: $after) { cursor } }';

    it('over the WebSocket: a string argument given a lone surrogate is refused (BAD_USER_INPUT naming it), and the socket stays open', async () => {
      const operation = new LiveSubscription(socket.client, subscription, { after: LONE_LOW });
      await until('the refusal', () => operation.error !== undefined || operation.results.length > 0);
      expect(Array.isArray(operation.error), JSON.stringify(operation.error ?? operation.results)).toBe(true);
      const [error] = operation.error as { message: string; extensions?: { code?: string } }[];
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/\$after.*well-formed Unicode/);
      const inline = new LiveSubscription(socket.client, `subscription { events(after: "${LONE_HIGH}") { cursor } }`);
      await until('the refusal', () => inline.error !== undefined);
      expect((inline.error as { extensions?: { code?: string } }[])[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
      expect(socket.closes).toEqual([]);
    });

    it('over SSE: the same, 400', async () => {
      const stream = await rawStream(urls.http, { query: subscription, variables: { after: LONE_LOW } });
      stream.close();
      expect(stream.response.status, stream.text).toBe(400);
      const body = JSON.parse(stream.text!) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0].message).toMatch(/\$after.*well-formed Unicode/);
    });
  });
});
