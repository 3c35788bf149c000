import { createHash } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JwtService } from '@nestjs/jwt';
import { Client as UrqlClient, fetchExchange, gql } from '@urql/core';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OperationGate as OperationGateRef } from '../src/api/graphql/gate/operation-gate.js';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, createTestDatabase } from './support/databases.js';
import { expectError, graphql, metricValue } from './support/graphql-client.js';
import { type RawStream, rawStream } from './support/sse.js';
import { type ListeningApp, LiveSubscription, listen, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * One gate for every door: the checks of POST /graphql hold over GET, the WebSocket and SSE —
 * the credential on every operation, the persisted-query allow-list, rate limits, socket
 * hygiene, and no 500 for any client input.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };

/** Runs one operation over a graphql-ws client: its result, or the errors it was refused with. */
async function overWs(client: WsClient, query: string, variables?: Record<string, unknown>): Promise<Result> {
  const operation = new LiveSubscription(client.client, query, variables);
  await until('an answer over the socket', () => operation.results.length > 0 || operation.error !== undefined);
  if (operation.results.length > 0) return operation.results[0] as Result;
  if (Array.isArray(operation.error)) return { errors: operation.error };
  throw new Error(`The socket closed: ${JSON.stringify(operation.error)}`);
}

/** Runs one operation over SSE: the result of its first event, or the refusal's status and body. */
async function overSse(urls: ListeningApp, body: Record<string, unknown>, token?: string): Promise<{ status: number; result: Result }> {
  const stream = await rawStream(urls.http, body, token ? bearer(token) : {});
  try {
    if (stream.text !== undefined) return { status: stream.response.status, result: JSON.parse(stream.text) as Result };
    await until('an event', () => stream.events.some((event) => event.event === 'next'));
    return { status: stream.response.status, result: stream.events.find((event) => event.event === 'next')!.data as Result };
  } finally {
    stream.close();
  }
}

const codesOf = (result: Result) => (result.errors ?? []).map((error) => error.extensions?.code);

/** A raw WebSocket to /graphql: the close (or the refused handshake's status and body). */
function rawSocket(url: string, protocols: string | string[] = 'graphql-transport-ws', headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, protocols, { headers });
  const outcome = new Promise<{ close?: number; status?: number; body?: string }>((resolve) => {
    socket.on('close', (code) => resolve({ close: code }));
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    socket.on('error', () => undefined);
  });
  const opened = new Promise<boolean>((resolve) => {
    socket.on('open', () => resolve(true));
    void outcome.then(() => resolve(false));
  });
  return { socket, outcome, opened };
}

