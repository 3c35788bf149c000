import { type Client, createClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsersService } from '../src/users/users.service.js';
import { ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { metricValue } from './support/graphql-client.js';
import {
  type ListeningApp,
  LiveSubscription,
  listen,
  until,
  waitForNoSubscribers,
  waitForSubscribers,
  wsClient,
} from './support/subscriptions.js';
import { type RawStream, rawStream } from './support/sse.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/** CONTRACT §5: the same subscriptions over Server-Sent Events (graphql-sse, distinct connections mode) at /graphql/stream. */

const ALICE_ID = 2;

/** A graphql-sse client in distinct connections mode: one HTTP request per operation. */
function sseClient(base: string, token?: string): Client<false> {
  return createClient({
    url: `${base}/graphql/stream`,
    singleConnection: false,
    retryAttempts: 0,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

describeEachDatabase('subscriptions over Server-Sent Events', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let alice: string;
  let bob: string;
  const clients: Client[] = [];
  const subscriptions: LiveSubscription[] = [];
  const streams: RawStream[] = [];
  const http = () => request(app.server);

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    [alice, bob] = await Promise.all([tokenFor(app, ALICE), tokenFor(app, BOB)]);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    for (const client of clients.splice(0)) client.dispose();
    for (const stream of streams.splice(0)) stream.close();
    await waitForNoSubscribers(app);
  });
  afterAll(() => app?.close());

  const subscribe = (query: string, variables?: Record<string, unknown>, token?: string) => {
    const client = sseClient(urls.http, token);
    clients.push(client);
    const subscription = new LiveSubscription(client, query, variables);
    subscriptions.push(subscription);
    return subscription;
  };
  const open = async (body: Record<string, unknown>, headers?: Record<string, string>) => {
    const stream = await rawStream(urls.http, body, headers);
    streams.push(stream);
    return stream;
  };
  const restPost = async (token: string, title: string): Promise<number> =>
    (await http().post('/posts').set(bearer(token)).send({ title, body: `${title} body` }).expect(201)).body.id;

  it('postCreated arrives over SSE (graphql-sse client), nested selection resolved', async () => {
    const sub = subscribe('subscription { postCreated { id title author { name } commentCount } }');
    await waitForSubscribers(app, 'postCreated', 1);
    const id = await restPost(alice, 'over SSE');
    expect(await sub.received(1)).toEqual([{ id, title: 'over SSE', author: { name: 'Alice Author' }, commentCount: 0 }]);
    // An event stream is not a WebSocket: the ws_connections gauge does not count it.
    expect(await metricValue(app, 'ws_connections')).toBe(0);
    expect(await metricValue(app, 'subscription_events_total', { event: 'postCreated' })).toBeGreaterThanOrEqual(1);
  });

  it('postCreated(authorId) filters over SSE: only the matching post arrives, in order', async () => {
    const sub = subscribe('subscription($a: Int) { postCreated(authorId: $a) { title authorId } }', { a: ALICE_ID }, bob);
    await waitForSubscribers(app, 'postCreated', 1);
    await restPost(bob, 'not for this stream');
    await restPost(alice, 'for this stream');
    await restPost(bob, 'not for this stream either');
    await restPost(alice, 'for this stream too');
    expect(await sub.received(2)).toEqual([
      { title: 'for this stream', authorId: ALICE_ID },
      { title: 'for this stream too', authorId: ALICE_ID },
    ]);
  });

  it('a raw text/event-stream request gets `next` events with the payload; hanging up unsubscribes', async () => {
    const stream = await open({ query: 'subscription($p: Int) { commentCreated(postId: $p) { body author { name } post { title } } }', variables: { p: 1 } }, { authorization: `Bearer ${alice}` });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await waitForSubscribers(app, 'commentCreated', 1);
    await http().post('/posts/2/comments').set(bearer(bob)).send({ body: 'elsewhere' }).expect(201);
    await http().post('/posts/1/comments').set(bearer(bob)).send({ body: 'streamed' }).expect(201);
    await until('a next event', () => stream.events.some((event) => event.event === 'next'));
    const title = (await http().get('/posts/1').expect(200)).body.title;
    expect(stream.events.filter((event) => event.event === 'next').map((event) => event.data)).toEqual([
      { data: { commentCreated: { body: 'streamed', author: { name: 'Bob Writer' }, post: { title } } } },
    ]);
    stream.close();
    await waitForSubscribers(app, 'commentCreated', 0);
  });

  it('a bad token is refused with 401, WWW-Authenticate: Bearer and UNAUTHENTICATED', async () => {
    for (const authorization of ['Bearer x.y.z', `Bearer ${alice}x`, 'Basic YWxpY2U6cGFzc3dvcmQ=']) {
      const stream = await open({ query: 'subscription { postCreated { id } }' }, { authorization });
      expect(stream.response.status).toBe(401);
      expect(stream.response.headers.get('www-authenticate')).toBe('Bearer');
      expect(JSON.parse(stream.text!).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const client = sseClient(urls.http, 'x.y.z');
    clients.push(client);
    const sub = new LiveSubscription(client, 'subscription { postCreated { id } }');
    const error = (await sub.failed()) as { response?: { status: number } };
    expect(error.response?.status).toBe(401);
    expect(await metricValue(app, 'ws_connections')).toBe(0);
  });

  it.each([
    ['too deep', 'subscription { commentCreated { post { author { posts { comments { post { author { posts { comments { post { title } } } } } } } } } } }', 'QUERY_TOO_DEEP'],
    ['too costly', 'subscription { postCreated { author { posts(first: 100) { comments(first: 100) { body } } } } }', 'COST_LIMIT_EXCEEDED'],
    ['invalid', 'subscription { postCreated { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['unparsable', 'subscription { postCreated {', 'GRAPHQL_PARSE_FAILED'],
  ])('a %s subscription is refused with 400 and its code', async (_name, query, code) => {
    const stream = await open({ query });
    expect(stream.response.status).toBe(400);
    expect(stream.response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(stream.text!);
    expect(body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([code]);
    expect(body.data).toBeUndefined();
  });

  it('an error while resolving an event is coded and masked', async () => {
    const stream = await open({ query: 'subscription { postCreated { title author { name } } }' });
    await waitForSubscribers(app, 'postCreated', 1);
    const spy = vi.spyOn(app.app.get(UsersService), 'findByIds').mockRejectedValueOnce(new Error('SELECT password_hash FROM users -- /work/src/x.ts:1:1'));
    try {
      await restPost(alice, 'author fails');
      await until('a next event', () => stream.events.some((event) => event.event === 'next'));
    } finally {
      spy.mockRestore();
    }
    const [next] = stream.events.filter((event) => event.event === 'next');
    expect(next.data.data).toBeNull();
    expect(next.data.errors).toEqual([
      { message: 'Internal server error', path: ['postCreated', 'author'], locations: expect.any(Array), extensions: { code: 'INTERNAL_SERVER_ERROR' } },
    ]);
    expect(JSON.stringify(next.data)).not.toMatch(/password_hash|\/work\//);
  });
});

describe('subscriptions over Server-Sent Events: production, one live connection', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const streams: RawStream[] = [];

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { NODE_ENV: 'production', SUBSCRIPTIONS_MAX_CONNECTIONS: '1' } });
    urls = await listen(app);
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await waitForNoSubscribers(app);
  });
  afterAll(() => app?.close());

  const open = async (body: Record<string, unknown>) => {
    const stream = await rawStream(urls.http, body);
    streams.push(stream);
    return stream;
  };

  it('refuses introspection with 400 GRAPHQL_VALIDATION_FAILED', async () => {
    const stream = await open({ query: '{ __schema { queryType { name } } }' });
    expect(stream.response.status).toBe(400);
    const codes = JSON.parse(stream.text!).errors.map((error: { extensions: { code: string } }) => error.extensions.code);
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set(['GRAPHQL_VALIDATION_FAILED']));
  });

  it('an open stream takes the one slot: another stream gets 503, a WebSocket 1013; the slot frees when it ends', async () => {
    const first = await open({ query: 'subscription { postDeleted }' });
    expect(first.response.status).toBe(200);
    await waitForSubscribers(app, 'postDeleted', 1);

    const second = await open({ query: 'subscription { postDeleted }' });
    expect(second.response.status).toBe(503);
    expect(second.response.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(second.text!).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    const ws = wsClient(urls.ws);
    expect((await ws.closed).code).toBe(1013);
    await ws.dispose();

    first.close();
    await waitForSubscribers(app, 'postDeleted', 0);
    const third = await until('a stream to be admitted again', async () => {
      const stream = await open({ query: 'subscription { postDeleted }' });
      return stream.response.status === 200 ? stream : undefined;
    });
    await waitForSubscribers(app, 'postDeleted', 1);
    const token = await tokenFor(app, BOB);
    const id = (await request(app.server).post('/posts').set(bearer(token)).send({ title: 'gone soon', body: 'b' }).expect(201)).body.id;
    await request(app.server).delete(`/posts/${id}`).set(bearer(token)).expect(204);
    await until('the postDeleted event', () => third.events.some((event) => event.event === 'next'));
    expect(third.events.find((event) => event.event === 'next')!.data).toEqual({ data: { postDeleted: id } });
  });
});
