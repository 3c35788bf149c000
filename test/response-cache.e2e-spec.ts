import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import { expectData, fewestStatements, graphql, metricValue } from './support/graphql-client.js';
import { EventRelay } from '../src/events/event-relay.js';
import { OutboxRepository } from '../src/events/outbox.repository.js';
import { PostsService } from '../src/posts/posts.service.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { createComment, createPost, createUser } from './support/resources.js';
import { type RawStream, rawStream } from './support/sse.js';
import { type ListeningApp, listen, LiveSubscription, until, waitForNoSubscribers, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { ResponseCache } from '../src/common/cache/response-cache.js';

/**
 * The response cache: anonymous GETs and GraphQL queries answered from memory, saying so in
 * Cache-Status, until a write changes what they show — never a stale read on the instance that
 * acknowledged the write, nor on another one once its event has arrived.
 */

const HIT = 'blog; hit';
const MISS = 'blog; fwd=miss';
const UNCACHEABLE = 'blog; fwd=uncacheable';
const POST_QUERY = 'query($id: Int!) { post(id: $id) { id title author { name } } }';
/** The post page: the post, its author's name and its comments (as the bench's post page). */
const PAGE_QUERY = 'query($id: Int!) { post(id: $id) { title body author { name } comments { body author { name } } } }';

/** What a post's cached views say when read now: Cache-Status of its GraphQL page, HTML page and comment list. */
async function viewsOf(app: TestApp, postId: number): Promise<{ graphql: string; html: string; comments: string; texts: string[] }> {
  const page = await graphql(app, PAGE_QUERY, { id: postId });
  const html = await request(app.server).get(`/posts/${postId}`).set('accept', 'text/html').expect(200);
  const comments = await request(app.server).get(`/posts/${postId}/comments?limit=100`).expect(200);
  return {
    graphql: page.response.headers['cache-status'],
    html: html.headers['cache-status'],
    comments: comments.headers['cache-status'],
    texts: [JSON.stringify(page.body), html.text, comments.text],
  };
}

const allHits = (views: { graphql: string; html: string; comments: string }) => views.graphql === HIT && views.html === HIT && views.comments === HIT;

/** Every invalidation of `app`'s cache from now on, as its tags (null: everything); `restore` puts the cache back. */
function invalidationsOf(app: TestApp): { calls: (string[] | null)[]; touched: (tag: string) => number; restore: () => void } {
  const cache = app.app.get(ResponseCache);
  const invalidate = cache.invalidate;
  const calls: (string[] | null)[] = [];
  cache.invalidate = function (this: ResponseCache, tags?: Iterable<string> | null) {
    calls.push(tags ? [...tags] : null);
    return invalidate.call(this, tags);
  };
  return {
    calls,
    touched: (tag) => calls.filter((tags) => tags === null || tags.includes(tag)).length,
    restore: () => {
      cache.invalidate = invalidate;
    },
  };
}

/** Reads a post's views until all three are answered from memory. */
async function warm(app: TestApp, postId: number): Promise<void> {
  await until(`post ${postId}'s views from memory`, async () => allHits(await viewsOf(app, postId)));
}

/** The version a JSON ETag (`"7"`) names. */
const versionOf = (etag: string | undefined) => Number(/^"(\d+)"$/.exec(etag ?? '')?.[1] ?? Number.NaN);

/**
 * Writers PATCH one post's title (each title unique, its version taken from the ETag of the
 * acknowledgement) while readers read it; afterwards, every read must show the version that was
 * `fresh` when the read started, or a later one.
 */
async function hammer(options: {
  post: number;
  initialTitle: string;
  write: (title: string) => Promise<{ etag?: string }>;
  reads: (() => Promise<string>)[];
  /** The newest version a read starting now must show (or newer). */
  fresh: () => number;
  acknowledged: (title: string, version: number) => void;
  writers?: number;
  writesEach?: number;
}): Promise<{ reads: number; writes: number }> {
  const { writers = 3, writesEach = 40 } = options;
  const versions = new Map<string, number>([[options.initialTitle, 1]]);
  const observations: { title: string; atLeast: number; reader: number }[] = [];
  let writing = true;
  const writerLoops = Array.from({ length: writers }, async (_, writer) => {
    for (let n = 0; n < writesEach; n += 1) {
      const title = `w${writer}-${n}`;
      const version = versionOf((await options.write(title)).etag);
      expect(version).toBeGreaterThan(1);
      versions.set(title, version);
      options.acknowledged(title, version);
    }
  });
  const readerLoops = options.reads.map(async (read, reader) => {
    while (writing) {
      const atLeast = options.fresh();
      observations.push({ title: await read(), atLeast, reader });
    }
  });
  await Promise.all(writerLoops);
  writing = false;
  await Promise.all(readerLoops);
  for (const { title, atLeast, reader } of observations) {
    const version = versions.get(title);
    expect(version, `reader ${reader} saw an unknown title "${title}"`).toBeDefined();
    expect(version!, `reader ${reader} saw "${title}" (version ${version}) after version ${atLeast} was acknowledged`).toBeGreaterThanOrEqual(atLeast);
  }
  return { reads: observations.length, writes: writers * writesEach };
}

describeEachDatabase('response cache', (kind) => {
  const app = useApp(kind, { signIn: ['alice'] });
  const http = () => request(app.server);

  it('answers a repeated anonymous GET from memory: same body and headers, no SQL', async () => {
    const post = await createPost(app, app.tokens.alice);
    const first = await http().get(`/posts/${post.id}`).expect(200);
    expect(first.headers['cache-status']).toBe(MISS);
    const hits: request.Response[] = [];
    const statements = await fewestStatements(app, async () => hits.push(await http().get(`/posts/${post.id}`).expect(200)));
    const second = hits.at(-1)!;
    for (const hit of hits) expect(hit.headers['cache-status']).toBe(HIT);
    expect(statements).toBe(0);
    expect(second.text).toBe(first.text);
    for (const header of ['content-type', 'etag', 'vary']) expect(second.headers[header], header).toBe(first.headers[header]);
    expect(second.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a hit still answers If-None-Match with 304, and HEAD with the headers alone', async () => {
    const post = await createPost(app, app.tokens.alice);
    const first = await http().get(`/posts/${post.id}`).expect(200);
    const revalidated = await http().get(`/posts/${post.id}`).set('if-none-match', first.headers.etag).expect(304);
    expect(revalidated.headers['cache-status']).toBe(HIT);
    expect(revalidated.headers.etag).toBe(first.headers.etag);
    expect(revalidated.text).toBe('');
    expect(revalidated.headers['content-length']).toBeUndefined();
    const head = await http().head(`/posts/${post.id}`).expect(200);
    expect(head.headers['cache-status']).toBe(HIT);
    expect(head.headers.etag).toBe(first.headers.etag);
    expect(head.headers['content-type']).toBe(first.headers['content-type']);
    expect(head.text ?? '').toBe('');
  });

  it('is keyed by representation: JSON, HAL, XML and HTML of one post are kept apart', async () => {
    const post = await createPost(app, app.tokens.alice);
    const accepts = ['application/json', 'application/hal+json', 'application/xml', 'text/html'];
    const firsts = [];
    for (const accept of accepts) {
      const response = await http().get(`/posts/${post.id}`).set('accept', accept).expect(200);
      expect(response.headers['cache-status'], accept).toBe(MISS);
      firsts.push(response);
    }
    for (const [index, accept] of accepts.entries()) {
      const response = await http().get(`/posts/${post.id}`).set('accept', accept).expect(200);
      expect(response.headers['cache-status'], accept).toBe(HIT);
      expect(response.headers['content-type']).toBe(firsts[index].headers['content-type']);
      expect(response.text).toBe(firsts[index].text);
    }
  });

  it('keeps a list with its Link header, keyed by its query', async () => {
    await createPost(app, app.tokens.alice);
    await createPost(app, app.tokens.alice);
    const first = await http().get('/posts?limit=1').expect(200);
    expect(first.headers.link).toMatch(/rel="next"/);
    const second = await http().get('/posts?limit=1').expect(200);
    expect(second.headers['cache-status']).toBe(HIT);
    expect(second.headers.link).toBe(first.headers.link);
    expect(second.body).toEqual(first.body);
    expect((await http().get('/posts?limit=2').expect(200)).headers['cache-status']).toBe(MISS);
  });

  it('never answers or keeps an authenticated request', async () => {
    const post = await createPost(app, app.tokens.alice);
    for (let i = 0; i < 2; i += 1) {
      const response = await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(response.headers['cache-status']).toBe(UNCACHEABLE);
    }
    expect((await http().get(`/posts/${post.id}`).expect(200)).headers['cache-status']).toBe(MISS);
    const stored = await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200);
    expect(stored.headers['cache-status']).toBe(UNCACHEABLE);
  });

  it('keeps no errors: a 404 is looked up again', async () => {
    for (let i = 0; i < 2; i += 1) {
      const response = await http().get('/posts/987654').expect(404);
      expect(response.headers['cache-status']).toBe(MISS);
    }
  });

  it('a write is never followed by the old version: post, its author, its comments', async () => {
    const post = await createPost(app, app.tokens.alice, { title: 'Before' });
    await http().get(`/posts/${post.id}`).expect(200);
    const html = await http().get(`/posts/${post.id}`).set('accept', 'text/html').expect(200);
    expect((await http().get(`/posts/${post.id}`).expect(200)).headers['cache-status']).toBe(HIT);

    await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'After' }).expect(200);
    const afterPatch = await http().get(`/posts/${post.id}`).expect(200);
    expect(afterPatch.headers['cache-status']).toBe(MISS);
    expect(afterPatch.body.title).toBe('After');

    // The HTML page shows the author's name and the comments: a user's edit and a new comment change it.
    await http().get(`/posts/${post.id}`).set('accept', 'text/html').expect(200);
    await http().patch(`/users/${post.authorId}`).set(bearer(app.tokens.alice)).send({ name: 'Alice Renamed' }).expect(200);
    const renamed = await http().get(`/posts/${post.id}`).set('accept', 'text/html').expect(200);
    expect(renamed.text).toContain('Alice Renamed');
    expect((await http().get(`/users/${post.authorId}`).expect(200)).body.name).toBe('Alice Renamed');
    await createComment(app, app.tokens.alice, post.id, 'A fresh comment');
    const commented = await http().get(`/posts/${post.id}`).set('accept', 'text/html').expect(200);
    expect(commented.text).toContain('A fresh comment');
    expect(commented.text).not.toBe(html.text);
    await http().patch(`/users/${post.authorId}`).set(bearer(app.tokens.alice)).send({ name: 'Alice Author' }).expect(200);
  });

  it('a new user appears in the list at once', async () => {
    const before = await http().get('/users?limit=100').expect(200);
    expect((await http().get('/users?limit=100').expect(200)).headers['cache-status']).toBe(HIT);
    const email = `cache-${randomBytes(4).toString('hex')}@example.com`;
    await http().post('/users').send({ name: 'New Reader', email, password: 'a long password' }).expect(201);
    const after = await http().get('/users?limit=100').expect(200);
    expect(after.body.length).toBe(before.body.length + 1);
  });

  it('GraphQL: anonymous queries keyed by document and variables; mutations and authenticated queries never', async () => {
    const one = await createPost(app, app.tokens.alice, { title: 'One' });
    const two = await createPost(app, app.tokens.alice, { title: 'Two' });
    const first = await graphql(app, POST_QUERY, { id: one.id });
    expect(first.response.headers['cache-status']).toBe(MISS);
    const hits: Awaited<ReturnType<typeof graphql>>[] = [];
    const statements = await fewestStatements(app, async () => hits.push(await graphql(app, POST_QUERY, { id: one.id })));
    const again = hits.at(-1)!;
    for (const hit of hits) expect(hit.response.headers['cache-status']).toBe(HIT);
    expect(statements).toBe(0);
    expect(again.body).toEqual(first.body);
    expect(expectData(again).post.title).toBe('One');
    const other = await graphql(app, POST_QUERY, { id: two.id });
    expect(other.response.headers['cache-status']).toBe(MISS);
    expect(expectData(other).post.title).toBe('Two');

    const authenticated = await graphql(app, POST_QUERY, { id: one.id }, { token: app.tokens.alice });
    expect(authenticated.response.headers['cache-status']).toBe(UNCACHEABLE);
    const updatesPublished = await metricValue(app, 'events_published_total', { type: 'POST_UPDATED' });
    const mutation = await graphql(
      app,
      'mutation($id: Int!) { updatePost(id: $id, input: { title: "One, changed" }) { title } }',
      { id: one.id },
      { token: app.tokens.alice },
    );
    expect(expectData(mutation).updatePost.title).toBe('One, changed');
    expect(mutation.response.headers['cache-status']).toBe(UNCACHEABLE);
    // The relay empties the cache again when it publishes the update (as it does for a write on
    // another instance): let it do so before the entries below are stored.
    await until('the relay to publish the update', async () => (await metricValue(app, 'events_published_total', { type: 'POST_UPDATED' })) > updatesPublished);
    const changed = await graphql(app, POST_QUERY, { id: one.id });
    expect(changed.response.headers['cache-status']).toBe(MISS);
    expect(expectData(changed).post.title).toBe('One, changed');

    // GET /graphql shares the entries of POST.
    const viaGet = await http()
      .get('/graphql')
      .query({ query: POST_QUERY, variables: JSON.stringify({ id: one.id }) })
      .set('apollo-require-preflight', 'true')
      .expect(200);
    expect(viaGet.headers['cache-status']).toBe(HIT);
    expect(viaGet.body.data.post.title).toBe('One, changed');
  });

  it('a read that started before a write does not keep its old answer once the write is acknowledged', async () => {
    const post = await createPost(app, app.tokens.alice, { title: 'Old' });
    const posts = app.app.get(PostsService);
    const get = posts.get;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let read!: () => void;
    const hasRead = new Promise<void>((resolve) => (read = resolve));
    // The read has the old post in hand, and is held there until the write is acknowledged.
    posts.get = async function (this: PostsService, id: number, actor: Parameters<PostsService['get']>[1]) {
      const found = await get.call(this, id, actor);
      read();
      await held;
      return found;
    };
    try {
      const slow = http().get(`/posts/${post.id}`).then((response) => response);
      await hasRead;
      posts.get = get;
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'New' }).expect(200);
      release();
      const old = await slow;
      expect(old.body.title).toBe('Old');
      expect(old.headers['cache-status']).toBe(MISS);
    } finally {
      posts.get = get;
      release();
    }
    const after = await http().get(`/posts/${post.id}`).expect(200);
    expect(after.body.title).toBe('New');
    expect(after.headers['cache-status']).toBe(MISS);
  });

  it("the relay does not empty the cache again for this instance's own events: answers kept after the write stay", async () => {
    const outbox = app.app.get(OutboxRepository);
    const relay = app.app.get(EventRelay);
    const after = outbox.after;
    const committing = relay.committing;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The relay's reads of the log wait until the answers below are kept; on SQLite, nothing is
    // handed over meanwhile, so the events too come from the log.
    outbox.after = async function (this: OutboxRepository, ...args: Parameters<OutboxRepository['after']>) {
      await held;
      return after.apply(this, args);
    };
    relay.committing = () => undefined;
    const published = async () =>
      (await metricValue(app, 'events_published_total', { type: 'POST_CREATED' })) + (await metricValue(app, 'events_published_total', { type: 'POST_UPDATED' }));
    let post: { id: number };
    const before = await published();
    try {
      // A creation (on PostgreSQL, one statement with its event) and an update (a transaction).
      post = await createPost(app, app.tokens.alice, { title: 'Own' });
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Own, changed' }).expect(200);
      expect((await http().get(`/posts/${post.id}`).expect(200)).headers['cache-status']).toBe(MISS);
      expect((await graphql(app, POST_QUERY, { id: post.id })).response.headers['cache-status']).toBe(MISS);
      expect(await published()).toBe(before);
    } finally {
      outbox.after = after;
      relay.committing = committing;
      release();
    }
    await until('the relay to publish both events', async () => (await published()) >= before + 2);
    const json = await http().get(`/posts/${post.id}`).expect(200);
    expect(json.headers['cache-status']).toBe(HIT);
    expect(json.body.title).toBe('Own, changed');
    expect((await graphql(app, POST_QUERY, { id: post.id })).response.headers['cache-status']).toBe(HIT);
  });

  it('hammer, one instance: no read that starts after a write was acknowledged shows an older version', async () => {
    const post = await createPost(app, app.tokens.alice, { title: 'start' });
    let acknowledged = 1;
    const json = async () => (await http().get(`/posts/${post.id}`).expect(200)).body.title as string;
    const xml = async () => /<title>([^<]*)<\/title>/.exec((await http().get(`/posts/${post.id}`).set('accept', 'application/xml').expect(200)).text)![1];
    const query = async () => expectData(await graphql(app, POST_QUERY, { id: post.id })).post.title as string;
    const { reads } = await hammer({
      post: post.id,
      initialTitle: 'start',
      write: async (title) => {
        const response = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title }).expect(200);
        return { etag: response.headers.etag };
      },
      reads: [json, json, xml, query, query],
      fresh: () => acknowledged,
      acknowledged: (_title, version) => (acknowledged = Math.max(acknowledged, version)),
    });
    expect(reads).toBeGreaterThan(0);
    expect((await http().get(`/posts/${post.id}`).expect(200)).body.title).toMatch(/^w\d-39$/);
  });

  describe('tags: a write drops what it touched, nothing else', () => {
    let admin: string;
    beforeAll(async () => {
      admin = await tokenFor(app, ADMIN);
    });

    it("a comment on post A drops A's GraphQL page, HTML page and comment list; B's stay hits", async () => {
      const a = await createPost(app, app.tokens.alice, { title: 'Post A' });
      const b = await createPost(app, app.tokens.alice, { title: 'Post B' });
      await warm(app, a.id);
      await warm(app, b.id);
      await createComment(app, app.tokens.alice, a.id, 'A comment on A');
      const onA = await viewsOf(app, a.id);
      expect([onA.graphql, onA.html, onA.comments]).toEqual([MISS, MISS, MISS]);
      for (const text of onA.texts) expect(text).toContain('A comment on A');
      const onB = await viewsOf(app, b.id);
      expect([onB.graphql, onB.html, onB.comments]).toEqual([HIT, HIT, HIT]);
    });

    it("hiding a comment drops its post's pages; another post's stay hits", async () => {
      const a = await createPost(app, app.tokens.alice);
      const b = await createPost(app, app.tokens.alice);
      const comment = await createComment(app, app.tokens.alice, a.id, 'Soon hidden');
      await warm(app, a.id);
      await warm(app, b.id);
      expect((await viewsOf(app, a.id)).texts[1]).toContain('Soon hidden');
      await request(app.server).patch(`/comments/${comment.id}`).set(bearer(admin)).send({ status: 'hidden' }).expect(200);
      const onA = await viewsOf(app, a.id);
      expect([onA.graphql, onA.html, onA.comments]).toEqual([MISS, MISS, MISS]);
      for (const text of onA.texts) expect(text).not.toContain('Soon hidden');
      expect(allHits(await viewsOf(app, b.id))).toBe(true);
    });

    it('an edit of post A drops A, /posts and /tags; the cached page of post B stays a hit', async () => {
      const a = await createPost(app, app.tokens.alice, { title: 'A before' });
      const b = await createPost(app, app.tokens.alice, { title: 'B stays' });
      await warm(app, a.id);
      await warm(app, b.id);
      const lists = () => Promise.all(['/posts?limit=100', '/tags'].map((path) => request(app.server).get(path).expect(200)));
      await until('the lists from memory', async () => (await lists()).every((response) => response.headers['cache-status'] === HIT));
      await request(app.server).patch(`/posts/${a.id}`).set(bearer(app.tokens.alice)).send({ title: 'A after' }).expect(200);
      const onA = await viewsOf(app, a.id);
      expect([onA.graphql, onA.html]).toEqual([MISS, MISS]);
      expect(onA.texts[0]).toContain('A after');
      const [posts, tags] = await lists();
      expect(posts.headers['cache-status']).toBe(MISS);
      expect(posts.text).toContain('A after');
      expect(tags.headers['cache-status']).toBe(MISS);
      const onB = await viewsOf(app, b.id);
      expect([onB.graphql, onB.html, onB.comments]).toEqual([HIT, HIT, HIT]);
    });

    it('publishing, trashing and restoring a post drop the lists', async () => {
      const post = await createPost(app, app.tokens.alice, { title: `Listed ${randomBytes(3).toString('hex')}`, status: 'draft' });
      const list = () => request(app.server).get('/posts?limit=100').expect(200);
      const warmList = () => until('the list from memory', async () => (await list()).headers['cache-status'] === HIT);
      const listed = async () => {
        const response = await list();
        expect(response.headers['cache-status']).toBe(MISS);
        return (response.body as { id: number }[]).some((item) => item.id === post.id);
      };
      await warmList();
      await request(app.server).patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
      expect(await listed()).toBe(true);
      await warmList();
      await request(app.server).delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
      expect(await listed()).toBe(false);
      await warmList();
      await request(app.server).patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
      expect(await listed()).toBe(true);
    });

    it("an author's new name drops the pages that show it", async () => {
      const post = await createPost(app, app.tokens.alice);
      await warm(app, post.id);
      await request(app.server).patch(`/users/${post.authorId}`).set(bearer(app.tokens.alice)).send({ name: 'Alice Tagged' }).expect(200);
      const views = await viewsOf(app, post.id);
      expect([views.graphql, views.html]).toEqual([MISS, MISS]);
      expect(views.texts[0]).toContain('Alice Tagged');
      expect(views.texts[1]).toContain('Alice Tagged');
      await request(app.server).patch(`/users/${post.authorId}`).set(bearer(app.tokens.alice)).send({ name: 'Alice Author' }).expect(200);
    });

    it('hammer, comments: no read that starts after a comment was acknowledged misses it; another post stays cached', async () => {
      const post = await createPost(app, app.tokens.alice);
      const other = await createPost(app, app.tokens.alice);
      await warm(app, other.id);
      let acknowledged = 0;
      let writing = true;
      const observations: { seen: number; atLeast: number; reader: string }[] = [];
      const json = async () => ((await request(app.server).get(`/posts/${post.id}/comments?limit=100`).expect(200)).body as unknown[]).length;
      const page = async () => (expectData(await graphql(app, PAGE_QUERY, { id: post.id })).post.comments as unknown[]).length;
      const html = async () => ((await request(app.server).get(`/posts/${post.id}`).set('accept', 'text/html').expect(200)).text.match(/hammered-\d+-\d+/g) ?? []).length;
      const writers = Array.from({ length: 3 }, async (_, writer) => {
        // 18 in all: every one fits the GraphQL page's first page (20).
        for (let n = 0; n < 6; n += 1) {
          await createComment(app, app.tokens.alice, post.id, `hammered-${writer}-${n}`);
          acknowledged += 1;
        }
      });
      const readers = Object.entries({ json, page, html, json2: json, page2: page }).map(async ([reader, read]) => {
        while (writing) {
          const atLeast = acknowledged;
          observations.push({ seen: await read(), atLeast, reader });
        }
      });
      await Promise.all(writers);
      writing = false;
      await Promise.all(readers);
      expect(observations.length).toBeGreaterThan(0);
      for (const { seen, atLeast, reader } of observations) expect(seen, `${reader} saw ${seen} comments after ${atLeast} were acknowledged`).toBeGreaterThanOrEqual(atLeast);
      expect(await json()).toBe(18);
      expect(allHits(await viewsOf(app, other.id))).toBe(true);
    });
  });
});