describeEachDatabase('one gate: the credential is looked at on every operation, on every transport', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let admin: string;
  let alice: string;
  let alicePost: number;
  const clients: WsClient[] = [];
  const streams: RawStream[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    admin = await tokenFor(app, ADMIN);
    alice = await tokenFor(app, ALICE);
    alicePost = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Alice writes', body: 'b' }).expect(201)).body.id;
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(() => app?.close());

  let users = 0;
  const newUser = async () => {
    users += 1;
    const email = `gate-${kind}-${users}@example.com`;
    const { id } = (await request(app.server).post('/users').send({ name: `Gate ${users}`, email, password: 'gate-password' }).expect(201)).body;
    return { id: id as number, token: await tokenFor(app, { email, password: 'gate-password' }) };
  };
  const connectWs = async (token: string) => {
    const client = wsClient(urls.ws, { token });
    clients.push(client);
    await client.connected;
    return client;
  };
  const signToken = (userId: number, expiresInS: number) =>
    app.app.get(JwtService, { strict: false }).sign({ sub: String(userId) }, { algorithm: 'HS256', expiresIn: expiresInS });
  const editAlicePost = (title: string) => ({ query: `mutation { updatePost(id: ${alicePost}, input: { title: "${title}" }) { title } }` });

  it("a demoted admin's open socket is refused an admin action at its next operation; so is its next stream", async () => {
    const demoted = await newUser();
    await request(app.server).patch(`/users/${demoted.id}`).set(bearer(admin)).send({ role: 'admin' }).expect(200);
    const socket = await connectWs(demoted.token);
    expect((await overWs(socket, editAlicePost('edited by an admin').query)).data).toEqual({ updatePost: { title: 'edited by an admin' } });

    await request(app.server).patch(`/users/${demoted.id}`).set(bearer(admin)).send({ role: 'author' }).expect(200);
    expect(codesOf(await overWs(socket, editAlicePost('edited after demotion').query))).toEqual(['FORBIDDEN']);
    expect(codesOf(await overWs(socket, `mutation { deleteUser(id: 2) }`))).toEqual(['FORBIDDEN']);
    expect(socket.closes).toEqual([]); // still signed in, as an author
    const sse = await overSse(urls, editAlicePost('edited over SSE'), demoted.token);
    expect(codesOf(sse.result)).toEqual(['FORBIDDEN']);
    const post = (await request(app.server).get(`/posts/${alicePost}`).expect(200)).body;
    expect(post.title).toBe('edited by an admin');
  });

  it('a token that expires closes its socket with 4403 and ends its stream; the next connection with it is refused', async () => {
    const user = await newUser();
    const shortLived = signToken(user.id, 2);
    const socket = await connectWs(shortLived);
    const stream = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, bearer(shortLived));
    streams.push(stream);
    expect(stream.response.status).toBe(200);
    expect((await socket.closed).code).toBe(4403);
    await stream.ended;
    const again = wsClient(urls.ws, { token: shortLived });
    clients.push(again);
    expect((await again.closed).code).toBe(4403);
    expect((await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, bearer(shortLived))).response.status).toBe(401);
  });

  it("a deleted user's socket is closed with 4403 and its stream ends, at once", async () => {
    const user = await newUser();
    const socket = await connectWs(user.token);
    const subscription = new LiveSubscription(socket.client, 'subscription { postCreated { id } }');
    const stream = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, bearer(user.token));
    streams.push(stream);
    await until('both subscribed', async () => (await metricValue(app, 'ws_connections')) >= 1);
    await request(app.server).delete(`/users/${user.id}`).set(bearer(admin)).expect(204);
    expect((await socket.closed).code).toBe(4403);
    await stream.ended;
    subscription.dispose();
  });

  it('a deleted user cannot run an operation over a socket opened before (checked per operation, not only on a signal)', async () => {
    const user = await newUser();
    const socket = await connectWs(user.token);
    // Deleted behind the service's back: no signal reaches the socket; its next operation looks.
    const { DataSource } = await import('typeorm');
    await app.app.get(DataSource).query(`DELETE FROM users WHERE id = ${user.id}`);
    const result = await overWs(socket, '{ me { id } }').catch(() => ({ errors: [{ message: 'closed', extensions: { code: 'CLOSED' } }] }));
    expect(codesOf(result)).toEqual(expect.arrayContaining([expect.stringMatching(/UNAUTHENTICATED|CLOSED/)]));
    expect((await socket.closed).code).toBe(4403);
  });
});

describe('one gate: persisted-only mode over WebSocket and SSE', () => {
  const manifestPath = join(tmpdir(), `gate-manifest-${process.pid}.json`);
  const LISTED = 'query($id: Int!) { post(id: $id) { title } }';
  let app: TestApp;
  let urls: ListeningApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    const id = createHash('sha256').update(LISTED).digest('hex');
    writeFileSync(manifestPath, JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id, name: 'Post', type: 'query', body: LISTED }] }));
    app = await startTestApp('sqlite', { env: { GRAPHQL_PERSISTED_QUERIES: 'only', GRAPHQL_PERSISTED_QUERIES_FILE: manifestPath } });
    urls = await listen(app);
  });
  afterEach(async () => Promise.all(clients.splice(0).map((client) => client.dispose())));
  afterAll(async () => {
    await app?.close();
    rmSync(manifestPath, { force: true });
  });

  it('runs the listed document and refuses an unlisted query and an unlisted mutation over the WebSocket', async () => {
    const token = await tokenFor(app, ALICE);
    const client = wsClient(urls.ws, { token });
    clients.push(client);
    await client.connected;
    expect((await overWs(client, LISTED, { id: 1 })).data.post.title).toEqual(expect.any(String));
    expect(codesOf(await overWs(client, '{ posts { nodes { id } } }'))).toEqual(['PERSISTED_QUERY_REQUIRED']);
    const before = (await request(app.server).get('/posts?limit=100').expect(200)).body.length;
    expect(codesOf(await overWs(client, 'mutation { createPost(input: { title: "unlisted", body: "b" }) { id } }'))).toEqual(['PERSISTED_QUERY_REQUIRED']);
    expect(codesOf(await overWs(client, 'subscription { postCreated { id } }'))).toEqual(['PERSISTED_QUERY_REQUIRED']);
    expect((await request(app.server).get('/posts?limit=100').expect(200)).body.length).toBe(before);
  });

  it('the same over SSE: 400 PERSISTED_QUERY_REQUIRED, and nothing written', async () => {
    const token = await tokenFor(app, ALICE);
    const listed = await overSse(urls, { query: LISTED, variables: { id: 1 } });
    expect(listed.result.data.post.title).toEqual(expect.any(String));
    const before = (await request(app.server).get('/posts?limit=100').expect(200)).body.length;
    for (const query of ['{ posts { nodes { id } } }', 'mutation { createPost(input: { title: "unlisted", body: "b" }) { id } }', 'subscription { postCreated { id } }']) {
      const refused = await overSse(urls, { query }, token);
      expect(refused.status).toBe(400);
      expect(codesOf(refused.result)).toEqual(['PERSISTED_QUERY_REQUIRED']);
    }
    expect((await request(app.server).get('/posts?limit=100').expect(200)).body.length).toBe(before);
  });
});

