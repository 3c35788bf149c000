import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createSseClient } from 'graphql-sse';
import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { EventAudience } from '../src/auth/read-policy.js';
import { TransactionRunner } from '../src/common/persistence/transaction-runner.js';
import { type BlogEvent, event } from '../src/events/blog-events.js';
import { EventPublisher } from '../src/events/event-publisher.js';
import { EVERY_EVENT, LOCAL_EVENTS } from '../src/events/event-relay.js';
import { Post } from '../src/posts/post.entity.js';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { type ListeningApp, listen, LiveSubscription, type OperationClient, until, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Who receives which event (CONTRACT §7): each event carries its audience, and every door keeps
 * what the reader may see — GET /events (JSON, XML, one event by cursor, pages), the `events`
 * subscription (replay and live, WebSocket and SSE), the v1 subscriptions (postCreated when a post
 * becomes visible to the subscriber, postDeleted when it stops being), and webhooks (public only).
 * Restricted events are recorded here directly, as the posts' write path records them for drafts.
 */

const ALICE_ID = 2;
const RESTRICTED_TO_ALICE: EventAudience = { audience: 'restricted', owner: ALICE_ID };

type Reader = 'anonymous' | 'bob' | 'alice' | 'admin';
const READERS: Reader[] = ['anonymous', 'bob', 'alice', 'admin'];
/** Who sees alice's non-public posts: herself and admins. */
const seesAlicesDrafts = (reader: Reader) => reader === 'alice' || reader === 'admin';

let nextDraftId = 900_000;

/** A post of alice's as an event carries it (no row is needed: the log holds the resource). */
function alicesPost(title: string, id = nextDraftId++): Post {
  const now = new Date();
  return Object.assign(new Post(), { id, title, body: `${title}: the body`, authorId: ALICE_ID, createdAt: now, updatedAt: now, version: 1 });
}

interface EventItem {
  cursor: string;
  type: string;
  postId?: number;
  resource?: { title?: string };
}

function everyEventListeners(app: TestApp): number {
  const pubSub = app.app.get<symbol, PubSubEngine>(LOCAL_EVENTS, { strict: false });
  if (!(pubSub instanceof PubSub)) throw new Error('Unknown event bus');
  return (pubSub as unknown as { ee: { listenerCount(name: string): number } }).ee.listenerCount(EVERY_EVENT);
}

describeEachDatabase('event audiences: each reader gets the events it may see, on every door', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  const tokens = {} as Record<Reader, string | undefined>;
  const clients: WsClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const closers: (() => unknown)[] = [];
  let standingListeners = 0;

  /** Records events in one transaction, as a write does, and lets the relay publish them. */
  async function record(...events: BlogEvent[]): Promise<void> {
    const publisher = app.app.get(EventPublisher);
    await app.app.get(TransactionRunner).run((manager) => publisher.record(manager, ...events));
    publisher.committed();
  }

  const auth = (reader: Reader) => (tokens[reader] ? bearer(tokens[reader]) : {});

  /** Every event after `after` a reader gets from GET /events, following Link rel="next"; and how many pages it took. */
  async function feed(reader: Reader, after: string | undefined, limit = 100): Promise<{ events: EventItem[]; pages: number }> {
    const events: EventItem[] = [];
    let pages = 0;
    let url: string | null = `/events?limit=${limit}${after ? `&after=${after}` : ''}`;
    while (url) {
      const response: request.Response = await request(app.server).get(url).set(auth(reader)).expect(200);
      pages += 1;
      events.push(...(response.body as EventItem[]));
      url = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
      if (pages > 50) throw new Error('GET /events keeps giving a next page');
    }
    return { events, pages };
  }

  const head = async () => (await feed('admin', undefined)).events.at(-1)?.cursor;

  async function wsOperations(reader: Reader): Promise<OperationClient> {
    const ws = wsClient(urls.ws, { token: tokens[reader] });
    clients.push(ws);
    await ws.connected;
    return ws.client;
  }

  function sseOperations(reader: Reader): OperationClient {
    const client = createSseClient({
      url: `${urls.http}/graphql/stream`,
      singleConnection: false,
      retryAttempts: 0,
      headers: tokens[reader] ? { authorization: `Bearer ${tokens[reader]}` } : {},
    });
    closers.push(() => client.dispose());
    return client;
  }

  const subscribe = (client: OperationClient, query: string, variables?: Record<string, unknown>) => {
    const subscription = new LiveSubscription(client, query, variables);
    subscriptions.push(subscription);
    return subscription;
  };

  const EVENTS = 'subscription($after: String) { events(after: $after) { cursor type postId post { title } } }';

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' } });
    standingListeners = everyEventListeners(app);
    urls = await listen(app);
    tokens.anonymous = undefined;
    tokens.bob = await tokenFor(app, BOB);
    tokens.alice = await tokenFor(app, ALICE);
    tokens.admin = await tokenFor(app, ADMIN);
    // The log is not empty: every test starts after its last event.
    await request(app.server).post('/posts').set(bearer(tokens.bob)).send({ title: 'First', body: 'b' }).expect(201);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    for (const close of closers.splice(0)) await close();
    await until('no events subscriber left', () => everyEventListeners(app) === standingListeners);
  });
  afterAll(() => app?.close());

  it('GET /events: restricted events reach their owner and admins only, in JSON, in XML and by cursor', async () => {
    const start = await head();
    const draft = alicesPost('Alice draft, not for the world');
    await record(event('postCreated', draft, RESTRICTED_TO_ALICE));
    const open = (await request(app.server).post('/posts').set(auth('bob')).send({ title: 'Bob in the open', body: 'b' }).expect(201)).body as { id: number };

    for (const reader of READERS) {
      const { events } = await feed(reader, start);
      const expected = seesAlicesDrafts(reader) ? [draft.id, open.id] : [open.id];
      expect(events.map((item) => item.postId), reader).toEqual(expected);
      if (seesAlicesDrafts(reader)) expect(events[0].resource?.title).toBe(draft.title);

      const xml = await request(app.server).get(`/events?limit=100${start ? `&after=${start}` : ''}`).set(auth(reader)).set('Accept', 'application/xml').expect(200);
      expect(xml.text.includes(draft.title), `${reader}, XML`).toBe(seesAlicesDrafts(reader));
      expect(xml.text).toContain('Bob in the open');
    }
    const hidden = (await feed('alice', start)).events[0].cursor;
    for (const reader of READERS) {
      const response = await request(app.server).get(`/events/${hidden}`).set(auth(reader));
      expect(response.status, reader).toBe(seesAlicesDrafts(reader) ? 200 : 404);
      expect(response.text.includes(draft.title), reader).toBe(seesAlicesDrafts(reader));
    }
  });

  it('GET /events: pages skip hidden events, stay full and end, whatever lies between', async () => {
    const start = await head();
    const titles: string[] = [];
    // Public, then hidden ones between and after: the cursors must move past them.
    for (let round = 0; round < 3; round += 1) {
      const title = `Public ${round}`;
      titles.push(title);
      await request(app.server).post('/posts').set(auth('bob')).send({ title, body: 'b' }).expect(201);
      await record(event('postCreated', alicesPost(`Hidden ${round}a`), RESTRICTED_TO_ALICE), event('postUpdated', alicesPost(`Hidden ${round}b`), RESTRICTED_TO_ALICE));
    }
    const anonymous = await feed('anonymous', start, 1);
    expect(anonymous.events.map((item) => item.resource?.title)).toEqual(titles);
    // One public event a page; the page after the last one read finds nothing more and says so.
    expect(anonymous.pages).toBeLessThanOrEqual(titles.length + 1);
    const pages = await feed('anonymous', start, 2);
    expect(pages.events.map((item) => item.resource?.title)).toEqual(titles);
    const alice = await feed('alice', start, 2);
    expect(alice.events).toHaveLength(9);
  });

  it('the events subscription: replay and live keep what each reader may see, over WebSocket and SSE', async () => {
    const start = await head();
    const draft = alicesPost('Replayed draft');
    await record(event('postCreated', draft, RESTRICTED_TO_ALICE));
    const marker = (await request(app.server).post('/posts').set(auth('bob')).send({ title: 'Replay marker', body: 'b' }).expect(201)).body as { id: number };

    const replays = new Map<string, LiveSubscription>();
    const lives = new Map<string, LiveSubscription>();
    for (const reader of READERS) {
      for (const transport of ['ws', 'sse'] as const) {
        const operations = transport === 'ws' ? await wsOperations(reader) : sseOperations(reader);
        replays.set(`${reader} ${transport}`, subscribe(operations, EVENTS, { after: start }));
        lives.set(`${reader} ${transport}`, subscribe(operations, EVENTS));
      }
    }
    for (const [who, subscription] of replays) {
      const expected = seesAlicesDrafts(who.split(' ')[0] as Reader) ? [draft.id, marker.id] : [marker.id];
      const got = await subscription.received(expected.length);
      expect(got.map((item: { postId: number }) => item.postId), who).toEqual(expected);
    }
    // Every live subscriber listens (replays too are live once caught up).
    await until('every events subscriber to listen', () => everyEventListeners(app) - standingListeners === replays.size + lives.size);

    const liveDraft = alicesPost('Live draft');
    await record(event('postCreated', liveDraft, RESTRICTED_TO_ALICE));
    const liveMarker = (await request(app.server).post('/posts').set(auth('bob')).send({ title: 'Live marker', body: 'b' }).expect(201)).body as { id: number };
    for (const [who, subscription] of lives) {
      const expected = seesAlicesDrafts(who.split(' ')[0] as Reader) ? [liveDraft.id, liveMarker.id] : [liveMarker.id];
      // The marker comes after the draft: once it is there, a leaked draft would be too.
      const got = await subscription.received(expected.length);
      await until(`${who}: the marker`, () => subscription.results.some((result) => result.data?.events?.postId === liveMarker.id));
      expect(subscription.values.map((item: { postId: number }) => item.postId), who).toEqual(expected);
      expect(got.length).toBeGreaterThan(0);
    }
  });

  it('v1 postCreated fires when a post becomes visible to the subscriber, postDeleted when it stops being', async () => {
    const POST_CREATED = 'subscription { postCreated { id title author { name } } }';
    const POST_DELETED = 'subscription { postDeleted }';
    const POST_UPDATED = 'subscription { postUpdated { id title } }';
    const created = new Map<string, LiveSubscription>();
    const deleted = new Map<string, LiveSubscription>();
    const updated = new Map<string, LiveSubscription>();
    for (const reader of READERS) {
      for (const transport of ['ws', 'sse'] as const) {
        const operations = transport === 'ws' ? await wsOperations(reader) : sseOperations(reader);
        created.set(`${reader} ${transport}`, subscribe(operations, POST_CREATED));
        deleted.set(`${reader} ${transport}`, subscribe(operations, POST_DELETED));
        updated.set(`${reader} ${transport}`, subscribe(operations, POST_UPDATED));
      }
    }
    await waitForSubscribers(app, 'postCreated', created.size);
    await waitForSubscribers(app, 'postPublished', created.size);
    await waitForSubscribers(app, 'postDeleted', deleted.size);
    await waitForSubscribers(app, 'postUnpublished', deleted.size);
    await waitForSubscribers(app, 'postUpdated', updated.size);

    // A draft, edited, published, unpublished (trashed), then deleted for good.
    const id = nextDraftId++;
    await record(event('postCreated', alicesPost('Draft title', id), RESTRICTED_TO_ALICE));
    await record(event('postUpdated', alicesPost('Draft edited', id), RESTRICTED_TO_ALICE));
    await record(event('postPublished', alicesPost('Published title', id)));
    await record(event('postUnpublished', { id, authorId: ALICE_ID }));
    await record(event('postDeleted', { id, authorId: ALICE_ID }, RESTRICTED_TO_ALICE));
    // Then a public post, created, changed and deleted: the marker that everything before has arrived.
    const marker = (await request(app.server).post('/posts').set(auth('bob')).send({ title: 'Public marker', body: 'b' }).expect(201)).body as { id: number };
    await request(app.server).patch(`/posts/${marker.id}`).set(auth('bob')).send({ title: 'Public marker, changed' }).expect(200);
    // Trashed, then deleted for good: each reader's postDeleted of it comes from one or the other.
    await request(app.server).delete(`/posts/${marker.id}`).set(auth('bob')).expect(204);
    await request(app.server).delete(`/posts/${marker.id}`).set(auth('bob')).expect(204);

    const waitFor = async (subscription: LiveSubscription, markerValue: (value: unknown) => boolean, who: string) => {
      await until(`${who}: the marker`, () => subscription.results.some((result) => markerValue(Object.values(result.data ?? {})[0])));
      return subscription.values;
    };
    for (const reader of READERS) {
      for (const transport of ['ws', 'sse']) {
        const who = `${reader} ${transport}`;
        const creations = await waitFor(created.get(who)!, (value) => (value as { id: number }).id === marker.id, who);
        const titles = creations.map((post: { title: string }) => post.title);
        // The author and admins saw the draft appear; everyone else sees the post when it is published.
        expect(titles, who).toEqual([seesAlicesDrafts(reader) ? 'Draft title' : 'Published title', 'Public marker']);
        expect(creations[0].author).toEqual({ name: expect.any(String) });

        const deletions = await waitFor(deleted.get(who)!, (value) => value === marker.id, who);
        // Unpublishing hides it from everyone else; for its author and admins it goes when deleted for good.
        // The public POST_DELETED may name a post again for those who heard its POST_UNPUBLISHED (ids only).
        expect([...new Set(deletions)], who).toEqual([id, marker.id]);

        const updates = await waitFor(updated.get(who)!, (value) => (value as { id: number }).id === marker.id, who);
        // Up to the marker's edit: its trash is a restricted POST_UPDATED that its author and admins get too.
        const upToMarker = updates.slice(0, updates.findIndex((post: { id: number }) => post.id === marker.id) + 1);
        expect(
          upToMarker.map((post: { title: string }) => post.title),
          who,
        ).toEqual(seesAlicesDrafts(reader) ? ['Draft edited', 'Public marker, changed'] : ['Public marker, changed']);
      }
    }
  });

  it('webhooks: only public events are queued and sent', async () => {
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const webhook = (await request(app.server).post('/webhooks').set(auth('admin')).send({ url, types: ['POST_CREATED', 'POST_PUBLISHED', 'POST_UNPUBLISHED'] }).expect(201)).body as { id: number };
    closers.push(() => request(app.server).delete(`/webhooks/${webhook.id}`).set(auth('admin')));

    const id = nextDraftId++;
    await record(event('postCreated', alicesPost('Webhook draft', id), RESTRICTED_TO_ALICE));
    await record(event('postPublished', alicesPost('Webhook published', id)), event('postUnpublished', { id, authorId: ALICE_ID }));
    const marker = (await request(app.server).post('/posts').set(auth('bob')).send({ title: 'Webhook marker', body: 'b' }).expect(201)).body as { id: number };

    // Deliveries are queued in log order: once the marker's is sent, an earlier one would have been queued.
    await until('the marker delivered', () => bodies.some((body) => body.includes('Webhook marker')));
    await until('every queued delivery sent', async () => {
      const attempts = (await request(app.server).get(`/webhooks/${webhook.id}/deliveries`).set(auth('admin')).expect(200)).body as unknown[];
      return attempts.length === bodies.length && attempts.length >= 3;
    });
    const sent = bodies.map((body) => JSON.parse(body) as { type: string; data: { postId: number } });
    expect(sent.map((body) => `${body.type} ${body.data.postId}`).sort()).toEqual([`POST_CREATED ${marker.id}`, `POST_PUBLISHED ${id}`, `POST_UNPUBLISHED ${id}`].sort());
    expect(bodies.join('\n')).not.toContain('Webhook draft');
  });
});