describe('GraphQL answers from memory, before Apollo', () => {
  const app = useApp('sqlite', { env: { RATE_LIMIT_MAX: '40', RATE_LIMIT_WINDOW_S: '60' }, signIn: [] });
  const http = () => request(app.server);
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  const post = (body: unknown, accept?: string) => {
    const call = http().post('/graphql').set('content-type', 'application/json');
    if (accept !== undefined) call.set('accept', accept);
    return call.send(JSON.stringify(body));
  };

  it('a hit is the miss again, byte for byte, in the media type Apollo would choose for its Accept; and it counts as an operation', async () => {
    const body = { query: POST_QUERY, variables: { id: 1 } };
    const miss = await post(body).expect(200);
    expect(miss.headers['cache-status']).toBe(MISS);
    const operations = await metricValue(app, 'graphql_operations_total', { type: 'query' });
    for (const accept of [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9']) {
      const hit = await post(body, accept).expect(200);
      expect(hit.headers['cache-status'], String(accept)).toBe(HIT);
      expect(hit.text).toBe(miss.text);
      // The same document but for a comment: a miss, answered by Apollo, for the headers to compare.
      const apollo = await post({ ...body, query: `${POST_QUERY} # ${String(accept)}` }, accept).expect(200);
      expect(apollo.headers['cache-status'], String(accept)).toBe(MISS);
      expect(hit.headers['content-type'], String(accept)).toBe(apollo.headers['content-type']);
    }
    expect(await metricValue(app, 'graphql_operations_total', { type: 'query' })).toBe(operations + 10);
  });

  it('an Accept that Apollo cannot serve is still refused by Apollo (406), not answered from memory', async () => {
    const body = { query: POST_QUERY, variables: { id: 2 } };
    await post(body).expect(200);
    const refused = await post(body, 'text/csv');
    expect(refused.status).toBe(406);
    expect(refused.headers['cache-status']).not.toBe(HIT);
  });

  it('persisted queries: a lookup by id is kept under that id; the request that registers one is never answered from memory', async () => {
    const query = `${POST_QUERY} # apq ${randomBytes(4).toString('hex')}`;
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    const unknown = await post({ variables: { id: 1 }, extensions: { persistedQuery } }).expect(200);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    for (let i = 0; i < 2; i += 1) {
      const registering = await post({ query, variables: { id: 1 }, extensions: { persistedQuery } }).expect(200);
      expect(registering.headers['cache-status']).toBe(UNCACHEABLE);
      expect(registering.body.data.post.id).toBe(1);
    }
    const byId = await post({ variables: { id: 1 }, extensions: { persistedQuery } }).expect(200);
    expect(byId.headers['cache-status']).toBe(MISS);
    const again = await post({ variables: { id: 1 }, extensions: { persistedQuery } }).expect(200);
    expect(again.headers['cache-status']).toBe(HIT);
    expect(again.text).toBe(byId.text);
    // Another version of the protocol is the gate's to refuse, never answered from the entry of version 1.
    const otherVersion = await post({ variables: { id: 1 }, extensions: { persistedQuery: { ...persistedQuery, version: 2 } } });
    expect(otherVersion.status).toBe(400);
    expect(otherVersion.headers['cache-status']).not.toBe(HIT);
  });

  it('errors and malformed requests are never kept: a hit never hides the error they deserve', async () => {
    for (let i = 0; i < 2; i += 1) {
      const missing = await post({ query: POST_QUERY, variables: { id: 999_999 } }).expect(200);
      expect(missing.body.data.post).toBeNull();
      const invalid = await post({ query: POST_QUERY, variables: { id: 'x' } });
      expect(invalid.status).toBe(400);
      expect(invalid.headers['cache-status']).not.toBe(HIT);
      const badVariables = await post({ query: POST_QUERY, variables: [1] });
      expect(badVariables.status).toBe(400);
      expect(badVariables.headers['cache-status']).not.toBe(HIT);
    }
  });

  it('the rate limit counts every request, hits too', async () => {
    const body = { query: POST_QUERY, variables: { id: 3 } };
    const statuses: number[] = [];
    for (let i = 0; i < 45; i += 1) statuses.push((await post(body).set('x-test', String(i))).status);
    expect(statuses).toContain(429);
    const limited = await post(body);
    expect(limited.status).toBe(429);
    expect(limited.headers['cache-status']).not.toBe(HIT);
  });
});

describe('RESPONSE_CACHE=off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RESPONSE_CACHE: 'off' } });
  });
  afterAll(() => app?.close());

  it('serves nothing from memory and says nothing about it', async () => {
    for (let i = 0; i < 2; i += 1) {
      const statements = await metricValue(app, 'db_queries_total');
      const response = await request(app.server).get('/posts/1').expect(200);
      expect(response.headers['cache-status']).toBeUndefined();
      expect(await metricValue(app, 'db_queries_total')).toBeGreaterThan(statements);
      const query = await graphql(app, POST_QUERY, { id: 1 });
      expect(query.response.headers['cache-status']).toBeUndefined();
    }
  });
});

