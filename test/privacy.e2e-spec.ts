import type { Client as SseClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  type Caller,
  type CallerName,
  commentOn,
  createPostWith,
  editorialEnv,
  EVENTS_SUBSCRIPTION,
  eventsSince,
  expectNoMarker,
  type FeedEvent,
  lastCursor,
  marker,
  patchPost,
  rowsHolding,
  signInCallers,
  sseClient,
  valuesOf,
} from './support/editorial.js';
import { createUser, parseXml } from './support/resources.js';
import { type ListeningApp, listen, LiveSubscription, type OperationClient, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * Issue 23, privacy (CONTRACT v3 §7): deleting a post for good (two DELETEs), a comment or a
 * user erases, in the same transaction, the content of that resource's earlier events and of
 * their pending webhook payloads. The events stay (type, ids, time) with no `resource` (left out, as for a deletion); the
 * feed in every format, the replay over WebSocket and SSE, a webhook delivery retried after the
 * deletion, and the database itself hold no word of what was deleted.
 */

/** What an event keeps when its content is erased. */
const skeleton = (event: FeedEvent) => ({ cursor: event.cursor, type: event.type, occurredAt: event.occurredAt, postId: event.postId, commentId: event.commentId, authorId: event.authorId });

interface ReplayedEvent {
  cursor: string;
  type: string;
  postId: number | null;
  commentId: number | null;
  post: { title: string; body: string } | null;
  comment: { body: string } | null;
}

describeEachDatabase('privacy: deleting for good erases the content of earlier events', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let callers: Record<CallerName, Caller>;
  const clients: WsClient[] = [];
  const sseClients: SseClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const receivers: Receiver[] = [];
  const http = () => request(app.server);
  const token = (caller: CallerName) => callers[caller].token!;
  const auth = (caller: CallerName) => ({ authorization: `Bearer ${token(caller)}` });

  beforeAll(async () => {
    // Retries far enough apart that a deletion comes between two attempts.
    app = await startTestApp(kind, { env: editorialEnv(kind, { WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_MAX_ATTEMPTS: '20', WEBHOOK_TIMEOUT_MS: '1000' }) });
    urls = await listen(app);
    callers = await signInCallers(app);
    // Each test starts after the newest event: there must be one, or `after` would be absent.
    await createPostWith(app, token('alice'), { title: 'The first event of the feed', body: 'Before every test' });
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    for (const client of sseClients.splice(0)) client.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  });

  /** The events matching `about` that each reader reads now (before a deletion). */
  async function snapshot(readers: CallerName[], start: string, about: (event: FeedEvent) => boolean): Promise<Map<CallerName, FeedEvent[]>> {
    const seen = new Map<CallerName, FeedEvent[]>();
    for (const reader of readers) seen.set(reader, (await eventsSince(app, callers[reader].token, start)).filter(about));
    return seen;
  }

  /**
   * The events that carried content before the deletion, read again by each reader: still there
   * with their type, ids and time, and no `resource` (left out, as for a deletion). Nothing in the whole feed holds `mark`.
   */
  async function expectErased(before: Map<CallerName, FeedEvent[]>, start: string, mark: string): Promise<void> {
    for (const [reader, events] of before) {
      const erased = events.filter((event) => event.resource);
      const after = await eventsSince(app, callers[reader].token, start);
      for (const event of erased) {
        const now = after.find((item) => item.cursor === event.cursor);
        expect(now, `[${reader}] the ${event.type} event is still in the feed`).toBeDefined();
        expect(skeleton(now!), `[${reader}] the ${event.type} event keeps type, ids and time`).toEqual(skeleton(event));
        // The contract's feed leaves `resource` out when there is none (as for a deletion).
        expect(now!.resource, `[${reader}] the ${event.type} event has no resource any more`).toBeUndefined();
      }
      expectNoMarker(JSON.stringify(after), mark, `[${reader}] GET /events`);
    }
  }

  /** The feed in HAL and XML, and each erased event alone: nothing of `mark`. */
  async function expectErasedInEveryFormat(before: FeedEvent[], start: string, mark: string): Promise<void> {
    for (const accept of ['application/hal+json', 'application/xml', 'text/html']) {
      const response = await http().get(`/events?limit=100&after=${start}`).set(auth('admin')).set('accept', accept).expect(200);
      expectNoMarker(response.text, mark, `GET /events (${accept})`);
      if (accept === 'application/xml') parseXml(response.text);
    }
    for (const event of before.filter((item) => item.resource)) {
      const one = await http().get(`/events/${event.cursor}`).set(auth('admin')).expect(200);
      expect(one.body).toEqual(skeleton(event));
      expect(one.body).not.toHaveProperty('resource');
      for (const accept of ['application/hal+json', 'application/xml']) {
        expectNoMarker((await http().get(`/events/${event.cursor}`).set(auth('admin')).set('accept', accept).expect(200)).text, mark, `GET /events/{cursor} (${accept})`);
      }
    }
  }

  /** The events replay from `start` as an admin over a transport, up to the POST_CREATED of `sentinel`. */
  async function replay(transport: 'WebSocket' | 'SSE', start: string, sentinel: number): Promise<ReplayedEvent[]> {
    let client: OperationClient;
    if (transport === 'WebSocket') {
      const ws = wsClient(urls.ws, { token: token('admin') });
      clients.push(ws);
      await ws.connected;
      client = ws.client;
    } else {
      const sse = sseClient(urls.http, token('admin'));
      sseClients.push(sse);
      client = sse;
    }
    const subscription = new LiveSubscription(client, EVENTS_SUBSCRIPTION, { after: start });
    subscriptions.push(subscription);
    await until(
      `the replay over ${transport}`,
      () =>
        subscription.error !== undefined ||
        subscription.results.some((result) => result.errors) ||
        valuesOf(subscription).some((event) => event?.type === 'POST_CREATED' && event.postId === sentinel),
      20_000,
    );
    return subscription.values as ReplayedEvent[];
  }

  /**
   * After the deletion (and a public post written after it, the sentinel): the replay from `start`
   * over WebSocket and SSE carries no `mark`, and the fields `erased` names are null on the events
   * about the deleted resource.
   */
  async function expectReplayErased(start: string, mark: string, erased: (event: ReplayedEvent) => ('post' | 'comment')[]): Promise<void> {
    const sentinel = await createPostWith(app, token('bob'), { title: 'Sentinel', body: 'After the deletion' });
    for (const transport of ['WebSocket', 'SSE'] as const) {
      const events = await replay(transport, start, sentinel.id);
      const about = events.filter((event) => erased(event).length > 0);
      expect(about.length, `[${transport}] events about the deleted resource are replayed`).toBeGreaterThan(0);
      for (const event of about) {
        for (const field of erased(event)) expect(event[field], `[${transport}] the replayed ${event.type} carries no ${field}`).toBeNull();
      }
      expectNoMarker(JSON.stringify(events), mark, `the replay over ${transport}`);
    }
  }

  async function expectNoRowHolds(mark: string): Promise<void> {
    expect(await rowsHolding(app, mark), 'rows that still hold the deleted content').toEqual([]);
  }

  it('a post deleted for good (two DELETEs), with its comments: the feed (every format, each event alone), the replay over WebSocket and SSE and the database hold none of its text; other posts keep theirs', async () => {
    const start = (await lastCursor(app, token('admin')))!;
    const mark = marker('post');
    const post = await createPostWith(app, token('alice'), { title: `Title ${mark}`, body: `Body ${mark}` });
    await patchPost(app, post.id, token('alice'), { title: `Title ${mark}, changed` });
    const remark = await commentOn(app, post.id, token('bob'), `Remark ${mark}`);
    await http().patch(`/comments/${remark.id}`).set(auth('bob')).send({ body: `Remark ${mark}, edited` }).expect(200);
    await commentOn(app, post.id, token('alice'), `Reply ${mark}`);
    const kept = await createPostWith(app, token('bob'), { title: 'A post that stays', body: 'Untouched' });
    await commentOn(app, kept.id, token('alice'), 'A comment that stays');

    const before = await snapshot(['anonymous', 'bob', 'alice', 'admin'], start, (event) => event.postId === post.id);
    expect(JSON.stringify(before.get('anonymous')), 'the content was in the feed').toContain(mark);
    await http().delete(`/posts/${post.id}`).set(auth('alice')).expect(204);
    await http().delete(`/posts/${post.id}`).set(auth('alice')).expect(204);

    await expectNoRowHolds(mark);
    await expectErased(before, start, mark);
    await expectErasedInEveryFormat(before.get('admin')!, start, mark);
    const others = (await eventsSince(app, undefined, start)).filter((event) => event.postId === kept.id);
    expect(others.find((event) => event.type === 'POST_CREATED')?.resource).toMatchObject({ title: 'A post that stays' });
    expect(others.find((event) => event.type === 'COMMENT_CREATED')?.resource).toMatchObject({ body: 'A comment that stays' });
    await expectReplayErased(start, mark, (event) => (event.postId === post.id ? ['post', 'comment'] : []));
  });

  it('a comment deleted: its events lose their content; the post’s events keep theirs', async () => {
    const start = (await lastCursor(app, token('admin')))!;
    const mark = marker('comment');
    const post = await createPostWith(app, token('alice'), { title: 'A post with a deleted comment', body: 'Stays' });
    const comment = await commentOn(app, post.id, token('bob'), `Remark ${mark}`);
    await http().patch(`/comments/${comment.id}`).set(auth('bob')).send({ body: `Remark ${mark}, edited` }).expect(200);
    const before = await snapshot(['anonymous', 'bob', 'admin'], start, (event) => event.commentId === comment.id);
    await http().delete(`/comments/${comment.id}`).set(auth('bob')).expect(204);

    await expectNoRowHolds(mark);
    await expectErased(before, start, mark);
    await expectErasedInEveryFormat(before.get('admin')!, start, mark);
    const postEvents = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id && !event.commentId);
    expect(postEvents.find((event) => event.type === 'POST_CREATED')?.resource).toMatchObject({ title: 'A post with a deleted comment' });
    // The post is still there: a comment event's post is, as it is now.
    await expectReplayErased(start, mark, (event) => (event.commentId === comment.id ? ['comment'] : []));
  });

  it('a user deleted: the events of their posts (drafts included) and comments, and of others’ comments on their posts, lose their content', async () => {
    const start = (await lastCursor(app, token('admin')))!;
    const mark = marker('user');
    const user = await createUser(app);
    const post = await createPostWith(app, user.token, { title: `Title ${mark}`, body: `Body ${mark}` });
    const draft = await createPostWith(app, user.token, { title: `Draft ${mark}`, body: `Unpublished ${mark}`, status: 'draft' });
    await commentOn(app, post.id, token('alice'), `Reply ${mark}`);
    const elsewhere = await createPostWith(app, token('alice'), { title: 'ALICE’s post, which stays', body: 'x' });
    const theirs = await commentOn(app, elsewhere.id, user.token, `Remark ${mark}`);
    const gone = (event: FeedEvent) => event.postId === post.id || event.postId === draft.id || event.commentId === theirs.id;
    // The draft's events are the admin's to read; the public reads the rest.
    const before = await snapshot(['anonymous', 'alice', 'admin'], start, gone);
    expect(before.get('admin')!.map((event) => event.type)).toEqual(expect.arrayContaining(['POST_CREATED', 'COMMENT_CREATED']));
    expect(before.get('admin')!.some((event) => event.postId === draft.id)).toBe(true);

    await http().delete(`/users/${user.id}`).set({ authorization: `Bearer ${user.token}` }).expect(204);

    await expectNoRowHolds(mark);
    await expectErased(before, start, mark);
    await expectErasedInEveryFormat(before.get('admin')!, start, mark);
    expect((await eventsSince(app, undefined, start)).find((event) => event.postId === elsewhere.id && event.type === 'POST_CREATED')?.resource).toMatchObject({ title: 'ALICE’s post, which stays' });
    await expectReplayErased(start, mark, (event) => (event.postId === post.id || event.postId === draft.id ? ['post', 'comment'] : event.commentId === theirs.id ? ['comment'] : []));
  });

  it('a webhook delivery failing when its post was deleted for good is delivered later without the title or body (same webhook-id, type, ids and time)', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    let open = false;
    const answeredOk = new Set<number>();
    receiver.answer = (_receipt, index) => {
      if (!open) return 500;
      answeredOk.add(index);
      return 200;
    };
    const hook = await http().post('/webhooks').set(auth('admin')).send({ url: receiver.url(), types: ['POST_CREATED', 'POST_UPDATED', 'COMMENT_CREATED'] });
    expect(hook.status, hook.text).toBe(201);
    try {
      const mark = marker('hook');
      const post = await createPostWith(app, token('alice'), { title: `Title ${mark}`, body: `Body ${mark}` });
      const comment = await commentOn(app, post.id, token('bob'), `Remark ${mark}`);
      const failed = await until(
        'a failed attempt to deliver the POST_CREATED and the COMMENT_CREATED',
        () => {
          const payloads = receiver.payloads();
          const created = receiver.receipts.find((_receipt, index) => payloads[index].type === 'POST_CREATED' && payloads[index].data.postId === post.id);
          return created && payloads.some((payload) => payload.data.commentId === comment.id) && created;
        },
        20_000,
      );
      expect(failed.body, 'the first attempt carried the content').toContain(mark);

      await http().delete(`/posts/${post.id}`).set(auth('alice')).expect(204);
      await http().delete(`/posts/${post.id}`).set(auth('alice')).expect(204);
      // Erased with the deletion, before any further attempt: the pending payloads included.
      await expectNoRowHolds(mark);
      open = true;

      const delivered = await until(
        'the deliveries after the deletion',
        () => {
          const ok = receiver.receipts.filter((_receipt, index) => answeredOk.has(index));
          const payloads = ok.map((receipt) => JSON.parse(receipt.body) as { type: string; data: { postId?: number; commentId?: number } });
          const both = payloads.some((payload) => payload.type === 'POST_CREATED' && payload.data.postId === post.id) && payloads.some((payload) => payload.data.commentId === comment.id);
          return both && ok;
        },
        30_000,
      );
      for (const receipt of delivered) expectNoMarker(receipt.body, mark, 'a webhook delivery after the deletion');
      const postDelivery = delivered.find((receipt) => (JSON.parse(receipt.body) as { type: string }).type === 'POST_CREATED')!;
      expect(postDelivery.headers['webhook-id']).toBe(failed.headers['webhook-id']);
      const first = JSON.parse(failed.body) as { type: string; timestamp: string; data: FeedEvent };
      const last = JSON.parse(postDelivery.body) as { type: string; timestamp: string; data: FeedEvent };
      expect(last).toEqual({ type: first.type, timestamp: first.timestamp, data: skeleton(first.data) });
      expect(last.data).not.toHaveProperty('resource');
    } finally {
      await http().delete(`/webhooks/${hook.body.id}`).set(auth('admin'));
    }
  }, 60_000);
});
