import { type Client as SseClient, createClient as createSseClient } from 'graphql-sse';
import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Sql } from '../src/common/persistence/sql.js';
import { sql as statement } from '../src/common/persistence/sql-template.js';
import { EventRetention } from '../src/event-log/event-retention.js';
import { decodeEventCursor, isAfter } from '../src/events/event-cursor.js';
import { EVERY_EVENT, EventRelay, LOCAL_EVENTS } from '../src/events/event-relay.js';
import { ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { metricValue } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { errorCodes, type ListeningApp, LiveSubscription, listen, type OperationClient, sleep, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The readers of the durable event log: GET /events (every representation, paged by cursor, by
 * type), the `events` subscription (replay from a cursor, then live, with nothing missed or
 * repeated while writes go on; resume after a disconnect; over WebSocket and SSE), and retention
 * (a cursor from before what was pruned is CURSOR_EXPIRED).
 */

const ALICE_ID = 2;
const BOB_ID = 3;
/** How long to keep listening after the last expected event before asserting that nothing else came. */
const SETTLE_MS = 300;

interface EventItem {
  cursor: string;
  type: string;
  occurredAt: string;
  postId?: number;
  commentId?: number;
  authorId: number;
  resource?: Record<string, unknown>;
}

const EVENT_FIELDS = 'cursor type occurredAt postId commentId authorId post { id title } comment { id body }';
const EVENTS = `subscription($after: String, $types: [EventType!], $postId: Int, $authorId: Int) {
  events(after: $after, types: $types, postId: $postId, authorId: $authorId) { ${EVENT_FIELDS} }
}`;

function listenersOfEveryEvent(app: TestApp): number {
  const pubSub = app.app.get<symbol, PubSubEngine>(LOCAL_EVENTS, { strict: false });
  if (!(pubSub instanceof PubSub)) throw new Error('Unknown event bus');
  return (pubSub as unknown as { ee: { listenerCount(name: string): number } }).ee.listenerCount(EVERY_EVENT);
}

/** What listens on the every-event channel before any subscriber does (the webhook dispatcher). */
const standing = new WeakMap<TestApp, number>();
const noteStandingListeners = (app: TestApp) => standing.set(app, listenersOfEveryEvent(app));

/** `events` subscribers on the relay's every-event channel: one is live once it is counted here. */
function eventListeners(app: TestApp): number {
  return listenersOfEveryEvent(app) - (standing.get(app) ?? 0);
}

/** Every event after `after` (all kept without it), following Link rel="next". */
async function allEvents(app: TestApp, after?: string, query = ''): Promise<EventItem[]> {
  const events: EventItem[] = [];
  let url: string | null = `/events?limit=100${query}${after ? `&after=${after}` : ''}`;
  while (url) {
    const response: request.Response = await request(app.server).get(url).expect(200);
    events.push(...(response.body as EventItem[]));
    url = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
  }
  return events;
}

async function lastCursor(app: TestApp): Promise<string | undefined> {
  return (await allEvents(app)).at(-1)?.cursor;
}

/** Writes posts one after another until stopped; each write is acknowledged before the next. */
function writer(app: TestApp, token: string, label: string) {
  let running = true;
  let written = 0;
  const done = (async () => {
    while (running) {
      await request(app.server).post('/posts').set(bearer(token)).send({ title: `${label} ${written}`, body: 'b' }).expect(201);
      written += 1;
    }
  })();
  return {
    get written() {
      return written;
    },
    stop: async () => {
      running = false;
      await done;
    },
  };
}

function sseClient(base: string): SseClient<false> {
  return createSseClient({ url: `${base}/graphql/stream`, singleConnection: false, retryAttempts: 0 });
}

const cursorsOf = (items: { cursor: string }[]) => items.map((item) => item.cursor);

/** The error codes a subscription was answered with (a result with errors, or an error message), and that it then ended. */
async function refusal(subscription: LiveSubscription): Promise<string[]> {
  await until('the subscription to be refused', () => subscription.results.length > 0 || subscription.error !== undefined);
  if (subscription.error !== undefined) return errorCodes(subscription.error);
  await until('the subscription to complete', () => subscription.completed);
  expect(subscription.results).toHaveLength(1);
  return (subscription.results[0].errors ?? []).map((error) => error.extensions?.code ?? '(none)');
}

describeEachDatabase('the event log: GET /events and the events subscription', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let alice: string;
  let bob: string;
  const clients: WsClient[] = [];
  const sse: SseClient[] = [];
  const subscriptions: LiveSubscription[] = [];

  const subscribe = async (variables: Record<string, unknown>, client?: OperationClient) => {
    let operations = client;
    if (!operations) {
      const ws = wsClient(urls.ws);
      clients.push(ws);
      await ws.connected;
      operations = ws.client;
    }
    const subscription = new LiveSubscription(operations, EVENTS, variables);
    subscriptions.push(subscription);
    return subscription;
  };

  beforeAll(async () => {
    app = await startTestApp(kind);
    noteStandingListeners(app);
    urls = await listen(app);
    alice = await tokenFor(app, ALICE);
    bob = await tokenFor(app, BOB);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    for (const client of sse.splice(0)) client.dispose();
    await until('no events subscriber left', () => eventListeners(app) === 0);
  });
  afterAll(() => app?.close());

  it('GET /events: the events of writes in order, each with the resource as the write left it (until it is deleted)', async () => {
    const start = await lastCursor(app);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Logged', body: 'one' }).expect(201)).body;
    const changed = (await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'Logged again' }).expect(200)).body;
    const comment = (await request(app.server).post(`/posts/${post.id}/comments`).set(bearer(bob)).send({ body: 'A remark' }).expect(201)).body;
    const edited = (await request(app.server).patch(`/comments/${comment.id}`).set(bearer(bob)).send({ body: 'A better remark' }).expect(200)).body;
    const beforeDeletions = (await request(app.server).get(`/events?limit=100${start ? `&after=${start}` : ''}`).expect(200)).body as EventItem[];
    await request(app.server).delete(`/comments/${comment.id}`).set(bearer(bob)).expect(204);
    // To the trash (the public hears POST_UNPUBLISHED), then for good.
    await request(app.server).delete(`/posts/${post.id}`).set(bearer(alice)).expect(204);
    await request(app.server).delete(`/posts/${post.id}`).set(bearer(alice)).expect(204);

    const response = await request(app.server).get(`/events?limit=100${start ? `&after=${start}` : ''}`).expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers.link).toBeUndefined();
    const events = response.body as EventItem[];
    expect(events.map((event) => event.type)).toEqual(['POST_CREATED', 'POST_UPDATED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED', 'POST_UNPUBLISHED', 'POST_DELETED']);
    const [, , , , commentDeleted, unpublished, deleted] = events;
    const [created, updated, commented, commentEdited] = beforeDeletions;
    expect(events.slice(0, 4)).toEqual(beforeDeletions.map(({ resource: _erased, ...rest }) => rest));
    // The log's copy is the post as anyone may read it: without the revisions link its author got.
    const logged = ({ _links: { revisions: _revisions, ...links }, ...fields }: { _links: Record<string, unknown> }) => ({ ...fields, _links: links });
    expect(created).toEqual({ cursor: expect.any(String), type: 'POST_CREATED', occurredAt: expect.any(String), postId: post.id, authorId: ALICE_ID, resource: logged(post) });
    expect(updated.resource).toEqual(logged(changed));
    expect(commented).toEqual({
      cursor: expect.any(String),
      type: 'COMMENT_CREATED',
      occurredAt: expect.any(String),
      postId: post.id,
      commentId: comment.id,
      authorId: BOB_ID,
      resource: comment,
    });
    expect(commentEdited.resource).toEqual(edited);
    expect(commentDeleted).toEqual({ cursor: expect.any(String), type: 'COMMENT_DELETED', occurredAt: expect.any(String), postId: post.id, commentId: comment.id, authorId: BOB_ID });
    expect(unpublished).toEqual({ cursor: expect.any(String), type: 'POST_UNPUBLISHED', occurredAt: expect.any(String), postId: post.id, authorId: ALICE_ID });
    expect(deleted).toEqual({ cursor: expect.any(String), type: 'POST_DELETED', occurredAt: expect.any(String), postId: post.id, authorId: ALICE_ID });
    for (const event of events) expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
    expect(new Set(cursorsOf(events)).size).toBe(7);

    // The same events from the start of the log end with these.
    expect(cursorsOf((await allEvents(app)).slice(-7))).toEqual(cursorsOf(events));
  });

  it('GET /events: keyset pages by cursor with Link rel="next", and the types filter', async () => {
    const start = await lastCursor(app);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Paged', body: 'b' }).expect(201)).body;
    for (const body of ['one', 'two', 'three']) await request(app.server).post(`/posts/${post.id}/comments`).set(bearer(bob)).send({ body }).expect(201);
    await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ body: 'changed' }).expect(200);
    const expected = await allEvents(app, start);
    expect(expected.map((event) => event.type)).toEqual(['POST_CREATED', 'COMMENT_CREATED', 'COMMENT_CREATED', 'COMMENT_CREATED', 'POST_UPDATED']);

    const pages: EventItem[][] = [];
    let url: string | null = `/events?limit=2${start ? `&after=${start}` : ''}`;
    while (url) {
      const response: request.Response = await request(app.server).get(url).expect(200);
      pages.push(response.body as EventItem[]);
      const next: string | null = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
      if (next) {
        expect(next).toMatch(/^\/events\?limit=2&after=/);
        expect(new URL(next, 'http://x').searchParams.get('after')).toBe(pages.at(-1)!.at(-1)!.cursor);
      }
      url = next;
    }
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(cursorsOf(pages.flat())).toEqual(cursorsOf(expected));

    const first = await request(app.server)
      .get(`/events?limit=2&types=COMMENT_CREATED,POST_UPDATED${start ? `&after=${start}` : ''}`)
      .expect(200);
    expect((first.body as EventItem[]).map((event) => event.type)).toEqual(['COMMENT_CREATED', 'COMMENT_CREATED']);
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)![1];
    expect(next).toMatch(/types=COMMENT_CREATED%2CPOST_UPDATED/);
    const second = await request(app.server).get(next).expect(200);
    expect((second.body as EventItem[]).map((event) => event.type)).toEqual(['COMMENT_CREATED', 'POST_UPDATED']);
    expect(second.headers.link).toBeUndefined();

    expectProblem(await request(app.server).get('/events?types=POST_CREATED,POST_REVIVED'), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get('/events?types='), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get('/events?after=nope'), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get(`/events?after=${Buffer.from('v1:5').toString('base64url')}`), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get('/events?limit=0'), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get('/events?limit=101'), 400, 'BAD_USER_INPUT');
    expectProblem(await request(app.server).get('/events?cursor=x'), 400, 'BAD_USER_INPUT');
  });

  it('GET /events as HAL, XML and HTML; never answered from the response cache', async () => {
    const start = await lastCursor(app);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Tom & <Jerry>', body: 'b' }).expect(201)).body;
    await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Second', body: 'b' }).expect(201);
    const after = start ? `&after=${start}` : '';
    const json = (await request(app.server).get(`/events?limit=1${after}`).expect(200)).body as EventItem[];

    const hal = await request(app.server).get(`/events?limit=1${after}`).set('Accept', 'application/hal+json').expect(200);
    expect(hal.headers['content-type']).toMatch(/^application\/hal\+json/);
    const halBody = JSON.parse(hal.text);
    // As in JSON, with each event's own link (GET /events/{cursor}).
    expect(halBody._embedded.events).toEqual(json.map((event) => ({ ...event, _links: { self: { href: `/events/${event.cursor}` } } })));
    expect(halBody._links.self.href).toBe(`/events?limit=1${after}`);
    expect(halBody._links.next.href).toMatch(/^\/events\?limit=1&after=/);

    const xml = await request(app.server).get(`/events?limit=1${after}`).set('Accept', 'application/xml').expect(200);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(xml.text).toContain(`<events><event><cursor>${json[0].cursor}</cursor><type>POST_CREATED</type>`);
    expect(xml.text).toContain(`<resource><id>${post.id}</id><title>Tom &amp; &lt;Jerry&gt;</title>`);
    expect(xml.text).toContain(`<link rel="self" href="/posts/${post.id}"/><link rel="author" href="/users/${ALICE_ID}"/>`);
    expect(xml.text).toMatch(/<\/resource><\/event><\/events>$/);

    const html = await request(app.server).get(`/events?limit=1${after}`).set('Accept', 'text/html').expect(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toContain('POST_CREATED');
    expect(html.text).toContain(`href="/posts/${post.id}"`);
    expect(html.text).toContain('rel="next"');

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const again = await request(app.server).get(`/events?limit=1${after}`).expect(200);
      expect(again.headers['cache-status']).not.toMatch(/hit/);
    }
  });

  it('GET /events/{cursor}: one event as the list has it, in every format (HAL with _links.self); 404, 400 otherwise', async () => {
    const start = await lastCursor(app);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'One & <only>', body: 'b' }).expect(201)).body;
    const remark = (await request(app.server).post(`/posts/${post.id}/comments`).set(bearer(bob)).send({ body: 'A remark' }).expect(201)).body;
    await request(app.server).delete(`/comments/${remark.id}`).set(bearer(bob)).expect(204);
    const other = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Gone', body: 'b' }).expect(201)).body;
    await request(app.server).delete(`/posts/${other.id}`).set(bearer(alice)).expect(204);
    await request(app.server).delete(`/posts/${other.id}`).set(bearer(alice)).expect(204);
    const events = await allEvents(app, start);
    // The deleted comment's and post's earlier events have lost their content (privacy).
    expect(events.map((event) => [event.type, event.resource !== undefined])).toEqual([
      ['POST_CREATED', true],
      ['COMMENT_CREATED', false],
      ['COMMENT_DELETED', false],
      ['POST_CREATED', false],
      ['POST_UNPUBLISHED', false],
      ['POST_DELETED', false],
    ]);
    const after = start ? `&after=${start}` : '';

    for (const event of events) {
      const one = await request(app.server).get(`/events/${event.cursor}`).expect(200);
      expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(one.body).toEqual(event);
      expect(one.headers.vary).toMatch(/\bAccept\b/);
      const etag = one.headers.etag as string;
      expect(etag).toMatch(/^"[^"]+"$/);
      await request(app.server).get(`/events/${event.cursor}`).set('If-None-Match', etag).expect(304);

      const hal = await request(app.server).get(`/events/${event.cursor}`).set('Accept', 'application/hal+json').expect(200);
      expect(hal.headers['content-type']).toBe('application/hal+json; charset=utf-8');
      expect(JSON.parse(hal.text)).toEqual({ ...event, _links: { self: { href: `/events/${event.cursor}` } } });
    }

    // HAL lists: every item links itself, and the link reads that item.
    const halList = JSON.parse((await request(app.server).get(`/events?limit=100${after}`).set('Accept', 'application/hal+json').expect(200)).text);
    expect(halList._embedded.events).toEqual(events.map((event) => ({ ...event, _links: { self: { href: `/events/${event.cursor}` } } })));

    // XML: the list's <event> element, alone.
    const [created] = events;
    const listXml = (await request(app.server).get(`/events?limit=1${after}`).set('Accept', 'application/xml').expect(200)).text;
    const element = /^<\?xml[^>]*\?><events>(<event>.*<\/event>)<\/events>$/.exec(listXml)![1];
    const oneXml = await request(app.server).get(`/events/${created.cursor}`).set('Accept', 'application/xml').expect(200);
    expect(oneXml.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(oneXml.text).toBe(`<?xml version="1.0" encoding="UTF-8"?>${element}`);
    expect(oneXml.text).toContain('<title>One &amp; &lt;only&gt;</title>');

    const html = await request(app.server).get(`/events/${created.cursor}`).set('Accept', 'text/html').expect(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('<code>POST_CREATED</code>');
    expect(html.text).toContain(`href="/posts/${post.id}"`);
    expect(html.text).toContain(`<a rel="self" href="/events/${created.cursor}">`);
    expect(html.text).not.toContain('One & <only>');
    const htmlList = (await request(app.server).get(`/events?limit=1${after}`).set('Accept', 'text/html').expect(200)).text;
    expect(htmlList).toContain(`href="/events/${created.cursor}"`);

    // A cursor issued before cursors were zero-padded still names its event.
    const { tx, id } = decodeEventCursor(created.cursor);
    const unpadded = Buffer.from(`e1:${tx}:${id}`).toString('base64url');
    expect((await request(app.server).get(`/events/${unpadded}`).expect(200)).body).toEqual(created);
    expect((await request(app.server).get(`/events?limit=1&after=${unpadded}`).expect(200)).body).toEqual([events[1]]);

    const missing = Buffer.from(`e1:${'0'.repeat(15)}:${String(id + 1_000_000).padStart(15, '0')}`).toString('base64url');
    expectProblem(await request(app.server).get(`/events/${missing}`), 404, 'NOT_FOUND');
    expectProblem(await request(app.server).get(`/events/${missing}`).set('Accept', 'application/hal+json'), 404, 'NOT_FOUND');
    for (const bad of ['nope', Buffer.from('v1:5').toString('base64url'), Buffer.from(`e1:${tx}:0${id}`).toString('base64url'), `${created.cursor}=`, 'x'.repeat(90)]) {
      const problem = expectProblem(await request(app.server).get(`/events/${encodeURIComponent(bad)}`), 400, 'BAD_USER_INPUT');
      expect(problem.errors, bad).toEqual([{ field: 'cursor', message: 'is not a valid event cursor' }]);
    }
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await request(app.server).get(`/events/${created.cursor}`).expect(200)).headers['cache-status']).not.toMatch(/hit/);
    }
  });

  it('a subscriber with after gets the replay, then live events, with no gap and no duplicate while a writer keeps writing', async () => {
    const start = await lastCursor(app);
    // More than one page of replay (pages of 200), written before the subscriber comes.
    for (let batch = 0; batch < 25; batch += 1) {
      await Promise.all(Array.from({ length: 10 }, (_, index) => request(app.server).post('/posts').set(bearer(bob)).send({ title: `before ${batch}.${index}`, body: 'b' }).expect(201)));
    }
    const writing = writer(app, alice, 'during');
    await until('some writes', () => writing.written >= 3);
    const subscription = await subscribe({ after: start ?? null });
    await until('the subscriber to be live and the writer to go on', () => eventListeners(app) === 1 && writing.written >= 20);
    await writing.stop();

    const expected = await allEvents(app, start);
    expect(expected.length).toBeGreaterThanOrEqual(270);
    const received = await subscription.received(expected.length, 30_000);
    await sleep(SETTLE_MS);
    expect(cursorsOf(subscription.values)).toEqual(cursorsOf(expected));
    expect(received[0]).toMatchObject({ type: 'POST_CREATED', authorId: BOB_ID, post: { title: expect.stringMatching(/^before /) }, comment: null });
  });

  it('resumes after a disconnect from the last cursor seen, while writes go on, as GET /events has it', async () => {
    const start = await lastCursor(app);
    const writing = writer(app, alice, 'resume');
    const first = await subscribe({ after: start ?? null });
    await first.received(5);
    // The socket goes away mid-stream.
    await clients[0].dispose();
    const seen = first.values;
    await until('more writes while away', () => writing.written >= seen.length + 5);
    const second = await subscribe({ after: seen.at(-1).cursor });
    await until('more writes after resuming', async () => second.results.length >= 5);
    await writing.stop();

    const expected = await allEvents(app, start);
    await second.received(expected.length - seen.length);
    await sleep(SETTLE_MS);
    expect([...cursorsOf(seen), ...cursorsOf(second.values)]).toEqual(cursorsOf(expected));
  });

  it('filters by type, post and author, in the replay and live; post and comment resolve', async () => {
    const start = await lastCursor(app);
    const watched = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Watched', body: 'b' }).expect(201)).body;
    const other = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Other', body: 'b' }).expect(201)).body;
    const c1 = (await request(app.server).post(`/posts/${watched.id}/comments`).set(bearer(bob)).send({ body: 'c1' }).expect(201)).body;
    await request(app.server).post(`/posts/${other.id}/comments`).set(bearer(bob)).send({ body: 'elsewhere' }).expect(201);

    const onPost = await subscribe({ after: start ?? null, types: ['COMMENT_CREATED', 'COMMENT_DELETED'], postId: watched.id });
    const byAlice = await subscribe({ after: start ?? null, authorId: ALICE_ID, types: ['POST_CREATED', 'POST_UPDATED'] });
    expect(await onPost.received(1)).toEqual([
      { cursor: expect.any(String), type: 'COMMENT_CREATED', occurredAt: expect.any(String), postId: watched.id, commentId: c1.id, authorId: BOB_ID, post: { id: watched.id, title: 'Watched' }, comment: { id: c1.id, body: 'c1' } },
    ]);
    await byAlice.received(2);
    await until('both live', () => eventListeners(app) === 2);

    const c2 = (await request(app.server).post(`/posts/${watched.id}/comments`).set(bearer(alice)).send({ body: 'c2' }).expect(201)).body;
    await request(app.server).post(`/posts/${other.id}/comments`).set(bearer(alice)).send({ body: 'not this one' }).expect(201);
    await request(app.server).patch(`/posts/${watched.id}`).set(bearer(alice)).send({ title: 'Watched, changed' }).expect(200);
    await request(app.server).post('/posts').set(bearer(bob)).send({ title: 'By Bob', body: 'b' }).expect(201);
    await request(app.server).delete(`/comments/${c1.id}`).set(bearer(bob)).expect(204);

    const live = (await onPost.received(3)).slice(1);
    expect(live.map((event) => [event.type, event.commentId])).toEqual([
      ['COMMENT_CREATED', c2.id],
      ['COMMENT_DELETED', c1.id],
    ]);
    // A deleted comment's event: no comment; its post, loaded by id, as it is now.
    expect(live[1]).toMatchObject({ comment: null, post: { id: watched.id, title: 'Watched, changed' } });
    const posts = await byAlice.received(3);
    expect(posts.map((event) => [event.type, event.post.title])).toEqual([
      ['POST_CREATED', 'Watched'],
      ['POST_CREATED', 'Other'],
      ['POST_UPDATED', 'Watched, changed'],
    ]);
    await sleep(SETTLE_MS);
    expect([onPost.results.length, byAlice.results.length]).toEqual([3, 3]);
  });

  it('without after: live events only', async () => {
    await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Before', body: 'b' }).expect(201);
    const subscription = await subscribe({});
    await until('the subscriber to be live', () => eventListeners(app) === 1);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'After', body: 'b' }).expect(201)).body;
    expect(await subscription.received(1)).toEqual([
      { cursor: expect.any(String), type: 'POST_CREATED', occurredAt: expect.any(String), postId: post.id, commentId: null, authorId: ALICE_ID, post: { id: post.id, title: 'After' }, comment: null },
    ]);
    expect(subscription.values[0].cursor).toBe((await allEvents(app)).at(-1)!.cursor);
    await sleep(SETTLE_MS);
    expect(subscription.results).toHaveLength(1);
  });

  it('over Server-Sent Events: the replay, then live events, as GET /events has them', async () => {
    const start = await lastCursor(app);
    for (let index = 0; index < 5; index += 1) await request(app.server).post('/posts').set(bearer(bob)).send({ title: `sse ${index}`, body: 'b' }).expect(201);
    const client = sseClient(urls.http);
    sse.push(client);
    const writing = writer(app, alice, 'sse');
    const subscription = await subscribe({ after: start ?? null }, client);
    await until('the SSE subscriber to be live and the writer to go on', () => eventListeners(app) === 1 && writing.written >= 5);
    await writing.stop();
    const expected = await allEvents(app, start);
    await subscription.received(expected.length);
    await sleep(SETTLE_MS);
    expect(cursorsOf(subscription.values)).toEqual(cursorsOf(expected));
  });

  it('a malformed cursor fails the subscription with BAD_USER_INPUT; an unknown type is refused', async () => {
    const malformed = await subscribe({ after: 'nope' });
    expect(await refusal(malformed)).toEqual(['BAD_USER_INPUT']);
    const unknown = await subscribe({ types: ['POST_REVIVED'] });
    // A variable the schema refuses (graphql-js coerces it before any resolver runs): a client error, never an internal one.
    const codes = await refusal(unknown);
    expect(codes).toHaveLength(1);
    expect(codes[0]).not.toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(unknown.results[0].errors)).toContain('EventType');
  });

  it('goes through the operation gate like every subscription: a selection over the cost budget is refused', async () => {
    const ws = wsClient(urls.ws);
    clients.push(ws);
    await ws.connected;
    const costly = new LiveSubscription(ws.client, 'subscription { events { post { author { posts(first: 100) { comments(first: 100) { id } } } } } }');
    subscriptions.push(costly);
    expect(errorCodes(await costly.failed())).toEqual(['COST_LIMIT_EXCEEDED']);
  });

  // Last: it prunes the log.
  it('retention: a cursor from before what was pruned is CURSOR_EXPIRED (410, and over GraphQL); later ones still work', async () => {
    const start = await lastCursor(app);
    for (let index = 0; index < 4; index += 1) await request(app.server).post('/posts').set(bearer(alice)).send({ title: `old ${index}`, body: 'b' }).expect(201);
    const events = await allEvents(app, start);
    const [oldest, , lastOld, kept] = events;
    // Everything up to the third of these events is older than the retention.
    const sql = app.app.get(Sql);
    const cutoff = decodeEventCursor(lastOld.cursor);
    const longAgo = new Date(Date.now() - (app.config.eventsRetentionDays + 1) * 86_400_000);
    await sql.rows(statement`UPDATE events SET occurred_at = ${sql.timestamp(longAgo)} WHERE tx < ${cutoff.tx} OR (tx = ${cutoff.tx} AND id <= ${cutoff.id})`);
    const prunedBefore = await metricValue(app, 'events_pruned_total');
    const pruned = await app.app.get(EventRetention).prune();
    expect(pruned).toBeGreaterThanOrEqual(3);
    expect(await metricValue(app, 'events_pruned_total')).toBe(prunedBefore + pruned);
    expect(await app.app.get(EventRetention).prune()).toBe(0);

    const expired = expectProblem(await request(app.server).get(`/events?after=${oldest.cursor}`), 410, 'CURSOR_EXPIRED');
    // The pruned events themselves are gone (410, not 404); the kept ones still read.
    for (const event of events.slice(0, 3)) expectProblem(await request(app.server).get(`/events/${event.cursor}`), 410, 'CURSOR_EXPIRED');
    expect((await request(app.server).get(`/events/${kept.cursor}`).expect(200)).body).toEqual(kept);
    expect(expired.type).toBe('/problems/cursor-expired');
    expectProblem(await request(app.server).get(`/events?after=${oldest.cursor}`).set('Accept', 'application/hal+json'), 410, 'CURSOR_EXPIRED');
    const subscription = await subscribe({ after: oldest.cursor });
    expect(await refusal(subscription)).toEqual(['CURSOR_EXPIRED']);

    // The last pruned event's cursor lost nothing after it; without a cursor, the log starts at what is kept.
    expect(cursorsOf((await request(app.server).get(`/events?after=${lastOld.cursor}`).expect(200)).body)).toEqual(cursorsOf(events.slice(3)));
    const all = await allEvents(app);
    expect(all[0].cursor).toBe(kept.cursor);
    const resumed = await subscribe({ after: lastOld.cursor });
    expect(cursorsOf(await resumed.received(1))).toEqual([kept.cursor]);
  });
});