describe('RESPONSE_CACHE_MAX_MB bounds what is kept', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { RESPONSE_CACHE_MAX_MB: '1' } });
  });
  afterAll(() => app?.close());

  it('drops the least recently used answers beyond the bound', async () => {
    // Lists of 50 to 100 posts of 2 kB each: some fifty answers of about 100 kB pass 1 MB.
    const alice = await tokenFor(app, ALICE);
    for (let i = 0; i < 50; i += 1) await createPost(app, alice, { body: 'x'.repeat(2000) });
    const first = await request(app.server).get('/posts?limit=50').expect(200);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(100_000);
    expect((await request(app.server).get('/posts?limit=50').expect(200)).headers['cache-status']).toBe(HIT);
    for (let limit = 51; limit <= 100; limit += 1) await request(app.server).get(`/posts?limit=${limit}`).expect(200);
    expect((await request(app.server).get('/posts?limit=100').expect(200)).headers['cache-status']).toBe(HIT);
    expect((await request(app.server).get('/posts?limit=50').expect(200)).headers['cache-status']).toBe(MISS);
  });
});

const missing = [!TEST_DATABASE_URL && 'TEST_DATABASE_URL', !TEST_REDIS_URL && 'TEST_REDIS_URL'].filter(Boolean);
const scaleOut = missing.length === 0;

