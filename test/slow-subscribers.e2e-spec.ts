import { type Client as SseClient, createClient as createSseClient } from 'graphql-sse';
import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import { GRAPHQL_TRANSPORT_WS_PROTOCOL } from 'graphql-ws';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadSqliteDriver } from '../src/database/sqlite-driver.js';
import { EVERY_EVENT, LOCAL_EVENTS } from '../src/events/event-relay.js';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { metricValue, sampleValue } from './support/graphql-client.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { type HeldStream, heldStream } from './support/sse.js';
import {
  busSubscribers,
  type ExecutionResultLike,
  type ListeningApp,
  LiveSubscription,
  listen,
  sleep,
  until,
  waitForNoSubscribers,
  waitForSubscribers,
  type WsClient,
  wsClient,
} from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 21 (1): subscribers that read slower than events come, or not at all, cost the server a
 * bounded amount of memory. An event stream pulls its next result only once the previous one has
 * been written out; a live subscription's unread queue is bounded; past the bounds the
 * subscription ends with SUBSCRIBER_TOO_SLOW (an `events` stream says where to resume).
 */

/** Events in the log of the memory test, and the size of each post body. */
const LOG_EVENTS = 2000;
const BODY_CHARS = 20_000;
/** Event streams whose clients never read. */
const STREAMS = 20;
/**
 * What those streams may add to the server's resident memory, at most: about 10 MB a stream
 * (one replay page, the socket's buffers and the collector's slack). Without back-pressure they
 * added 553 MB; measured with it, +44 to +64 MB on Node 20 and up to +155 MB on Node 24, whose
 * collector lets the heap grow further before it runs.
 */
const RSS_BOUND_MB = 200;
const MB = 1_048_576;

const EVENTS_WITH_BODIES = 'subscription($after: String) { events(after: $after) { cursor type post { id title body } } }';

describe('event streams whose clients never read (the built server, a SQLite file)', () => {
  let database: TestDatabase;
  let work: { dir: string; remove: () => void };
  let server: ServerProcess;
  let oldest: string;
  const streams: HeldStream[] = [];

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-slow-subscribers-');
    database = await createTestDatabase('sqlite', { file: true });
    // One post with a large body through the API, so its event is what the service writes...
    const app = await startTestApp('sqlite', { database });
    try {
      const token = await tokenFor(app, ALICE);
      await request(app.server).post('/posts').set(bearer(token)).send({ title: 'large', body: 'x'.repeat(BODY_CHARS) }).expect(201);
    } finally {
      await app.close();
    }
    // ...then copied in SQL until the log holds LOG_EVENTS events (the API would take minutes).
    const Database = loadSqliteDriver();
    const sqlite = new Database(database.url.slice('sqlite:'.length));
    try {
      const template = sqlite.prepare("SELECT max(id) AS id FROM events WHERE type = 'POST_CREATED'").get() as { id: number };
      const copy = sqlite.prepare(
        'INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource) SELECT type, occurred_at, post_id, comment_id, author_id, resource FROM events WHERE id = ?',
      );
      const count = () => (sqlite.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
      sqlite.transaction(() => {
        for (let n = count(); n < LOG_EVENTS; n++) copy.run(template.id);
      })();
      expect(count()).toBe(LOG_EVENTS);
    } finally {
      sqlite.close();
    }
    // No stall timeout within the test: back-pressure alone must bound what the streams hold.
    server = await startServer({ DATABASE_URL: database.url, SEED_DEMO_DATA: 'false', SUBSCRIPTIONS_STALL_TIMEOUT_MS: '600000' }, work.dir);
    const first = (await (await fetch(`${server.url}/events?limit=1`)).json()) as { cursor: string }[];
    oldest = first[0].cursor;
  }, 120_000);
  afterAll(async () => {
    for (const stream of streams) stream.close();
    killAllServers();
    if (server) await server.exited;
    await database?.drop();
    work?.remove();
  });

  const rss = async () => sampleValue(await (await fetch(`${server.url}/metrics`)).text(), 'process_resident_memory_bytes');
  const health = async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    return performance.now() - started;
  };

  it(`${STREAMS} paused events(after: <oldest>) streams over ${LOG_EVENTS} large events raise RSS by less than ${RSS_BOUND_MB} MB; /health answers within 1 s`, async () => {
    await health();
    const before = await rss();
    for (let index = 0; index < STREAMS; index++) {
      const stream = await heldStream(server.url, { query: EVENTS_WITH_BODIES, variables: { after: oldest } });
      streams.push(stream);
      expect(stream.status).toBe(200);
    }
    // Long enough for each stream to have replayed the whole log, had nothing held it back.
    let peak = before;
    let slowest = 0;
    for (let second = 0; second < 15; second++) {
      await sleep(1000);
      slowest = Math.max(slowest, await health());
      peak = Math.max(peak, await rss());
    }
    const grown = (peak - before) / MB;
    console.log(`RSS ${Math.round(before / MB)} MB → peak ${Math.round(peak / MB)} MB (+${Math.round(grown)} MB); slowest /health ${Math.round(slowest)} ms`);
    expect(grown).toBeLessThan(RSS_BOUND_MB);
    expect(slowest).toBeLessThan(1000);
  }, 120_000);
});

