import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ALICE } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import {
  type Caller,
  type CallerName,
  createPostWith,
  type EditorialPost,
  editorialEnv,
  eventsSince,
  type FeedEvent,
  fromNow,
  lastCursor,
  patchPost,
  readPost,
  type Revision,
  signInCallers,
  valuesOf,
  warmUp,
} from './support/editorial.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { listen, LiveSubscription, sleep, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * Issue 23, scheduling (CONTRACT v3 §7): a scheduled post becomes published within 2 s of its
 * publishAt, with publishedAt = publishAt, through the write path of a PATCH (one revision, one
 * POST_PUBLISHED, the cache, subscriptions, webhooks); exactly once when two instances share a
 * PostgreSQL database; and at start-up when the time passed while the service was down. Times
 * are compared as the server wrote them (publishAt, publishedAt, the event's occurredAt).
 */

/** How late a scheduled publication may come (CONTRACT §7). */
const WITHIN_MS = 2_000;
/** How long a test waits for a publication before it gives up. */
const WAIT_MS = 15_000;

const lateness = (event: FeedEvent, post: EditorialPost) => Date.parse(event.occurredAt) - Date.parse(post.publishAt!);

describeEachDatabase('scheduled publication in one instance', (kind) => {
  let app: TestApp;
  let callers: Record<CallerName, Caller>;
  const receiver = new Receiver();
  let client: WsClient | undefined;
  const http = () => request(app.server);

  beforeAll(async () => {
    app = await startTestApp(kind, { env: editorialEnv(kind) });
    callers = await signInCallers(app);
    await receiver.start();
  });
  afterAll(async () => {
    await client?.dispose();
    await app?.close();
    await receiver.stop();
  });

  it('a post scheduled 2 s ahead is published within 2 s of publishAt: publishedAt = publishAt, one POST_PUBLISHED, one revision, one webhook delivery, postCreated for the public, no stale cached 404', async () => {
    const alice = callers.alice.token!;
    const admin = callers.admin.token!;
    const hook = await http().post('/webhooks').set('authorization', `Bearer ${admin}`).send({ url: receiver.url(), types: ['POST_PUBLISHED'] });
    expect(hook.status, hook.text).toBe(201);
    const urls = await listen(app);
    client = wsClient(urls.ws);
    await client.connected;
    const created = new LiveSubscription(client.client, 'subscription { postCreated { id status publishedAt } }');
    await warmUp([created], async () => void (await createPostWith(app, callers.bob.token!, { title: 'Probe', body: 'Listening?' })));
    const start = (await lastCursor(app, admin))!;

    const post = await createPostWith(app, alice, { title: 'On time', body: 'Published by its schedule', status: 'scheduled', publishAt: fromNow(2_000) });
    expect(post).toMatchObject({ status: 'scheduled', publishedAt: null });
    // Anonymous reads before the time: 404 and absent (and so maybe cached as such).
    for (let read = 0; read < 2; read += 1) {
      expect((await http().get(`/posts/${post.id}`)).status).toBe(404);
      expect(((await http().get('/posts?limit=100').expect(200)).body as { id: number }[]).map((listed) => listed.id)).not.toContain(post.id);
    }

    await until('the anonymous read of the post to succeed', async () => (await http().get(`/posts/${post.id}`)).status === 200, WAIT_MS, 50);
    expect(((await http().get('/posts?limit=100').expect(200)).body as { id: number }[]).map((listed) => listed.id)).toContain(post.id);
    const published = await readPost(app, post.id, alice);
    expect(published).toMatchObject({ status: 'published', publishedAt: post.publishAt, trashedAt: null });

    const events = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id);
    expect(events.map((event) => event.type)).toEqual(['POST_PUBLISHED']);
    expect(events[0].resource).toMatchObject({ id: post.id, status: 'published', publishedAt: post.publishAt });
    expect(lateness(events[0], post), `published ${lateness(events[0], post)} ms after publishAt`).toBeGreaterThanOrEqual(0);
    expect(lateness(events[0], post), `published ${lateness(events[0], post)} ms after publishAt`).toBeLessThanOrEqual(WITHIN_MS);
    expect((await eventsSince(app, alice, start)).filter((event) => event.postId === post.id).map((event) => event.type)).toEqual(['POST_CREATED', 'POST_PUBLISHED']);

    const revisions = (await http().get(`/posts/${post.id}/revisions`).set('authorization', `Bearer ${alice}`).expect(200)).body as Revision[];
    expect(revisions.map((revision) => [revision.number, revision.status])).toEqual([
      [2, 'published'],
      [1, 'scheduled'],
    ]);

    await until('postCreated for the anonymous subscriber', () => valuesOf(created).some((value) => value?.id === post.id));
    expect(valuesOf(created).filter((value) => value?.id === post.id)).toEqual([{ id: post.id, status: 'PUBLISHED', publishedAt: post.publishAt }]);

    // A later publication by hand closes the webhook's queue: the scheduled one was sent once.
    const closing = await createPostWith(app, alice, { title: 'Closing', body: 'x', status: 'draft' });
    await patchPost(app, closing.id, alice, { status: 'published' });
    await until('the webhook delivery of the closing post', () => receiver.payloads().some((payload) => payload.data.postId === closing.id), 20_000);
    const sent = receiver.receipts.filter((receipt) => (JSON.parse(receipt.body) as { data: { postId?: number } }).data.postId === post.id);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toMatchObject({ type: 'POST_PUBLISHED', timestamp: events[0].occurredAt, data: { cursor: events[0].cursor, postId: post.id } });
  });

  it('a scheduled post moved back to draft before its time is not published; rescheduling moves the time', async () => {
    const alice = callers.alice.token!;
    const start = (await lastCursor(app, callers.admin.token))!;
    const withdrawn = await createPostWith(app, alice, { title: 'Withdrawn', body: 'x', status: 'scheduled', publishAt: fromNow(3_000) });
    await patchPost(app, withdrawn.id, alice, { status: 'draft' });
    const moved = await createPostWith(app, alice, { title: 'Moved', body: 'x', status: 'scheduled', publishAt: fromNow(3_000) });
    const later = fromNow(3_600_000);
    await patchPost(app, moved.id, alice, { publishAt: later });
    // Due after both were: once it is published, they would have been too.
    const onTime = await createPostWith(app, alice, { title: 'After both', body: 'x', status: 'scheduled', publishAt: fromNow(4_000) });
    await until('the last of them to be published', async () => (await http().get(`/posts/${onTime.id}`)).status === 200, WAIT_MS, 50);
    expect(await readPost(app, withdrawn.id, alice)).toMatchObject({ status: 'draft', publishedAt: null });
    expect(await readPost(app, moved.id, alice)).toMatchObject({ status: 'scheduled', publishAt: later, publishedAt: null });
    const published = (await eventsSince(app, undefined, start, '&types=POST_PUBLISHED')).map((event) => event.postId);
    expect(published).toEqual([onTime.id]);
  });
});