(scaleOut ? describe : describe.skip)(
  `response cache on two instances (PostgreSQL + Redis)${scaleOut ? '' : ` (skipped: ${missing.join(' and ')} not set)`}`,
  () => {
    let database: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let bUrls: ListeningApp;
    let alice: string;
    const clients: WsClient[] = [];
    const subscriptions: LiveSubscription[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const env = { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: `blog-test-cache-${process.pid}-${randomBytes(4).toString('hex')}:` };
      a = await startTestApp('postgres', { database, env });
      b = await startTestApp('postgres', { database, env });
      bUrls = await listen(b);
      alice = await tokenFor(a, ALICE);
    });
    afterEach(async () => {
      for (const subscription of subscriptions.splice(0)) subscription.dispose();
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
      if (b) await waitForNoSubscribers(b);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
    });

    /** A subscription on B to one post's updates: what B has heard of, in order. */
    async function updatesOnB(postId: number): Promise<LiveSubscription> {
      const client = wsClient(bUrls.ws);
      clients.push(client);
      await client.connected;
      const subscription = new LiveSubscription(client.client, 'subscription($id: Int) { postUpdated(id: $id) { title } }', { id: postId });
      subscriptions.push(subscription);
      await waitForSubscribers(b, 'postUpdated', 1);
      return subscription;
    }

    it('a write on A: once its event has arrived on B, B no longer serves the old version', async () => {
      const post = await createPost(a, alice, { title: 'Before' });
      const updates = await updatesOnB(post.id);
      await request(b.server).get(`/posts/${post.id}`).expect(200);
      await graphql(b, POST_QUERY, { id: post.id });
      expect((await request(b.server).get(`/posts/${post.id}`).expect(200)).headers['cache-status']).toBe(HIT);
      expect((await graphql(b, POST_QUERY, { id: post.id })).response.headers['cache-status']).toBe(HIT);

      await request(a.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'After' }).expect(200);
      await updates.received(1);
      expect((await request(b.server).get(`/posts/${post.id}`).expect(200)).body.title).toBe('After');
      expect(expectData(await graphql(b, POST_QUERY, { id: post.id })).post.title).toBe('After');
    });

    it("a comment written on A: B drops post X's views once it has heard, post Y's stay hits", async () => {
      const spy = invalidationsOf(b);
      try {
        const x = await createPost(a, alice);
        const y = await createPost(a, alice);
        // B hears of each write twice (the bus's word and the relay): both, before anything is kept.
        await until("B to hear of both posts", () => spy.touched(`post:${x.id}`) >= 2 && spy.touched(`post:${y.id}`) >= 2);
        await warm(b, x.id);
        await warm(b, y.id);
        // The post's own creation touched comments:X too (twice): count the comment's from here.
        const before = spy.touched(`comments:${x.id}`);
        await createComment(a, alice, x.id, 'Written on A');
        await until('B to hear of the comment', () => spy.touched(`comments:${x.id}`) >= before + 2);
        const onX = await viewsOf(b, x.id);
        expect([onX.graphql, onX.html, onX.comments]).toEqual([MISS, MISS, MISS]);
        for (const text of onX.texts) expect(text).toContain('Written on A');
        const onY = await viewsOf(b, y.id);
        expect([onY.graphql, onY.html, onY.comments]).toEqual([HIT, HIT, HIT]);
      } finally {
        spy.restore();
      }
    });

    it('a user edit on A reaches B too (no subscription event: the bus message alone)', async () => {
      const post = await createPost(a, alice);
      // The post's own message may still be on its way to B: wait until B keeps the user.
      await until('B answers from memory', async () => (await request(b.server).get(`/users/${post.authorId}`).expect(200)).headers['cache-status'] === HIT);
      await request(a.server).patch(`/users/${post.authorId}`).set(bearer(alice)).send({ name: 'Alice Elsewhere' }).expect(200);
      await until('B shows the new name', async () => (await request(b.server).get(`/users/${post.authorId}`).expect(200)).body.name === 'Alice Elsewhere');
      await request(a.server).patch(`/users/${post.authorId}`).set(bearer(alice)).send({ name: 'Alice Author' }).expect(200);
    });

    it('hammer, two instances: writes on A, reads on B; no read that starts after B heard of a write shows an older version', async () => {
      const post = await createPost(a, alice, { title: 'start' });
      const updates = await updatesOnB(post.id);
      const versionOnAck = new Map<string, number>();
      let heard = 1;
      /** The newest version B has heard of: from the titles its subscriber received (acknowledged ones, in order). */
      const heardOnB = () => {
        for (const { postUpdated } of updates.results.map((result) => result.data as { postUpdated: { title: string } })) {
          const version = versionOnAck.get(postUpdated.title);
          if (version !== undefined) heard = Math.max(heard, version);
        }
        return heard;
      };
      const json = async () => (await request(b.server).get(`/posts/${post.id}`).expect(200)).body.title as string;
      const query = async () => expectData(await graphql(b, POST_QUERY, { id: post.id })).post.title as string;
      const { reads } = await hammer({
        post: post.id,
        initialTitle: 'start',
        write: async (title) => {
          const response = await request(a.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title }).expect(200);
          return { etag: response.headers.etag };
        },
        reads: [json, json, query, query],
        fresh: heardOnB,
        acknowledged: (title, version) => versionOnAck.set(title, version),
      });
      expect(reads).toBeGreaterThan(0);
      expect(updates.results.length).toBeGreaterThan(0);
    });
  },
);