const describePostgres = TEST_DATABASE_URL ? describe : describe.skip;

describePostgres(`the events subscription across two instances on one PostgreSQL database${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`, () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let urlsB: ListeningApp;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One after the other: the first runs the migrations and loads the demo data.
    a = await startTestApp('postgres', { database });
    b = await startTestApp('postgres', { database });
    noteStandingListeners(a);
    noteStandingListeners(b);
    urlsB = await listen(b);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('writes on A reach an events subscriber on B once each, in order (live, and resumed from a cursor)', async () => {
    const alice = await tokenFor(a, ALICE);
    await request(a.server).post('/posts').set(bearer(alice)).send({ title: 'the start', body: 'b' }).expect(201);
    const start = (await lastCursor(a))!;
    await request(a.server).post('/posts').set(bearer(alice)).send({ title: 'before B listens', body: 'b' }).expect(201);
    // Live means from what B has published when the subscriber comes: let B's relay reach that write first.
    const before = decodeEventCursor((await lastCursor(a))!);
    await until("B's relay to have published the write before", () => !isAfter(before, b.app.get(EventRelay).published));
    const ws = wsClient(urlsB.ws);
    clients.push(ws);
    await ws.connected;
    const liveOnly = new LiveSubscription(ws.client, EVENTS, {});
    const resumed = new LiveSubscription(ws.client, EVENTS, { after: start });
    await until('both subscribers live on B', () => eventListeners(b) === 2);

    for (let index = 0; index < 5; index += 1) await request(a.server).post('/posts').set(bearer(alice)).send({ title: `on A ${index}`, body: 'b' }).expect(201);
    const expected = await allEvents(a, start);
    expect(expected).toHaveLength(6);
    expect(cursorsOf(await liveOnly.received(5))).toEqual(cursorsOf(expected.slice(1)));
    expect(cursorsOf(await resumed.received(6))).toEqual(cursorsOf(expected));
    expect(cursorsOf(await allEvents(b, start))).toEqual(cursorsOf(expected));
    await sleep(SETTLE_MS);
    expect([liveOnly.results.length, resumed.results.length]).toEqual([5, 6]);
    liveOnly.dispose();
    resumed.dispose();
  });
});