describe('one gate: rate limits count every operation, whichever door', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RATE_LIMIT_MAX: '6', RATE_LIMIT_WINDOW_S: '60' } });
    urls = await listen(app);
  });
  afterEach(async () => Promise.all(clients.splice(0).map((client) => client.dispose())));
  afterAll(() => app?.close());

  it('the upgrade and each operation over the socket count as requests of its address, shared with HTTP', async () => {
    const client = wsClient(urls.ws);
    clients.push(client);
    await client.connected; // 1: the upgrade
    for (let operation = 0; operation < 5; operation++) expect(codesOf(await overWs(client, '{ __typename }'))).toEqual([]); // 2-6
    const limited = await overWs(client, '{ __typename }');
    expect(codesOf(limited)).toEqual(['RATE_LIMITED']);
    // The address's allowance is spent for HTTP too: a GraphQL request is answered as a GraphQL error.
    const overHttp = await request(app.server).post('/graphql').send({ query: '{ __typename }' });
    expect(overHttp.status).toBe(429);
    expect(Number(overHttp.headers['retry-after'])).toBeGreaterThan(0);
    expect(overHttp.headers['content-type']).toMatch(/^application\/json/);
    expect(overHttp.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect((await request(app.server).get('/posts')).status).toBe(429);
    // A new socket is refused at the upgrade.
    const refused = rawSocket(urls.ws);
    expect(await refused.outcome).toMatchObject({ status: 429 });
  });
});

describe('one gate: automatic persisted queries are bounded', () => {
  let app: TestApp;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const byHash = (hash: string) => graphql(app, undefined, undefined, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
  const register = (text: string) => graphql(app, text, undefined, { extensions: { persistedQuery: { version: 1, sha256Hash: sha(text) } } });

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { GRAPHQL_APQ_REGISTRATIONS_MAX: '2', GRAPHQL_MAX_DOCUMENT_BYTES: '4096' } });
  });
  afterAll(() => app?.close());

  it('an address registers at most GRAPHQL_APQ_REGISTRATIONS_MAX documents per window; one more still runs but is not stored', async () => {
    const documents = ['{ post(id: 1) { id } }', '{ post(id: 2) { id } }', '{ post(id: 3) { id } }'];
    for (const text of documents) expect((await register(text)).body.errors).toBeUndefined();
    expect((await byHash(sha(documents[0]))).body.data.post.id).toBe(1);
    expect((await byHash(sha(documents[1]))).body.data.post.id).toBe(2);
    expect(codesOf((await byHash(sha(documents[2]))).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  it('the document size counts comments: padding a small query with comments past the limit is 413, and nothing is stored', async () => {
    const padded = `{ post(id: 4) { id } }\n${'# padding\n'.repeat(500)}`;
    const response = await register(padded);
    expect(response.status).toBe(413);
    expect(codesOf(response.body)).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(codesOf((await byHash(sha(padded))).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });
});

describe('one gate: stock clients', () => {
  let app: TestApp;
  let urls: ListeningApp;

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '60' } });
    urls = await listen(app);
  });
  afterAll(() => app?.close());

  it("urql's GET queries (no Content-Type) are answered, and urql sees RATE_LIMITED when the limit is reached", async () => {
    const client = new UrqlClient({ url: `${urls.http}/graphql`, exchanges: [fetchExchange], preferGetMethod: 'force', requestPolicy: 'network-only' });
    const query = gql`query Post($id: Int!) { post(id: $id) { id } }`;
    for (const id of [1, 2, 3]) {
      const result = await client.query(query, { id }).toPromise();
      expect(result.error).toBeUndefined();
      expect(result.data).toEqual({ post: { id } });
    }
    const limited = await client.query(query, { id: 4 }).toPromise();
    expect(limited.error?.graphQLErrors[0]?.extensions.code).toBe('RATE_LIMITED');
  });
});