(scaleOut ? describe : describe.skip)(
  `response cache and a Redis outage${scaleOut ? '' : ` (skipped: ${missing.join(' and ')} not set)`}`,
  () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let a: TestApp;
    let b: TestApp;
    let alice: string;

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const target = new URL(TEST_REDIS_URL!);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 6379));
      const prefix = `blog-test-cache-outage-${process.pid}-${randomBytes(4).toString('hex')}:`;
      a = await startTestApp('postgres', { database, env: { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix } });
      // B reaches Redis through the proxy: cutting it deafens B alone.
      b = await startTestApp('postgres', { database, env: { REDIS_URL: proxy.rewrite(TEST_REDIS_URL!), REDIS_KEY_PREFIX: prefix } });
      alice = await tokenFor(a, ALICE);
    });
    afterAll(async () => {
      proxy?.restore();
      await a?.close();
      await b?.close();
      await proxy?.close();
      await database?.drop();
    });

    it('an instance that cannot hear the others serves nothing from memory, and starts empty when it hears again', async () => {
      const post = await createPost(a, alice, { title: 'before the outage' });
      const onB = () => request(b.server).get(`/posts/${post.id}`).expect(200);
      await until('B answers from memory', async () => (await onB()).headers['cache-status'] === HIT);

      proxy.cut();
      await until('B stops answering from memory', async () => (await onB()).headers['cache-status'] === MISS);
      await request(a.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'during the outage' }).expect(200);
      for (let i = 0; i < 2; i += 1) {
        const response = await onB();
        expect(response.headers['cache-status']).toBe(MISS);
        expect(response.body.title).toBe('during the outage');
      }

      proxy.restore();
      await until('B answers from memory again', async () => (await onB()).headers['cache-status'] === HIT, 15_000);
      expect((await onB()).body.title).toBe('during the outage');
      await request(a.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'after the outage' }).expect(200);
      await until('B hears of the write', async () => (await onB()).body.title === 'after the outage');
    });
  },
);