/** Live subscribers: a post body as large as a post may have, so that a few events fill a socket. */
const LARGE_BODY = 'y'.repeat(100_000);
/** SUBSCRIPTIONS_MAX_QUEUE in these tests. */
const MAX_QUEUE = 5;
/** SUBSCRIPTIONS_STALL_TIMEOUT_MS of the app whose streams stall. */
const STALL_MS = 2000;

/** A raw graphql-transport-ws socket whose reading can be paused; it records every message. */
async function rawSocket(url: string, query: string): Promise<{ socket: WebSocket; messages: { type: string; payload?: ExecutionResultLike }[] }> {
  const socket = new WebSocket(url, GRAPHQL_TRANSPORT_WS_PROTOCOL);
  const messages: { type: string; payload?: ExecutionResultLike }[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await until('connection_ack', () => messages.some((message) => message.type === 'connection_ack'));
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
  return { socket, messages };
}

function listenersOfEveryEvent(app: TestApp): number {
  const pubSub = app.app.get<symbol, PubSubEngine>(LOCAL_EVENTS, { strict: false });
  if (!(pubSub instanceof PubSub)) throw new Error('Unknown event bus');
  return (pubSub as unknown as { ee: { listenerCount(name: string): number } }).ee.listenerCount(EVERY_EVENT);
}

describeEachDatabase('slow subscribers', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let alice: string;
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind, {
      env: { SUBSCRIPTIONS_MAX_QUEUE: String(MAX_QUEUE), SUBSCRIPTIONS_STALL_TIMEOUT_MS: String(STALL_MS), SUBSCRIPTIONS_KEEPALIVE_MS: '0' },
    });
    urls = await listen(app);
    alice = await tokenFor(app, ALICE);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await waitForNoSubscribers(app);
  });
  afterAll(() => app?.close());

  const sseClient = (): SseClient<false> => {
    const client = createSseClient({ url: `${urls.http}/graphql/stream`, singleConnection: false, retryAttempts: 0 });
    cleanups.push(() => client.dispose());
    return client;
  };
  const wsSubscriber = async (): Promise<WsClient> => {
    const ws = wsClient(urls.ws);
    cleanups.push(() => ws.dispose());
    await ws.connected;
    return ws;
  };
  const live = (client: SseClient | WsClient['client'], query: string, variables?: Record<string, unknown>) => {
    const subscription = new LiveSubscription(client, query, variables);
    cleanups.push(() => subscription.dispose());
    return subscription;
  };
  const createPost = async (title: string, body = LARGE_BODY): Promise<number> =>
    (await request(app.server).post('/posts').set(bearer(alice)).send({ title, body }).expect(201)).body.id;

  /** Writes large posts until `done()` (at most `max`); returns their ids. */
  async function writeUntil(done: () => boolean, max = 400): Promise<number[]> {
    const ids: number[] = [];
    while (!done()) {
      if (ids.length >= max) throw new Error(`still not done after ${max} posts`);
      ids.push(await createPost(`post ${ids.length}`));
    }
    return ids;
  }

  /** The cursors of the events after `after` (all without it), following Link rel="next". */
  async function cursors(after?: string): Promise<string[]> {
    const found: string[] = [];
    for (let url: string | null = `/events?limit=100${after ? `&after=${after}` : ''}`; url; ) {
      const response: request.Response = await request(app.server).get(url).expect(200);
      found.push(...(response.body as { cursor: string }[]).map((event) => event.cursor));
      url = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
    }
    return found;
  }

  const TOO_SLOW = { code: 'SUBSCRIBER_TOO_SLOW' };

  // Filling the sockets between server and client takes tens of large posts: minutes on a loaded machine.
  it(`SSE: a live subscriber that reads nothing is ended with SUBSCRIBER_TOO_SLOW once ${MAX_QUEUE} events wait for it; the others get every event`, async () => {
    const before = await metricValue(app, 'subscribers_too_slow_total', { reason: 'queue' });
    const query = 'subscription { postCreated { id title body } }';
    const normal = [live(sseClient(), 'subscription { postCreated { id } }'), live((await wsSubscriber()).client, 'subscription { postCreated { id } }')];
    const slow = await heldStream(urls.http, { query });
    cleanups.push(() => slow.close());
    expect(slow.status).toBe(200);
    await waitForSubscribers(app, 'postCreated', 3);

    // The slow stream's socket fills, then its queue: past the bound it leaves the bus.
    const ids = await writeUntil(() => busSubscribers(app, 'postCreated') < 3);
    const last = await createPost('after the slow one left', 'short');
    for (const subscription of normal) expect((await subscription.received(ids.length + 1, 30_000)).map((post) => post.id)).toEqual([...ids, last]);
    expect(await metricValue(app, 'subscribers_too_slow_total', { reason: 'queue' })).toBe(before + 1);

    // Reading on, the client gets what was sent and kept, in order, then the error and the end.
    slow.resume();
    await slow.ended;
    const events = slow.events;
    expect(events.at(-1)).toEqual({ event: 'complete', data: undefined });
    const [error, ...rest] = events.at(-2)!.data.errors;
    expect(rest).toEqual([]);
    expect(error.extensions).toEqual(TOO_SLOW);
    expect(error.message).toMatch(/SUBSCRIPTIONS_MAX_QUEUE/);
    const received = events.slice(0, -2).map((event) => event.data.data.postCreated.id);
    expect(received.length).toBeGreaterThan(MAX_QUEUE);
    expect(received).toEqual(ids.slice(0, received.length));
    expect(received.length).toBeLessThan(ids.length);
  }, 90_000);

  it(`WebSocket: a live subscriber that reads nothing is ended with SUBSCRIBER_TOO_SLOW once ${MAX_QUEUE} events wait for it; the others get every event`, async () => {
    const before = await metricValue(app, 'subscribers_too_slow_total', { reason: 'queue' });
    const normal = [live(sseClient(), 'subscription { postCreated { id } }'), live((await wsSubscriber()).client, 'subscription { postCreated { id } }')];
    const slow = await rawSocket(urls.ws, 'subscription { postCreated { id title body } }');
    cleanups.push(() => slow.socket.terminate());
    await waitForSubscribers(app, 'postCreated', 3);
    slow.socket.pause();

    const ids = await writeUntil(() => busSubscribers(app, 'postCreated') < 3);
    const last = await createPost('after the slow one left', 'short');
    for (const subscription of normal) expect((await subscription.received(ids.length + 1, 30_000)).map((post) => post.id)).toEqual([...ids, last]);
    expect(await metricValue(app, 'subscribers_too_slow_total', { reason: 'queue' })).toBe(before + 1);

    slow.socket.resume();
    await until('the complete message', () => slow.messages.at(-1)?.type === 'complete');
    const results = slow.messages.filter((message) => message.type === 'next').map((message) => message.payload!);
    const error = results.at(-1)!;
    expect(error.errors).toHaveLength(1);
    expect(error.errors![0].extensions).toEqual(TOO_SLOW);
    const received = results.slice(0, -1).map((result) => result.data.postCreated.id);
    expect(received.length).toBeGreaterThan(MAX_QUEUE);
    expect(received).toEqual(ids.slice(0, received.length));
    expect(received.length).toBeLessThan(ids.length);
    // The socket stays open for other operations.
    expect(slow.socket.readyState).toBe(WebSocket.OPEN);
  }, 90_000);

  it(`SSE: an events stream whose client takes nothing for ${STALL_MS} ms ends with SUBSCRIBER_TOO_SLOW and extensions.after; resuming from it misses nothing`, async () => {
    const before = await metricValue(app, 'subscribers_too_slow_total', { reason: 'stall' });
    const standing = listenersOfEveryEvent(app);
    const start = (await cursors()).at(-1);
    // More than the sockets between server and client hold.
    for (let index = 0; index < 80; index++) await createPost(`replayed ${index}`);
    // On PostgreSQL an event is readable once every transaction older than its own has ended (in
    // the whole cluster), which may take a moment.
    let all: string[] = [];
    await until('the 80 events to be readable', async () => (all = await cursors(start)).length === 80, 30_000);

    const query = 'subscription($after: String) { events(after: $after) { cursor post { id body } } }';
    const slow = await heldStream(urls.http, { query, variables: { after: start } });
    cleanups.push(() => slow.close());
    expect(slow.status).toBe(200);
    // The server gives up on it: its events stream stops listening.
    await until('the stalled stream to end', () => listenersOfEveryEvent(app) === standing, 4 * STALL_MS);
    expect(await metricValue(app, 'subscribers_too_slow_total', { reason: 'stall' })).toBe(before + 1);

    slow.resume();
    await slow.ended;
    const events = slow.events;
    expect(events.at(-1)).toEqual({ event: 'complete', data: undefined });
    const errors = events.at(-2)!.data.errors;
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/SUBSCRIPTIONS_STALL_TIMEOUT_MS/);
    const first = events.slice(0, -2).map((event) => event.data.data.events.cursor as string);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(all.length);
    expect(errors[0].extensions).toEqual({ ...TOO_SLOW, after: first.at(-1) });

    // Resuming after the cursor the error gave: the rest, none missed, none twice.
    const resumed = live(sseClient(), query, { after: errors[0].extensions.after });
    const rest = await resumed.received(all.length - first.length);
    expect([...first, ...rest.map((event) => event.cursor)]).toEqual(all);
    await sleep(200);
    expect(resumed.results).toHaveLength(all.length - first.length);
  }, 90_000);
});