// -----------------------------------------------------------------------------------------------
// Built server processes

interface Api {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function api(base: string, method: string, path: string, token?: string, body?: unknown): Promise<Api> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function signIn(base: string, credentials: { email: string; password: string }): Promise<string> {
  const answer = await api(base, 'POST', '/tokens', undefined, credentials);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.accessToken as string;
}

async function publicEvents(base: string, query = ''): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after = '';
  for (;;) {
    const page = await api(base, 'GET', `/events?limit=100${query}${after}`);
    expect(page.status).toBe(200);
    events.push(...(page.body as FeedEvent[]));
    if ((page.body as FeedEvent[]).length < 100) return events;
    after = `&after=${events.at(-1)!.cursor}`;
  }
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
}

const describePostgres = TEST_DATABASE_URL ? describe : describe.skip;

describePostgres(`scheduled publication with two instances on one PostgreSQL database${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`, () => {
  let database: TestDatabase;
  let work: { dir: string; remove: () => void };
  const receiver = new Receiver();

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-schedule-');
    database = await createTestDatabase('postgres');
    await receiver.start();
  });
  afterAll(async () => {
    killAllServers();
    await receiver.stop();
    await database?.drop();
    work?.remove();
  });

  it('each scheduled post is published once, within 2 s: one POST_PUBLISHED and one webhook delivery each', async () => {
    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `schedule-${process.pid}-${randomBytes(4).toString('hex')}:` } : {}),
    };
    // One after the other: the first migrates and seeds.
    const a = await startServer(env, work.dir);
    const b = await startServer(env, work.dir);
    const admin = await signIn(a.url, ADMIN);
    const alice = [await signIn(a.url, ALICE), await signIn(b.url, ALICE)];
    const hook = await api(a.url, 'POST', '/webhooks', admin, { url: receiver.url(), types: ['POST_PUBLISHED'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    // All due at the same second, written through both instances.
    const publishAt = fromNow(4_000);
    const posts: EditorialPost[] = [];
    for (let index = 0; index < 6; index += 1) {
      const server = index % 2 === 0 ? a : b;
      const created = await api(server.url, 'POST', '/posts', alice[index % 2], { title: `Due ${index}`, body: 'x', status: 'scheduled', publishAt });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      posts.push(created.body as EditorialPost);
    }
    for (const server of [a, b]) {
      for (const post of posts) {
        await until(`post ${post.id} to be public on ${server.url}`, async () => (await api(server.url, 'GET', `/posts/${post.id}`)).status === 200, WAIT_MS, 50);
      }
    }

    const events = (await publicEvents(a.url, '&types=POST_PUBLISHED')).filter((event) => posts.some((post) => post.id === event.postId));
    expect(events.map((event) => event.postId).sort()).toEqual(posts.map((post) => post.id).sort());
    for (const post of posts) {
      const event = events.find((item) => item.postId === post.id)!;
      expect(lateness(event, post), `post ${post.id} published ${lateness(event, post)} ms after publishAt`).toBeGreaterThanOrEqual(0);
      expect(lateness(event, post), `post ${post.id} published ${lateness(event, post)} ms after publishAt`).toBeLessThanOrEqual(WITHIN_MS);
      const read = await api(b.url, 'GET', `/posts/${post.id}`);
      expect(read.body).toMatchObject({ status: 'published', publishedAt: publishAt });
      const revisions = await api(a.url, 'GET', `/posts/${post.id}/revisions`, alice[0]);
      expect((revisions.body as Revision[]).map((revision) => revision.status)).toEqual(['published', 'scheduled']);
    }

    await until('a delivery per post', () => new Set(receiver.payloads().map((payload) => payload.data.postId)).size >= posts.length, 20_000);
    // Then a publication by hand, written after all of them: once it is delivered, any second delivery would have been too.
    const closing = await api(a.url, 'POST', '/posts', alice[0], { title: 'Closing', body: 'x', status: 'draft' });
    await api(b.url, 'PATCH', `/posts/${closing.body.id}`, alice[1], { status: 'published' });
    await until('the closing delivery', () => receiver.payloads().some((payload) => payload.data.postId === closing.body.id), 20_000);
    const perPost = posts.map((post) => receiver.payloads().filter((payload) => payload.data.postId === post.id).length);
    expect(perPost, 'webhook deliveries per post').toEqual(posts.map(() => 1));
    const ids = receiver.receipts.map((receipt) => receipt.headers['webhook-id']);
    expect(new Set(ids).size, 'webhook-ids').toBe(ids.length);

    await stop(a);
    await stop(b);
  }, 120_000);
});