describe('one gate: sign-ins over a socket count per client address', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RATE_LIMIT_AUTH_MAX: '2', TRUST_PROXY: 'true' } });
    urls = await listen(app);
  });
  afterEach(async () => Promise.all(clients.splice(0).map((client) => client.dispose())));
  afterAll(() => app?.close());

  const from = (address: string) => {
    class Forwarded extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'x-forwarded-for': address } });
      }
    }
    const client = wsClient(urls.ws, { webSocketImpl: Forwarded });
    clients.push(client);
    return client;
  };
  const signIn = (email: string) => `mutation { createToken(input: { email: "${email}", password: "wrong-password" }) { accessToken } }`;

  it('one address spends its own sign-in allowance, not everyone’s', async () => {
    const a = from('203.0.113.1');
    await a.connected;
    expect(codesOf(await overWs(a, signIn('one@example.com')))).toEqual(['UNAUTHENTICATED']);
    expect(codesOf(await overWs(a, signIn('two@example.com')))).toEqual(['UNAUTHENTICATED']);
    expect(codesOf(await overWs(a, signIn('three@example.com')))).toEqual(['RATE_LIMITED']);
    const b = from('203.0.113.2');
    await b.connected;
    expect(codesOf(await overWs(b, signIn('four@example.com')))).toEqual(['UNAUTHENTICATED']);
  });
});

describe('one gate: socket hygiene', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { SUBSCRIPTIONS_MAX_PER_ADDRESS: '5' } });
    urls = await listen(app);
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await until('every socket to be gone', async () => (await metricValue(app, 'ws_connections')) === 0);
  });
  afterAll(() => app?.close());

  const open = (protocols?: string | string[]) => {
    const raw = rawSocket(urls.ws, protocols);
    sockets.push(raw.socket);
    return raw;
  };

  it('a 2 MB message closes the socket with 1009, before it is buffered', async () => {
    const raw = open();
    expect(await raw.opened).toBe(true);
    raw.socket.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(await raw.outcome).toEqual({ close: 1009 });
  });

  it('a socket that sends no connection_init is closed with 4408 after 3 s, and counts against the caps meanwhile', async () => {
    const silent = Array.from({ length: 5 }, () => open());
    expect(await Promise.all(silent.map((raw) => raw.opened))).toEqual([true, true, true, true, true]);
    const sixth = open();
    expect(await sixth.outcome).toEqual({ close: 1013 });
    const sse = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' });
    expect(sse.response.status).toBe(429);
    for (const raw of silent) expect(await raw.outcome).toEqual({ close: 4408 });
    const later = wsClient(urls.ws);
    await later.connected;
    await later.dispose();
  });

  it('the legacy subprotocol (subscriptions-transport-ws) and no subprotocol are refused at the upgrade with 400', async () => {
    for (const protocols of ['graphql-ws', []]) {
      const refused = await open(protocols).outcome;
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('graphql-transport-ws');
    }
  });

  it('300 upgrade requests on other paths are answered and closed: no socket is left behind', async () => {
    const { port } = new URL(urls.http);
    const upgrade = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
        socket.setTimeout(5000, () => reject(new Error(`no answer for ${path}`)));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
      });
    const descriptors = () => readdirSync('/proc/self/fd').length;
    const before = descriptors();
    for (let batch = 0; batch < 6; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => upgrade(index % 2 ? '/users' : '/graphql/stream')));
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    }
    await until('the descriptors to be released', () => descriptors() <= before + 5);
    await request(app.server).get('/posts').expect(200);
  });
});