describe.skipIf(!TEST_DATABASE_URL)(
  `response cache on two instances without Redis (PostgreSQL)${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let a: TestApp;
    let b: TestApp;
    let bUrls: ListeningApp;
    let alice: string;
    const clients: WsClient[] = [];
    const subscriptions: LiveSubscription[] = [];
    const streams: RawStream[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const target = new URL(database.url);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      a = await startTestApp('postgres', { database });
      // B reaches PostgreSQL through the proxy: cutting it deafens B alone.
      b = await startTestApp('postgres', { database: { ...database, url: proxy.rewrite(database.url) } });
      bUrls = await listen(b);
      alice = await tokenFor(a, ALICE);
    });
    afterEach(async () => {
      proxy.restore();
      for (const subscription of subscriptions.splice(0)) subscription.dispose();
      for (const stream of streams.splice(0)) stream.close();
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
      if (b) await waitForNoSubscribers(b);
    });
    afterAll(async () => {
      proxy?.restore();
      await a?.close();
      await b?.close();
      await proxy?.close();
      await database?.drop();
    });

    it('runs without Redis', () => {
      expect(a.config.redisUrl).toBeFalsy();
      expect(b.config.redisUrl).toBeFalsy();
    });

    /** Waits until B's relay has published every event written so far (another instance's event empties B's cache). */
    async function caughtUpOnB(): Promise<void> {
      const latest = await a.app.get(OutboxRepository).latest();
      const relay = b.app.get(EventRelay);
      await until('B to catch up with the event log', () => relay.published.tx > latest.tx || (relay.published.tx === latest.tx && relay.published.id >= latest.id));
    }

    /** Reads the post on B twice (JSON and GraphQL), so that B answers it from memory. */
    async function warmOnB(postId: number, title: string): Promise<void> {
      for (const expected of [MISS, HIT]) {
        const json = await request(b.server).get(`/posts/${postId}`).expect(200);
        expect(json.headers['cache-status']).toBe(expected);
        expect(json.body.title).toBe(title);
        const query = await graphql(b, POST_QUERY, { id: postId });
        expect(query.response.headers['cache-status']).toBe(expected);
        expect(expectData(query).post.title).toBe(title);
      }
    }

    it("an update on A: once B's subscriber (WebSocket) has the event, B answers the new title", async () => {
      const post = await createPost(a, alice, { title: 'Before' });
      const client = wsClient(bUrls.ws);
      clients.push(client);
      await client.connected;
      const updates = new LiveSubscription(client.client, 'subscription($id: Int) { postUpdated(id: $id) { title } }', { id: post.id });
      subscriptions.push(updates);
      await waitForSubscribers(b, 'postUpdated', 1);
      await caughtUpOnB();
      await warmOnB(post.id, 'Before');

      await request(a.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'After' }).expect(200);
      expect(await updates.received(1)).toEqual([{ title: 'After' }]);
      const json = await request(b.server).get(`/posts/${post.id}`).expect(200);
      expect(json.body.title).toBe('After');
      expect(json.headers['cache-status']).toBe(MISS);
      const query = await graphql(b, POST_QUERY, { id: post.id });
      expect(expectData(query).post.title).toBe('After');
      expect(query.response.headers['cache-status']).toBe(MISS);
    });

    it("a comment written on A: once B has its event, B drops post X's views and post Y's stay hits", async () => {
      const x = await createPost(a, alice);
      const y = await createPost(a, alice);
      await caughtUpOnB();
      await warm(b, x.id);
      await warm(b, y.id);
      await createComment(a, alice, x.id, 'Written on A, heard through PostgreSQL');
      await caughtUpOnB();
      const onX = await viewsOf(b, x.id);
      expect([onX.graphql, onX.html, onX.comments]).toEqual([MISS, MISS, MISS]);
      for (const text of onX.texts) expect(text).toContain('Written on A, heard through PostgreSQL');
      const onY = await viewsOf(b, y.id);
      expect([onY.graphql, onY.html, onY.comments]).toEqual([HIT, HIT, HIT]);
    });

    it("a deletion on A: once B's subscriber (SSE) has the event, B answers 404 and null", async () => {
      const post = await createPost(a, alice, { title: 'Doomed' });
      const stream = await rawStream(bUrls.http, { query: 'subscription($id: Int) { postDeleted(id: $id) }', variables: { id: post.id } });
      streams.push(stream);
      expect(stream.response.status, stream.text).toBe(200);
      await waitForSubscribers(b, 'postDeleted', 1);
      await caughtUpOnB();
      await warmOnB(post.id, 'Doomed');

      await request(a.server).delete(`/posts/${post.id}`).set(bearer(alice)).expect(204);
      await until('the deletion on B', () => stream.events.some((event) => event.event === 'next'));
      expect(stream.events.find((event) => event.event === 'next')!.data).toEqual({ data: { postDeleted: post.id } });
      const json = await request(b.server).get(`/posts/${post.id}`).expect(404);
      expect(json.headers['cache-status']).not.toBe(HIT);
      const query = await graphql(b, POST_QUERY, { id: post.id });
      expect(query.response.headers['cache-status']).not.toBe(HIT);
      expect(expectData(query).post).toBeNull();
    });

    it('writes that record no event reach B too: a new name, a sign-up', async () => {
      const user = await createUser(a);
      const userOnB = () => request(b.server).get(`/users/${user.id}`).expect(200);
      await until('B to answer the user from memory', async () => (await userOnB()).headers['cache-status'] === HIT);
      const list = () => request(b.server).get('/users?limit=100').expect(200);
      await until('B to answer the list from memory', async () => (await list()).headers['cache-status'] === HIT);
      const listed = (await list()).body.length as number;

      await request(a.server).patch(`/users/${user.id}`).set(bearer(user.token)).send({ name: 'Renamed on A' }).expect(200);
      await until('B to show the new name', async () => (await userOnB()).body.name === 'Renamed on A');
      const email = `cache-relay-${randomBytes(4).toString('hex')}@example.com`;
      await request(a.server).post('/users').send({ name: 'Signed up on A', email, password: 'a long password' }).expect(201);
      await until('B to list the new user', async () => (await list()).body.length === listed + 1);
    });

    it('while B cannot hear the database it serves nothing from memory, and starts empty when it hears again', async () => {
      const user = await createUser(a);
      const userOnB = () => request(b.server).get(`/users/${user.id}`);
      await until('B to answer the user from memory', async () => (await userOnB()).headers['cache-status'] === HIT);

      proxy.cut();
      await until('B to stop answering from memory', async () => (await userOnB()).headers['cache-status'] !== HIT);
      await request(a.server).patch(`/users/${user.id}`).set(bearer(user.token)).send({ name: 'Renamed while B was away' }).expect(200);
      proxy.restore();
      await until('B to show the new name', async () => {
        const response = await userOnB();
        return response.status === 200 && response.body.name === 'Renamed while B was away';
      }, 15_000);
    });
  },
);