describeEachDatabase('scheduled publication across a restart', (kind) => {
  let database: TestDatabase;
  let work: { dir: string; remove: () => void };

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-schedule-restart-');
    database = await createTestDatabase(kind, { file: true });
  });
  afterAll(async () => {
    killAllServers();
    await database?.drop();
    work?.remove();
  });

  it('a post whose publishAt passed while the service was down is published at start-up, with publishedAt = publishAt, once', async () => {
    const env = { DATABASE_URL: database.url };
    const first = await startServer(env, work.dir);
    const alice = await signIn(first.url, ALICE);
    const created = await api(first.url, 'POST', '/posts', alice, { title: 'Due while down', body: 'x', status: 'scheduled', publishAt: fromNow(6_000) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const post = created.body as EditorialPost;
    await stop(first);
    const stoppedAt = Date.now();
    expect(stoppedAt, 'the first server stopped before publishAt (else this test proves nothing: the machine is too slow)').toBeLessThan(Date.parse(post.publishAt!));

    await sleep(Date.parse(post.publishAt!) - Date.now() + 500);
    const second = await startServer(env, work.dir);
    await until('the post to be public after the restart', async () => (await api(second.url, 'GET', `/posts/${post.id}`)).status === 200, WAIT_MS, 50);
    const read = await api(second.url, 'GET', `/posts/${post.id}`, await signIn(second.url, ALICE));
    expect(read.body).toMatchObject({ status: 'published', publishedAt: post.publishAt });
    const events = (await publicEvents(second.url, '&types=POST_PUBLISHED')).filter((event) => event.postId === post.id);
    expect(events).toHaveLength(1);
    // Published by the second process: after the first one had stopped.
    expect(Date.parse(events[0].occurredAt)).toBeGreaterThan(stoppedAt);
    expect(lateness(events[0], post)).toBeGreaterThan(0);
    await stop(second);
  }, 120_000);
});