describe('one gate: client input never produces a 500, on any transport', () => {
  let app: TestApp;
  let urls: ListeningApp;
  let client: WsClient;

  beforeAll(async () => {
    app = await startTestApp('sqlite');
    urls = await listen(app);
    client = wsClient(urls.ws);
    await client.connected;
  });
  afterAll(async () => {
    await client?.dispose();
    await app?.close();
  });

  // Built as text: JSON.stringify itself cannot write a value nested this deep.
  const DEEP = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
  let deepish: unknown = 1;
  for (let level = 0; level < 40; level++) deepish = [deepish];

  it('a directive without its argument on a subscription, and a subscription sent by POST', async () => {
    const skip = 'subscription { postCreated @skip { id } }';
    const post = await graphql(app, skip);
    expect(post.status).toBe(400);
    expectError(post, 'GRAPHQL_VALIDATION_FAILED');
    expect(codesOf(await overWs(client, skip))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const sse = await overSse(urls, { query: skip });
    expect(sse.status).toBe(400);
    expect(codesOf(sse.result)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const byPost = await graphql(app, 'subscription { postCreated { id } }');
    expect(byPost.status).toBe(400);
    expectError(byPost, 'BAD_REQUEST');
  });

  it('a variable nested 100,000 levels deep is a 400 / BAD_USER_INPUT over POST, WebSocket and SSE', async () => {
    const query = 'query($n: Int) { posts(first: $n) { nodes { id } } }';
    const body = `{"query":${JSON.stringify(query)},"variables":{"n":${DEEP}}}`;
    const post = await request(app.server).post('/graphql').set('content-type', 'application/json').send(body);
    expect(post.status).toBe(400);
    expect(post.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    const raw = rawSocket(urls.ws);
    expect(await raw.opened).toBe(true);
    const messages: { type: string; payload?: { extensions?: { code?: string } }[] }[] = [];
    raw.socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    raw.socket.send(JSON.stringify({ type: 'connection_init' }));
    await until('the acknowledgement', () => messages.some((message) => message.type === 'connection_ack'));
    raw.socket.send(`{"id":"1","type":"subscribe","payload":${body}}`);
    await until('the answer', () => messages.some((message) => message.type === 'error'));
    expect(messages.find((message) => message.type === 'error')!.payload![0].extensions!.code).toBe('BAD_USER_INPUT');
    raw.socket.close();

    const sse = await fetch(`${urls.http}/graphql/stream`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body });
    expect(sse.status).toBe(400);
    expect(((await sse.json()) as Result).errors![0].extensions!.code).toBe('BAD_USER_INPUT');
  });

  it('fuzz: documents and variables thrown at POST, GET, WebSocket and SSE get no 5xx and no INTERNAL_SERVER_ERROR', async () => {
    const fields = ['post(id: 1)', 'posts', 'posts(first: $n)', 'me', 'user(id: $id)', 'postCreated', 'postCreated @skip', 'postCreated @include(if: $b)', 'comment(id: "x")', '__typename', '__schema'];
    const selections = ['', '{ id }', '{ nodes { id } }', '{ title author { name } }', '{ ...F }', '{ id @skip(if: $b) }'];
    const document = fc
      .tuple(
        fc.constantFrom('', 'query', 'mutation', 'subscription', 'query Q($n: Int, $id: Int!, $b: Boolean!)', 'subscription($b: Boolean)'),
        fc.constantFrom(...fields),
        fc.constantFrom(...selections),
        fc.constantFrom('', ' fragment F on Post { id }', ' fragment F on Post { ...F }', '}}}', ' query Other { me { id } }'),
      )
      .map(([head, field, selection, tail]) => `${head} { ${field} ${selection} }${tail}`);
    const variables = fc.oneof(fc.constant(undefined), fc.constant({ n: deepish }), fc.dictionary(fc.constantFrom('n', 'id', 'b', 'x'), fc.jsonValue({ maxDepth: 4 })));
    const operationName = fc.oneof(fc.constant(undefined), fc.constantFrom('Q', 'Other', 'Nope'));
    await fc.assert(
      fc.asyncProperty(document, variables, operationName, async (query, vars, name) => {
        const body = { query, variables: vars, operationName: name };
        const post = await request(app.server).post('/graphql').set('content-type', 'application/json').send(JSON.stringify(body));
        expect(post.status, post.text).toBeLessThan(500);
        expect(post.text).not.toContain('INTERNAL_SERVER_ERROR');
        const get = await request(app.server).get('/graphql').query({ query, ...(vars ? { variables: JSON.stringify(vars) } : {}), ...(name ? { operationName: name } : {}) });
        expect(get.status, get.text).toBeLessThan(500);
        expect(get.text).not.toContain('INTERNAL_SERVER_ERROR');
        const operation = new LiveSubscription(client.client, query, vars as Record<string, unknown>);
        await until('an answer over the socket', () => operation.results.length > 0 || operation.error !== undefined);
        operation.dispose();
        expect(JSON.stringify(operation.results) + JSON.stringify(operation.error ?? null)).not.toContain('INTERNAL_SERVER_ERROR');
        expect(client.closes).toEqual([]);
        const stream = await rawStream(urls.http, body);
        stream.close();
        expect(stream.response.status).toBeLessThan(500);
        expect(stream.text ?? '').not.toContain('INTERNAL_SERVER_ERROR');
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe('one gate: what one address may make every event cost', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { SUBSCRIPTIONS_MAX_COMPLEXITY_PER_ADDRESS: '100' } });
    urls = await listen(app);
  });
  afterEach(async () => Promise.all(clients.splice(0).map((client) => client.dispose())));
  afterAll(() => app?.close());

  it('distinct subscriptions add up to the budget; identical ones count once; a finished one frees its share', async () => {
    const client = wsClient(urls.ws);
    clients.push(client);
    await client.connected;
    const heavy = (n: number) => `subscription { postCreated { author { posts(first: ${n}) { title } } } }`;
    const first = new LiveSubscription(client.client, heavy(40));
    const same = new LiveSubscription(client.client, heavy(40));
    await until('both held', () => app.app.get(OperationGateRef, { strict: false }).subscriptions.costOf('127.0.0.1') > 0);
    const second = new LiveSubscription(client.client, heavy(41));
    await until('the second held', () => app.app.get(OperationGateRef, { strict: false }).subscriptions.costOf('127.0.0.1') > 50);
    const third = new LiveSubscription(client.client, heavy(42));
    expect(codesOf({ errors: (await third.failed()) as Result['errors'] })).toEqual(['RATE_LIMITED']);
    expect(first.error).toBeUndefined();
    expect(same.error).toBeUndefined();
    expect(second.error).toBeUndefined();
    second.dispose();
    await until('the share freed', () => app.app.get(OperationGateRef, { strict: false }).subscriptions.costOf('127.0.0.1') < 50);
    const fourth = new LiveSubscription(client.client, heavy(43));
    await until('the fourth held', () => app.app.get(OperationGateRef, { strict: false }).subscriptions.costOf('127.0.0.1') > 50);
    expect(fourth.error).toBeUndefined();
  });
});

describe('one gate: GraphiQL runs subscriptions', () => {
  it('its fetcher is given the WebSocket URL', async () => {
    const app = await startTestApp('sqlite', { env: { NODE_ENV: 'development' } });
    try {
      const script = await request(app.server).get('/graphql/ide/init.js').expect(200);
      expect(script.text).toContain('subscriptionUrl');
      expect(script.text).toMatch(/'wss:' : 'ws:'/);
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)('one gate across instances (PostgreSQL + Redis)', () => {
  it("deleting a user on one instance closes that user's socket on another with 4403", async () => {
    const database = await createTestDatabase('postgres');
    const env = { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: `gate-${process.pid}-${Date.now()}:` };
    const a = await startTestApp('postgres', { database, env });
    const b = await startTestApp('postgres', { database, env });
    try {
      const urlsB = await listen(b);
      const email = 'across@example.com';
      const { id } = (await request(a.server).post('/users').send({ name: 'Across', email, password: 'across-password' }).expect(201)).body;
      const token = await tokenFor(a, { email, password: 'across-password' });
      const client = wsClient(urlsB.ws, { token });
      await client.connected;
      await new Promise((resolve) => setTimeout(resolve, 200)); // the credentials channel is subscribed in Redis
      await request(a.server).delete(`/users/${id}`).set(bearer(await tokenFor(a, ADMIN))).expect(204);
      expect((await client.closed).code).toBe(4403);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});

