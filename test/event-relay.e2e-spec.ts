import type { PubSubEngine } from 'graphql-subscriptions';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_AUDIENCE } from '../src/auth/read-policy.js';
import { TransactionRunner } from '../src/common/persistence/transaction-runner.js';
import { ResourceCatalog } from '../src/common/resource/resource-catalog.js';
import { event } from '../src/events/blog-events.js';
import { EventPublisher } from '../src/events/event-publisher.js';
import { EVERY_EVENT, EventRelay, LOCAL_EVENTS, type LoggedEvent } from '../src/events/event-relay.js';
import type { EventPosition } from '../src/events/event-cursor.js';
import { OutboxRepository, type StoredEvent } from '../src/events/outbox.repository.js';
import { Post } from '../src/posts/post.entity.js';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { TEST_DATABASE_URL } from './support/databases.js';
import { metricValue } from './support/graphql-client.js';
import { type ListeningApp, LiveSubscription, listen, sleep, until, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The relay reads the event log in commit order on PostgreSQL: an event is not read while a
 * transaction that began before its own is still open (that transaction may yet add events
 * with lower ids), so nothing is skipped; once it ends, the waiting events follow, in order.
 */
describe.skipIf(!TEST_DATABASE_URL)('event relay on PostgreSQL: commit order', () => {
  let app: TestApp;
  let urls: ListeningApp;
  let client: WsClient;
  let token: string;
  let holder: pg.Client;

  beforeAll(async () => {
    app = await startTestApp('postgres');
    urls = await listen(app);
    client = wsClient(urls.ws);
    token = await tokenFor(app, ALICE);
    holder = new pg.Client({ connectionString: app.config.database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.query('ROLLBACK').catch(() => undefined);
    await holder?.end();
    await client?.dispose();
    await app?.close();
  });

  it('an event waits while an older transaction is open, and is published once it ends, once', async () => {
    const live = new LiveSubscription(client.client, 'subscription { postCreated { id title } }');
    await waitForSubscribers(app, 'postCreated', 1);

    // An older transaction holds its id open (as a slow write would).
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
    const created = await request(app.server).post('/posts').set(bearer(token)).send({ title: 'after an older transaction', body: 'b' }).expect(201);

    await sleep(1500); // more than the relay's poll: it has looked, and must not have published
    expect(live.results).toEqual([]);
    const relay = app.app.get(EventRelay);
    const held = relay.published;

    await holder.query('COMMIT');
    await until('the event, once the older transaction ended', () => live.results.length === 1, 5_000);
    expect(live.results[0].data).toEqual({ postCreated: { id: created.body.id, title: 'after an older transaction' } });
    expect(relay.published.id).toBeGreaterThan(held.id);
    await sleep(300);
    expect(live.results).toHaveLength(1);
    live.dispose();
  });

  it('a transaction open in another database of the cluster holds nothing back (it cannot write these events)', async () => {
    const live = new LiveSubscription(client.client, 'subscription { postCreated { id title } }');
    await waitForSubscribers(app, 'postCreated', 1);
    // TEST_DATABASE_URL's own database: every test database is made beside it.
    const elsewhere = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      const created = await request(app.server).post('/posts').set(bearer(token)).send({ title: 'beside another database', body: 'b' }).expect(201);
      await until('the event, while the other database holds a transaction open', () => live.results.length === 1, 5_000);
      expect(live.results[0].data).toEqual({ postCreated: { id: created.body.id, title: 'beside another database' } });
      expect(await metricValue(app, 'events_relay_held_back')).toBe(0);
    } finally {
      await elsewhere.query('ROLLBACK').catch(() => undefined);
      await elsewhere.end();
      live.dispose();
    }
  });

  it('a comment hidden before the relay read its COMMENT_CREATED: commentCreated gets nothing (no error), the feed its ids without text', async () => {
    const admin = await tokenFor(app, ADMIN);
    const post = await request(app.server).post('/posts').set(bearer(token)).send({ title: 'talked about', body: 'b' }).expect(201);
    const created = new LiveSubscription(client.client, 'subscription($postId: Int) { commentCreated(postId: $postId) { id body } }', { postId: post.body.id });
    const feed = new LiveSubscription(client.client, 'subscription($postId: Int) { events(postId: $postId) { type commentId comment { body } } }', { postId: post.body.id });
    await waitForSubscribers(app, 'commentCreated', 1);
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
    let commentId: number;
    try {
      const comment = await request(app.server).post(`/posts/${post.body.id}/comments`).set(bearer(token)).send({ body: 'soon hidden' }).expect(201);
      commentId = comment.body.id;
      await request(app.server).patch(`/comments/${commentId}`).set(bearer(admin)).send({ status: 'hidden' }).expect(200);
    } finally {
      await holder.query('COMMIT');
    }
    await until('the feed gets both events', () => feed.results.length >= 2, 10_000);
    const events = feed.results.map((result) => result.data?.events as { type: string; commentId: number; comment: { body: string } | null });
    expect(events.map((item) => item.type)).toEqual(['COMMENT_CREATED', 'COMMENT_DELETED']);
    expect(events[0]).toMatchObject({ commentId: commentId!, comment: null });
    await sleep(300);
    expect(created.results).toEqual([]);
    created.dispose();
    feed.dispose();
  });

  it('/metrics says how many committed events are held back and how long the oldest has waited, and 0 once they are published', async () => {
    const heldBack = () => metricValue(app, 'events_relay_held_back');
    const age = () => metricValue(app, 'events_relay_held_back_age_seconds');
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
    try {
      await request(app.server).post('/posts').set(bearer(token)).send({ title: 'held back', body: 'b' }).expect(201);
      await request(app.server).post('/posts').set(bearer(token)).send({ title: 'held back too', body: 'b' }).expect(201);
      // Other suites' transactions on the cluster may hold back more: at least these two.
      await until('both events counted as held back', async () => (await heldBack()) >= 2, 5_000);
      const first = await age();
      expect(first).toBeGreaterThan(0);
      await until('the oldest one waiting longer', async () => (await age()) > first, 5_000);
    } finally {
      await holder.query('COMMIT');
    }
    await until('nothing held back once the older transaction ended', async () => (await heldBack()) === 0 && (await age()) === 0, 30_000);
  });
});

/**
 * The hand-over (SQLite): a write's events reach the relay as its transaction commits and are
 * published without reading the log back when they follow on from the relay's position; other
 * writes (comments, whose event is an INSERT made from the new row) are read from the log. Mixed
 * and concurrent, with rejected writes and a transaction that records an event and rolls back:
 * every committed event is published once, in log order, with the payload the log holds, and
 * nothing of what rolled back. PostgreSQL (other instances write the same log) always reads it.
 */
describeEachDatabase('event relay: events handed over at commit, and read from the log', (kind) => {
  let app: TestApp;
  let token: string;
  let relay: EventRelay;
  let outbox: OutboxRepository;
  const published: LoggedEvent[] = [];
  let subscription: number | undefined;

  beforeAll(async () => {
    app = await startTestApp(kind);
    token = await tokenFor(app, ALICE);
    relay = app.app.get(EventRelay);
    outbox = app.app.get(OutboxRepository);
    const bus = app.app.get<PubSubEngine>(LOCAL_EVENTS);
    subscription = await bus.subscribe(EVERY_EVENT, (logged: LoggedEvent) => void published.push(logged), {});
  });
  afterAll(async () => {
    if (subscription !== undefined) app?.app.get<PubSubEngine>(LOCAL_EVENTS).unsubscribe(subscription);
    await app?.close();
  });

  const createPost = (title: string) => request(app.server).post('/posts').set(bearer(token)).send({ title, body: `body of ${title}` });

  /** A transaction that records a postCreated event, then fails: it rolls back. */
  async function recordAndRollBack(title: string): Promise<void> {
    const fake = Object.assign(new Post(), { id: 900_000, title, body: 'never', authorId: 1, status: 'published', version: 1, tags: [] });
    fake.createdAt = fake.updatedAt = fake.publishedAt = new Date();
    const failure = new Error('rolled back on purpose');
    await expect(
      app.app.get(TransactionRunner).run(async (manager) => {
        await app.app.get(EventPublisher).record(manager, event('postCreated', fake, PUBLIC_AUDIENCE));
        throw failure;
      }),
    ).rejects.toBe(failure);
  }

  /**
   * Once the relay has published `count` events after `start` (on PostgreSQL an event is readable
   * only once every transaction of its database that began before it has ended), and is idle.
   */
  async function publishedAfter(start: EventPosition, count: number): Promise<StoredEvent[]> {
    const log = await until(
      `${count} events in the log, published`,
      async () => {
        await relay.quiet();
        const events = await outbox.after(start, 1000);
        return events.length >= count && relay.published.id === events.at(-1)!.id && events;
      },
      30_000,
    );
    await relay.quiet();
    return log;
  }

  it('24 concurrent writes: every committed event once, in log order, with the log’s payload; nothing rolled back', async () => {
    await relay.quiet();
    const before = relay.published;
    const post = await createPost('commented on').expect(201);
    const [created] = await publishedAfter(before, 1);
    expect(created.refs.postId).toBe(post.body.id);
    const start = relay.published;
    const handedBefore = relay.handedOver;
    published.length = 0;

    const writes: Promise<unknown>[] = [];
    for (let index = 0; index < 24; index += 1) {
      switch (index % 6) {
        case 0:
        case 3:
        case 5:
          writes.push(createPost(`handed ${index}`).expect(201));
          break;
        case 1:
        case 4:
          writes.push(request(app.server).post(`/posts/${post.body.id}/comments`).set(bearer(token)).send({ body: `comment ${index}` }).expect(201));
          break;
        default:
          // A rejected post (no title: a validation error) and a rolled-back transaction, in turn.
          writes.push(index % 12 === 2 ? createPost('').expect(400) : recordAndRollBack(`rolled back ${index}`));
      }
    }
    await Promise.all(writes);
    const log = await publishedAfter(start, 20);
    expect(log.map((entry) => entry.type).sort()).toEqual([...Array<string>(12).fill('POST_CREATED'), ...Array<string>(8).fill('COMMENT_CREATED')].sort());
    // Once each, in the log's order, as the log holds them.
    expect(published.map(({ tx, id }) => ({ tx, id }))).toEqual(log.map(({ tx, id }) => ({ tx, id })));
    published.forEach((sent, index) => {
      const stored = log[index];
      expect({ ...sent, cursor: undefined, name: undefined, payload: undefined }).toEqual({ ...stored, cursor: undefined, name: undefined, payload: undefined });
      const definition = app.app.get(ResourceCatalog).ofEvent(sent.name)!;
      expect(sent.payload).toEqual(definition.fromJson(stored.resource!));
      expect(sent.payload).toBeInstanceOf(definition.entity);
    });
    expect(published.some((sent) => JSON.stringify(sent.payload).includes('rolled back'))).toBe(false);
    if (kind === 'postgres') expect(relay.handedOver).toBe(handedBefore);
    else expect(relay.handedOver).toBeGreaterThanOrEqual(handedBefore);
  });

  it.runIf(kind === 'sqlite')('a post written while the relay is idle is handed over: published once, without reading it back', async () => {
    // A read of the log on the relay's one-second timer may take it first (then it is published from the log): a few tries.
    let handed = false;
    for (let attempt = 0; attempt < 5 && !handed; attempt += 1) {
      await relay.quiet();
      const start = relay.published;
      const before = relay.handedOver;
      published.length = 0;
      const created = await createPost(`alone ${attempt}`).expect(201);
      await publishedAfter(start, 1);
      expect(published.map((sent) => (sent.payload as { id: number }).id)).toEqual([created.body.id]);
      handed = relay.handedOver === before + 1;
    }
    expect(handed).toBe(true);
  });
});
