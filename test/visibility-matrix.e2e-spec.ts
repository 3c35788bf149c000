import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as SseClient } from 'graphql-sse';
import sharp from 'sharp';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE_ID,
  BOB_ID,
  CALLER_LABELS,
  CALLER_NAMES,
  type Caller,
  type CallerName,
  commentOn,
  createPostIn,
  createPostWith,
  type EditorialPost,
  editorialEnv,
  EVENTS_SUBSCRIPTION,
  expectEditorialFields,
  expectNoMarker,
  eventsSince,
  type FeedEvent,
  fromNow,
  isEditorOfAlice,
  lastCursor,
  marker,
  mayRead,
  patchPost,
  type PostStatus,
  readPost,
  signInCallers,
  sseClient,
  STATES,
  as,
  valuesOf,
  warmUp,
} from './support/editorial.js';
import { graphql, type GraphQLBody } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { type CommentBody, parseXml, xmlFields } from './support/resources.js';
import { type ExecutionResultLike, type ListeningApp, listen, LiveSubscription, type OperationClient, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { Receiver, type WebhookPayload } from './support/webhook-receiver.js';

/**
 * Issue 23's visibility matrix (CONTRACT v3 preamble and §7): ALICE's posts in each state (a
 * draft, one in review (§16), one scheduled an hour ahead, one in the trash, and a published one as the control), each
 * with a comment of hers, read through every door by anonymous, BOB (another author), BOB's API
 * key (read, write), ALICE, ALICE's read key, an admin and the admin's read key (a `read` key
 * reads what anonymous callers read, its user's own drafts not: CONTRACT §3). Each (state, caller, door) is its own test, named after all three. A
 * non-public post must not show through any door to anyone but its author and the admins: 404 on
 * items (never 403), absent from lists and counts, null in GraphQL, no event, no webhook, no cached
 * answer. Every text of a post (title, body, comment) carries a marker that the hidden doors'
 * answers are searched for.
 */

/** The event types that may name a post a reader does not see: they carry ids only. */
const IDS_ONLY = ['POST_UNPUBLISHED', 'POST_DELETED'];
/** The v1 types: a webhook for all of them would hear of anything about a post. */
const V1_TYPES = ['POST_CREATED', 'POST_UPDATED', 'POST_DELETED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED'];

const POST_FIELDS = 'id title status publishAt publishedAt trashedAt';
const POST_QUERY = `query($id: Int!) { post(id: $id) { ${POST_FIELDS} } }`;

interface Fixture {
  state: PostStatus;
  post: EditorialPost;
  comment: CommentBody;
  /** In the post's title and body, in the comment's body and in the alt text of the cover. */
  mark: string;
  /** The post's cover image, uploaded by ALICE (CONTRACT §14: public exactly when the post is). */
  cover: { id: number };
  /** A published translation of the post (CONTRACT §15), by ALICE: its `translations` show the post to whoever may see it. */
  sibling: EditorialPost;
}

interface Cell {
  state: PostStatus;
  caller: Caller;
  /** Whether the caller may see the post (and its comment). */
  visible: boolean;
  fixture: Fixture;
  /** The door's name, for the messages. */
  door: string;
}

interface Door {
  name: string;
  /** Whether the door is asked for this state and caller (default: always). */
  applies?: (state: PostStatus, caller: CallerName) => boolean;
  /** What the test name says is expected. */
  outcome?: (state: PostStatus, caller: CallerName) => string;
  check: (cell: Cell) => Promise<void>;
}

const upper = (state: PostStatus) => state.toUpperCase();
const bobs = (caller: CallerName) => caller === 'bob' || caller === 'bobKey';

describeEachDatabase('visibility matrix: ALICE’s posts in each state × callers × doors', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let callers: Record<CallerName, Caller>;
  const receiver = new Receiver();
  /** The cursor of the last event before the fixture was written. */
  let start: string;
  const fixtures = new Map<PostStatus, Fixture>();
  /** A public post by BOB written after the fixture: whoever has seen it has seen everything before it. */
  let sentinel: EditorialPost;
  const wsClients = new Map<CallerName, Promise<WsClient>>();
  const sseClients: SseClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const memo = new Map<string, Promise<unknown>>();
  const http = () => request(app.server);
  let mediaDir: string;

  /** One computation shared by the tests that look at its result (a feed, a replay). */
  function once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as Promise<T>;
  }

  const tokenOf = (caller: CallerName) => callers[caller].token;
  const alice = () => callers.alice.token!;

  function wsFor(caller: CallerName): Promise<WsClient> {
    if (!wsClients.has(caller)) {
      wsClients.set(
        caller,
        (async () => {
          const client = wsClient(urls.ws, { token: tokenOf(caller) });
          await Promise.race([client.connected, client.closed.then((event) => Promise.reject(new Error(`the socket of ${caller} closed: ${event.code} ${event.reason}`)))]);
          return client;
        })(),
      );
    }
    return wsClients.get(caller)!;
  }

  function sseFor(caller: CallerName): SseClient {
    const client = sseClient(urls.http, tokenOf(caller));
    sseClients.push(client);
    return client;
  }

  function subscribe(client: OperationClient, query: string, variables?: Record<string, unknown>): LiveSubscription {
    const subscription = new LiveSubscription(client, query, variables);
    subscriptions.push(subscription);
    return subscription;
  }

  /** A query or mutation sent over a live transport: its one result. */
  async function runOver(client: OperationClient, query: string, variables: Record<string, unknown>): Promise<ExecutionResultLike> {
    const operation = subscribe(client, query, variables);
    await until('the answer', () => operation.completed || operation.error !== undefined);
    if (operation.error !== undefined) throw new Error(`The operation failed: ${JSON.stringify(operation.error)}`);
    expect(operation.results).toHaveLength(1);
    return operation.results[0];
  }

  /** GET /graphql?query=…&variables=… with the caller's credential. */
  async function graphqlGet(caller: CallerName, query: string, variables: Record<string, unknown>): Promise<{ response: Response; body: GraphQLBody }> {
    const response = await as(http().get('/graphql').query({ query, variables: JSON.stringify(variables) }).set('accept', 'application/graphql-response+json, application/json'), tokenOf(caller));
    expect(response.headers['content-type'], response.text).toMatch(/^application\/(graphql-response\+)?json/);
    return { response, body: JSON.parse(response.text) as GraphQLBody };
  }

  const gql = (caller: CallerName, query: string, variables?: Record<string, unknown>) => graphql(app, query, variables, { token: tokenOf(caller) });

  async function makeFixture(state: PostStatus): Promise<Fixture> {
    // Neutral: the marker must not spell the state, which the HTML door looks for.
    const mark = marker('fx');
    let comment: CommentBody | undefined;
    const cover = await uploadCover(mark);
    // The trashed post gets its comment and cover while it is a draft (a trashed post takes no edits).
    const addComment = async (post: EditorialPost) => {
      comment = await commentOn(app, post.id, alice(), `A remark ${mark}`);
      await patchPost(app, post.id, alice(), { coverImageId: cover.id });
    };
    const post = await createPostIn(app, alice(), state, { title: `Title ${mark}`, body: `Body ${mark}`, beforeTrash: addComment });
    if (!comment) await addComment(post);
    expect(post.status, `the ${state} post of the fixture`).toBe(state);
    // Neutral too: the sibling is public, and its doors are searched for the marker.
    const sibling = await createPostWith(app, alice(), { title: 'A translation', body: 'Eine Übersetzung', locale: 'de', translationOf: { postId: post.id } });
    return { state, post, comment: comment!, mark, cover, sibling };
  }

  /** A small PNG uploaded by ALICE, its alt text carrying the marker. */
  const uploadCover = (mark: string) => uploadImage(alice(), `Cover ${mark}`);

  /** A small PNG uploaded with the token, with this alt text. */
  async function uploadImage(token: string, alt: string): Promise<{ id: number }> {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 40, g: 90, b: 200 } } }).png().toBuffer();
    const response = await http().post('/media').set('authorization', `Bearer ${token}`).field('alt', alt).attach('file', png, { filename: 'cover.png', contentType: 'image/png' });
    expect(response.status, response.text).toBe(201);
    return { id: (response.body as { id: number }).id };
  }

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), `matrix-media-${kind}-`));
    app = await startTestApp(kind, { env: editorialEnv(kind, { MEDIA_DIR: mediaDir, SUPPORTED_LOCALES: 'en,de' }) });
    urls = await listen(app);
    callers = await signInCallers(app);
    await receiver.start();
    await http().post('/webhooks').set('authorization', `Bearer ${callers.admin.token}`).send({ url: receiver.url(), types: V1_TYPES }).expect(201);
    // A public write first, so that there is a cursor to replay from.
    await createPostWith(app, callers.bob.token!, { title: 'Opening', body: 'Before the fixture' });
    start = (await lastCursor(app, callers.admin.token))!;
    for (const state of STATES) fixtures.set(state, await makeFixture(state));
    sentinel = await createPostWith(app, callers.bob.token!, { title: 'Sentinel', body: 'After the fixture' });
  });
  afterAll(async () => {
    for (const subscription of subscriptions) subscription.dispose();
    for (const client of sseClients) client.dispose();
    await Promise.all([...wsClients.values()].map(async (client) => (await client.catch(() => undefined))?.dispose()));
    await app?.close();
    await receiver.stop();
    if (mediaDir) await rm(mediaDir, { recursive: true, force: true });
  });

  // -------------------------------------------------------------------------------------------
  // Checks shared by the doors

  function expectItem404(response: Response, cell: Cell, problemJson = true): void {
    expect(response.status, `${cell.door}: ${response.text.slice(0, 200)}`).toBe(404);
    if (problemJson) expectProblem(response, 404, 'NOT_FOUND');
    expectNoMarker(response.text, cell.fixture.mark, cell.door);
  }

  /** A list door: the post is there exactly when `listed`; when it is not, nothing of it is. */
  function expectListed(ids: number[], text: string, cell: Cell, listed: boolean): void {
    expect(ids.includes(cell.fixture.post.id), `${cell.door}: lists post ${cell.fixture.post.id} (ids ${ids.join(',')})`).toBe(listed);
    if (!listed) expectNoMarker(text, cell.fixture.mark, cell.door);
  }

  /** The revisions doors: the author and admins read them; for a public post others get no 2xx, for a hidden one a 404. */
  function expectRevisionsRefused(response: Response, cell: Cell): void {
    if (cell.state === 'published') {
      expect([401, 403, 404], `${cell.door}: ${response.status} ${response.text.slice(0, 200)}`).toContain(response.status);
    } else {
      expectItem404(response, cell);
    }
  }

  interface FeedItem {
    type: string;
    postId?: number | null;
    commentId?: number | null;
  }

  /** A feed (GET /events, a replay) that shows the post: its POST_CREATED with the post, and its comment's COMMENT_CREATED. */
  function expectFeedShows<E extends FeedItem>(events: E[], title: (event: E) => unknown, cell: Cell): void {
    const created = events.find((event) => event.type === 'POST_CREATED' && event.postId === cell.fixture.post.id);
    expect(created, `${cell.door}: the POST_CREATED of post ${cell.fixture.post.id}`).toBeDefined();
    expect(title(created!), `${cell.door}: the POST_CREATED carries the post`).toBe(cell.fixture.post.title);
    expect(
      events.some((event) => event.type === 'COMMENT_CREATED' && event.commentId === cell.fixture.comment.id),
      `${cell.door}: the COMMENT_CREATED of comment ${cell.fixture.comment.id}`,
    ).toBe(true);
  }

  /** A feed that hides the post: at most ids-only events name it, and none of its text is anywhere. */
  function expectFeedHides<E extends FeedItem>(events: E[], content: (event: E) => unknown, cell: Cell): void {
    for (const event of events.filter((item) => item.postId === cell.fixture.post.id)) {
      expect(IDS_ONLY, `${cell.door}: a ${event.type} event about post ${cell.fixture.post.id}`).toContain(event.type);
      expect(content(event) ?? null, `${cell.door}: the ${event.type} event carries ids only`).toBeNull();
    }
    expectNoMarker(JSON.stringify(events), cell.fixture.mark, cell.door);
  }

  /** GET /events after the start, as the caller, up to the sentinel. */
  const feed = (caller: CallerName) =>
    once(`feed:${caller}`, async () => {
      const events = await eventsSince(app, tokenOf(caller), start);
      expect(events.some((event) => event.type === 'POST_CREATED' && event.postId === sentinel.id), `GET /events as ${caller} reaches the sentinel`).toBe(true);
      return events;
    });

  /** The `events(after:)` replay as the caller over a transport, up to the sentinel. */
  const replay = (caller: CallerName, transport: 'WebSocket' | 'SSE') =>
    once(`replay:${caller}:${transport}`, async () => {
      const client = transport === 'WebSocket' ? (await wsFor(caller)).client : sseFor(caller);
      const subscription = subscribe(client, EVENTS_SUBSCRIPTION, { after: start });
      await until(
        `the replay as ${caller} over ${transport} to reach the sentinel`,
        () =>
          subscription.error !== undefined ||
          subscription.results.some((result) => result.errors) ||
          valuesOf(subscription).some((event) => event?.type === 'POST_CREATED' && event.postId === sentinel.id),
        20_000,
      );
      subscription.dispose();
      expect(subscription.error, JSON.stringify(subscription.error)).toBeUndefined();
      return subscription.values as { type: string; postId: number | null; commentId: number | null; post: { title: string } | null; comment: unknown }[];
    });

  /** A preview link's token for a post, made once by the admin. */
  const previewOf = (postId: number) =>
    once(`preview:${postId}`, async () => {
      const response = await as(http().post(`/posts/${postId}/previews`), tokenOf('admin')).expect(201);
      return (response.body as { token: string }).token;
    });

  /** Every delivery up to the sentinel's POST_CREATED. */
  const deliveries = () =>
    once('deliveries', async () => {
      await until('the webhook delivery of the sentinel', () => receiver.payloads().some((payload) => payload.type === 'POST_CREATED' && payload.data.postId === sentinel.id), 20_000);
      return receiver.receipts.map((receipt) => receipt.body);
    });

  /**
   * A public list in a locale (CONTRACT §15) shows one post of the fixture's group, whoever asks:
   * in en the post when it is published, else its published de sibling; in de the sibling; with
   * `*` every published one. Never the post unless it is public, never both but with `*`.
   */
  function expectOneOfGroup(ids: number[], text: string, cell: Cell, locale: 'en' | 'de' | '*'): void {
    const showsPost = locale !== 'de' && cell.state === 'published';
    expectListed(ids, text, cell, showsPost);
    expect(ids.includes(cell.fixture.sibling.id), `${cell.door}: lists its published translation ${cell.fixture.sibling.id} (ids ${ids.join(',')})`).toBe(locale === '*' || !showsPost);
  }

  const groupOutcome = (locale: 'en' | 'de' | '*') => (state: PostStatus) =>
    locale === '*' ? (state === 'published' ? 'lists it and its translation' : 'lists its translation only') : locale === 'en' && state === 'published' ? 'lists it, not its translation' : 'lists its translation instead';

  // -------------------------------------------------------------------------------------------
  // The doors

  const readDoor = (name: string, check: Door['check'], applies?: Door['applies'], outcome?: Door['outcome']): Door => ({ name, check, applies, outcome });
  const ifVisible = (state: PostStatus, caller: CallerName) => (mayRead(caller, state) ? 'shows it' : 'hides it');
  const revisionsOutcome = (state: PostStatus, caller: CallerName) =>
    isEditorOfAlice(caller) ? 'shows them' : state === 'published' ? 'refused (401, 403 or 404)' : 'hides them (404)';

  const DOORS: Door[] = [
    readDoor('GET /posts/{id} (JSON)', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: cell.fixture.post.id, title: cell.fixture.post.title, authorId: ALICE_ID });
      expectEditorialFields(response.body, cell.state, cell.door);
    }),
    readDoor('GET /posts/{id} (HAL)', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}`).set('accept', 'application/hal+json'), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/hal\+json/);
      const body = JSON.parse(response.text) as Record<string, unknown>;
      expect(body).toMatchObject({ id: cell.fixture.post.id, title: cell.fixture.post.title });
      expectEditorialFields(body, cell.state, cell.door);
    }),
    readDoor('GET /posts/{id} (XML)', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}`).set('accept', 'application/xml'), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell, false);
      expect(response.status, response.text).toBe(200);
      const root = parseXml(response.text);
      expect(root.name).toBe('post');
      const { fields } = xmlFields(root);
      expect(fields).toMatchObject({ id: String(cell.fixture.post.id), title: cell.fixture.post.title, status: cell.state });
      for (const field of ['publishAt', 'publishedAt', 'trashedAt']) expect(root.children.map((child) => child.name), `${cell.door}: <${field}>`).toContain(field);
    }),
    readDoor('GET /posts/{id} (HTML)', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}`).set('accept', 'text/html'), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell, false);
      expect(response.status, response.text.slice(0, 200)).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toContain(cell.fixture.post.title);
      expect(response.text.toLowerCase(), `${cell.door}: the page says the post is ${cell.state}`).toContain(cell.state);
    }),
    readDoor('HEAD /posts/{id}', async (cell) => {
      const response = await as(http().head(`/posts/${cell.fixture.post.id}`), cell.caller.token);
      expect(response.status, cell.door).toBe(cell.visible ? 200 : 404);
    }),
    readDoor('GET /posts/{id}/comments', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}/comments`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect((response.body as CommentBody[]).map((comment) => comment.id)).toEqual([cell.fixture.comment.id]);
    }),
    readDoor('GET /comments/{id} (its comment)', async (cell) => {
      const response = await as(http().get(`/comments/${cell.fixture.comment.id}`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: cell.fixture.comment.id, postId: cell.fixture.post.id, body: cell.fixture.comment.body });
    }),
    readDoor('GET /posts/{id}/revisions', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}/revisions`), cell.caller.token);
      if (!isEditorOfAlice(cell.caller.name)) return expectRevisionsRefused(response, cell);
      expect(response.status, response.text).toBe(200);
      const revisions = response.body as { number: number; status: string }[];
      const numbers = revisions.map((revision) => revision.number);
      expect(numbers, `${cell.door}: newest first, down to 1`).toEqual([...numbers].sort((a, b) => b - a));
      expect(numbers.at(-1)).toBe(1);
      expect(revisions[0].status, `${cell.door}: the newest revision has the post's status`).toBe(cell.state);
    }, undefined, revisionsOutcome),
    readDoor('GET /posts/{id}/revisions/1', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}/revisions/1`), cell.caller.token);
      if (!isEditorOfAlice(cell.caller.name)) return expectRevisionsRefused(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        number: 1,
        title: cell.fixture.post.title,
        body: cell.fixture.post.body,
        // The trashed post of the fixture was a draft before it went to the trash.
        status: cell.state === 'trashed' ? 'draft' : cell.state,
        editorId: ALICE_ID,
        createdAt: expect.stringMatching(/Z$/),
      });
    }, undefined, revisionsOutcome),
    // GET /posts lists public posts only, whoever asks (`?status=` lists the others).
    readDoor('GET /posts (the public list, JSON)', async (cell) => {
      const response = await as(http().get('/posts?limit=100'), cell.caller.token).expect(200);
      expectListed((response.body as { id: number }[]).map((post) => post.id), response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /posts (the public list, HAL)', async (cell) => {
      const response = await as(http().get('/posts?limit=100').set('accept', 'application/hal+json'), cell.caller.token).expect(200);
      const hal = JSON.parse(response.text) as { _embedded: { posts: { id: number }[] } };
      expectListed(hal._embedded.posts.map((post) => post.id), response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /posts (the public list, XML)', async (cell) => {
      const response = await as(http().get('/posts?limit=100').set('accept', 'application/xml'), cell.caller.token).expect(200);
      const ids = parseXml(response.text).children.map((child) => Number(xmlFields(child).fields.id));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /posts (the public list, HTML)', async (cell) => {
      const response = await as(http().get('/posts?limit=100').set('accept', 'text/html'), cell.caller.token).expect(200);
      const ids = [...response.text.matchAll(/href="\/posts\/(\d+)"/g)].map((match) => Number(match[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),
    {
      name: 'GET /posts?status={state}',
      applies: (state) => state !== 'published',
      outcome: (_state, caller) => (caller === 'anonymous' ? '401' : isEditorOfAlice(caller) ? 'lists it' : 'does not list it'),
      check: async (cell) => {
        const response = await as(http().get(`/posts?status=${cell.state}&limit=100`), cell.caller.token);
        if (cell.caller.name === 'anonymous') {
          expectProblem(response, 401);
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(response.status, response.text).toBe(200);
        const posts = response.body as { id: number; status: string; authorId: number }[];
        expectListed(
          posts.map((post) => post.id),
          response.text,
          cell,
          isEditorOfAlice(cell.caller.name),
        );
        for (const post of posts) expect(post.status, `${cell.door}: post ${post.id}`).toBe(cell.state);
        // A read key lists nothing non-public, an author their own, an admin everyone's.
        if (cell.caller.name === 'aliceKey' || cell.caller.name === 'adminKey') expect(posts, cell.door).toEqual([]);
        else if (cell.caller.name !== 'admin') for (const post of posts) expect(post.authorId, `${cell.door}: post ${post.id}`).toBe(cell.caller.name === 'alice' ? ALICE_ID : BOB_ID);
      },
    },
    readDoor(
      'GET /users/{alice}/posts',
      async (cell) => {
        const response = await as(http().get(`/users/${ALICE_ID}/posts?limit=100`), cell.caller.token).expect(200);
        expectListed((response.body as { id: number }[]).map((post) => post.id), response.text, cell, cell.visible);
      },
      // Whether ALICE's own list (and an admin's view of it) holds her non-public posts is left open.
      (state, caller) => state === 'published' || !isEditorOfAlice(caller),
    ),

    // GraphQL
    readDoor('GraphQL post(id) (POST /graphql)', async (cell) => {
      const { body } = await gql(cell.caller.name, POST_QUERY, { id: cell.fixture.post.id });
      expect(body.errors, `${cell.door}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.post, cell.door).toBeNull();
        return;
      }
      expect(body.data.post).toMatchObject({ id: cell.fixture.post.id, title: cell.fixture.post.title, status: upper(cell.state) });
    }),
    readDoor('GraphQL post(id) (GET /graphql)', async (cell) => {
      const { response, body } = await graphqlGet(cell.caller.name, POST_QUERY, { id: cell.fixture.post.id });
      expect(body.errors, `${cell.door}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.post, cell.door).toBeNull();
        return expectNoMarker(response.text, cell.fixture.mark, cell.door);
      }
      expect(body.data.post).toMatchObject({ id: cell.fixture.post.id, status: upper(cell.state) });
    }),
    readDoor('GraphQL post(id) over WebSocket', async (cell) => {
      const result = await runOver((await wsFor(cell.caller.name)).client, POST_QUERY, { id: cell.fixture.post.id });
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(result.data.post, cell.door).toBeNull();
        return;
      }
      expect(result.data.post).toMatchObject({ id: cell.fixture.post.id, status: upper(cell.state) });
    }),
    readDoor('GraphQL post(id) over SSE', async (cell) => {
      const result = await runOver(sseFor(cell.caller.name), POST_QUERY, { id: cell.fixture.post.id });
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(result.data.post, cell.door).toBeNull();
        return;
      }
      expect(result.data.post).toMatchObject({ id: cell.fixture.post.id, status: upper(cell.state) });
    }),
    readDoor("its published translation's GraphQL translations", async (cell) => {
      const { body, response } = await gql(cell.caller.name, 'query($id: Int!) { post(id: $id) { id translations { id locale title } } }', { id: cell.fixture.sibling.id });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const ids = (body.data.post.translations as { id: number }[]).map((translation) => translation.id);
      expectListed(ids, response.text, cell, cell.visible);
    }),
    readDoor("its published translation's _links.translations (JSON)", async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.sibling.id}`), cell.caller.token);
      expect(response.status, response.text).toBe(200);
      const links = (response.body as { _links: { translations?: { href: string; hreflang: string }[] } })._links.translations ?? [];
      expect(links, cell.door).toEqual(cell.visible ? [{ href: `/posts/${cell.fixture.post.id}`, hreflang: 'en' }] : []);
      if (!cell.visible) expectNoMarker(response.text, cell.fixture.mark, cell.door);
    }),
    readDoor('GraphQL posts { totalCount edges } (the public list)', async (cell) => {
      const { body, response } = await gql(cell.caller.name, '{ posts(first: 100) { totalCount edges { node { id } } } }');
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const ids = (body.data.posts.edges as { node: { id: number } }[]).map((edge) => edge.node.id);
      expectListed(ids, response.text, cell, cell.state === 'published');
      expect(body.data.posts.totalCount, `${cell.door}: totalCount counts what is listed`).toBe(ids.length);
    }),
    {
      name: 'GraphQL posts(status: STATE) { totalCount edges }',
      applies: (state) => state !== 'published',
      outcome: (_state, caller) => (caller === 'anonymous' ? 'UNAUTHENTICATED' : isEditorOfAlice(caller) ? 'lists it' : 'does not list it'),
      check: async (cell) => {
        const { body, response } = await gql(cell.caller.name, `{ posts(status: ${upper(cell.state)}, first: 100) { totalCount edges { node { id status } } } }`);
        if (cell.caller.name === 'anonymous') {
          expect((body.errors ?? []).map((error) => error.extensions.code), JSON.stringify(body)).toEqual(['UNAUTHENTICATED']);
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        const nodes = (body.data.posts.edges as { node: { id: number; status: string } }[]).map((edge) => edge.node);
        expectListed(
          nodes.map((node) => node.id),
          response.text,
          cell,
          isEditorOfAlice(cell.caller.name),
        );
        for (const node of nodes) expect(node.status, `${cell.door}: post ${node.id}`).toBe(upper(cell.state));
        expect(body.data.posts.totalCount, `${cell.door}: totalCount counts what is listed`).toBe(nodes.length);
      },
    },
    readDoor(
      'GraphQL user(id: alice) { posts }',
      async (cell) => {
        const { body, response } = await gql(cell.caller.name, `{ user(id: ${ALICE_ID}) { posts(first: 100) { id } } }`);
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        expectListed((body.data.user.posts as { id: number }[]).map((post) => post.id), response.text, cell, cell.visible);
      },
      (state, caller) => state === 'published' || !isEditorOfAlice(caller),
    ),
    readDoor('GraphQL comment(id) { post }', async (cell) => {
      const { body, response } = await gql(cell.caller.name, 'query($id: Int!) { comment(id: $id) { id body post { id title status } } }', { id: cell.fixture.comment.id });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.comment, cell.door).toBeNull();
        return expectNoMarker(response.text, cell.fixture.mark, cell.door);
      }
      expect(body.data.comment).toMatchObject({ id: cell.fixture.comment.id, post: { id: cell.fixture.post.id, status: upper(cell.state) } });
    }),
    readDoor('GraphQL post(id) { commentCount comments }', async (cell) => {
      const { body } = await gql(cell.caller.name, 'query($id: Int!) { post(id: $id) { commentCount comments { id } } }', { id: cell.fixture.post.id });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.post, cell.door).toBeNull();
        return;
      }
      expect(body.data.post).toEqual({ commentCount: 1, comments: [{ id: cell.fixture.comment.id }] });
    }),
    readDoor(
      'GraphQL post(id) { revisions }',
      async (cell) => {
        const { body, response } = await gql(cell.caller.name, 'query($id: Int!) { post(id: $id) { revisions { number title status editorId } } }', { id: cell.fixture.post.id });
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        if (!cell.visible) {
          expect(body.data.post, cell.door).toBeNull();
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        const revisions = body.data.post.revisions as { number: number; status: string; editorId: number }[];
        expect(revisions[0].status, `${cell.door}: the newest first`).toBe(upper(cell.state));
        expect(revisions.at(-1)).toMatchObject({ number: 1, title: cell.fixture.post.title, editorId: ALICE_ID });
      },
      // For a public post, how others are refused its revisions (an error, or an empty list) is left open.
      (state, caller) => state !== 'published' || isEditorOfAlice(caller),
    ),

    // The event feed and its subscription
    readDoor('GET /events (JSON)', async (cell) => {
      const events = await feed(cell.caller.name);
      if (cell.visible) expectFeedShows(events, (event: FeedEvent) => event.resource?.title, cell);
      else expectFeedHides(events, (event: FeedEvent) => event.resource, cell);
    }),
    readDoor('GET /events (HAL)', async (cell) => {
      const response = await as(http().get(`/events?limit=100&after=${start}`).set('accept', 'application/hal+json'), cell.caller.token).expect(200);
      const events = (JSON.parse(response.text) as { _embedded: { events: FeedEvent[] } })._embedded.events;
      if (cell.visible) expectFeedShows(events, (event: FeedEvent) => event.resource?.title, cell);
      else expectFeedHides(events, (event: FeedEvent) => event.resource, cell);
    }),
    readDoor('GET /events (XML)', async (cell) => {
      const response = await as(http().get(`/events?limit=100&after=${start}`).set('accept', 'application/xml'), cell.caller.token).expect(200);
      const events = parseXml(response.text).children.map((element) => xmlFields(element).fields);
      const about = events.filter((event) => Number(event.postId) === cell.fixture.post.id);
      if (cell.visible) {
        expect(about.map((event) => event.type), cell.door).toContain('POST_CREATED');
        expect(response.text, cell.door).toContain(cell.fixture.post.title);
        return;
      }
      for (const event of about) expect(IDS_ONLY, `${cell.door}: a ${event.type} event about the post`).toContain(event.type);
      expectNoMarker(response.text, cell.fixture.mark, cell.door);
    }),
    readDoor('GET /events/{cursor} (its POST_CREATED)', async (cell) => {
      const created = (await feed('admin')).find((event) => event.type === 'POST_CREATED' && event.postId === cell.fixture.post.id);
      expect(created, 'the admin reads the POST_CREATED').toBeDefined();
      const response = await as(http().get(`/events/${created!.cursor}`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ type: 'POST_CREATED', postId: cell.fixture.post.id, resource: { title: cell.fixture.post.title } });
    }),
    readDoor('events(after:) replay over WebSocket', async (cell) => {
      const events = await replay(cell.caller.name, 'WebSocket');
      if (cell.visible) expectFeedShows(events, (event: { post: { title: string } | null }) => event.post?.title, cell);
      else expectFeedHides(events, (event: { post: unknown }) => event.post, cell);
    }),
    readDoor('events(after:) replay over SSE', async (cell) => {
      const events = await replay(cell.caller.name, 'SSE');
      if (cell.visible) expectFeedShows(events, (event: { post: { title: string } | null }) => event.post?.title, cell);
      else expectFeedHides(events, (event: { post: unknown }) => event.post, cell);
    }),

    // --- §13 doors: slugs lane (keep this lane's doors between this line and the next marker) ---
    readDoor('GET /posts?slug= (its slug)', async (cell) => {
      const response = await as(http().get(`/posts?slug=${cell.fixture.post.slug as string}`), cell.caller.token);
      expect(response.status, response.text).toBe(200);
      const ids = (response.body as { id: number }[]).map((post) => post.id);
      if (cell.visible) expect(ids, cell.door).toEqual([cell.fixture.post.id]);
      else expectListed(ids, response.text, cell, false);
    }),
    readDoor('GraphQL post(slug:)', async (cell) => {
      const { body, response } = await gql(cell.caller.name, `query($slug: String) { post(slug: $slug) { ${POST_FIELDS} } }`, { slug: cell.fixture.post.slug });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.post, cell.door).toBeNull();
        return expectNoMarker(response.text, cell.fixture.mark, cell.door);
      }
      expect(body.data.post).toMatchObject({ id: cell.fixture.post.id, status: upper(cell.state) });
    }),

    // --- §13 doors: feeds lane (keep this lane's doors between this line and the next marker) ---
    // A feed lists public posts only, whoever asks; an entry's id ends in `:post:{id}` (a tag URI).
    readDoor('GET /feed (Atom)', async (cell) => {
      const response = await as(http().get('/feed?limit=100').set('accept', 'application/atom+xml'), cell.caller.token).expect(200);
      const ids = [...response.text.matchAll(/<id>tag:[^<]*:post:(\d+)<\/id>/g)].map((match) => Number(match[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /feed (RSS)', async (cell) => {
      const response = await as(http().get('/feed?limit=100').set('accept', 'application/rss+xml'), cell.caller.token).expect(200);
      const ids = [...response.text.matchAll(/<guid isPermaLink="false">tag:[^<]*:post:(\d+)<\/guid>/g)].map((match) => Number(match[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /feed (JSON Feed)', async (cell) => {
      const response = await as(http().get('/feed?limit=100').set('accept', 'application/feed+json'), cell.caller.token).expect(200);
      const ids = (JSON.parse(response.text) as { items: { id: string }[] }).items.map((item) => Number(item.id.split(':post:')[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),
    readDoor('GET /posts (Atom)', async (cell) => {
      const response = await as(http().get('/posts?limit=100').set('accept', 'application/atom+xml'), cell.caller.token).expect(200);
      const ids = [...response.text.matchAll(/<id>tag:[^<]*:post:(\d+)<\/id>/g)].map((match) => Number(match[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),

    // --- §13 doors: sitemap lane (keep this lane's doors between this line and the next marker) ---
    // The sitemap lists public posts' addresses only (PUBLIC_POST_URL, here `{base}/posts/{id}`), whoever asks.
    readDoor('GET /sitemap.xml', async (cell) => {
      const response = await as(http().get('/sitemap.xml'), cell.caller.token).expect(200);
      const ids = [...response.text.matchAll(/<loc>[^<]*\/posts\/(\d+)<\/loc>/g)].map((match) => Number(match[1]));
      expectListed(ids, response.text, cell, cell.state === 'published');
    }),

    // --- §13 doors: previews lane (keep this lane's doors between this line and the next marker) ---
    ...(['JSON', 'HTML'] as const).map((format) =>
      readDoor(
        `GET /posts/{id}?preview= (a link the admin made, ${format})`,
        async (cell) => {
          const response = await as(http().get(`/posts/${cell.fixture.post.id}?preview=${await previewOf(cell.fixture.post.id)}`).set('accept', format === 'JSON' ? 'application/json' : 'text/html'), cell.caller.token);
          expect(response.status, `${cell.door}: ${response.text.slice(0, 200)}`).toBe(200);
          expect(response.headers['cache-control'], cell.door).toBe('no-store');
          expect(response.headers['x-robots-tag'], cell.door).toBe('noindex');
          if (format === 'JSON') expect(response.body).toMatchObject({ id: cell.fixture.post.id, status: cell.state });
          else expect(response.text).toContain(cell.fixture.mark);
        },
        undefined,
        () => 'shows it (the link opens it)',
      ),
    ),
    readDoor(
      'GraphQL post(id, preview:) (a link the admin made)',
      async (cell) => {
        const { body } = await gql(cell.caller.name, `query($id: Int, $preview: String) { post(id: $id, preview: $preview) { ${POST_FIELDS} } }`, { id: cell.fixture.post.id, preview: await previewOf(cell.fixture.post.id) });
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        expect(body.data.post).toMatchObject({ id: cell.fixture.post.id, status: upper(cell.state) });
      },
      undefined,
      () => 'shows it (the link opens it)',
    ),
    readDoor('GET /posts/{id}?preview= (a link to another post)', async (cell) => {
      const response = await as(http().get(`/posts/${cell.fixture.post.id}?preview=${await previewOf(sentinel.id)}`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: cell.fixture.post.id });
    }),
    readDoor('GraphQL post(id, preview:) (a link to another post)', async (cell) => {
      const { body, response } = await gql(cell.caller.name, `query($id: Int, $preview: String) { post(id: $id, preview: $preview) { ${POST_FIELDS} } }`, { id: cell.fixture.post.id, preview: await previewOf(sentinel.id) });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.post, cell.door).toBeNull();
        return expectNoMarker(response.text, cell.fixture.mark, cell.door);
      }
      expect(body.data.post).toMatchObject({ id: cell.fixture.post.id });
    }),

    // --- §14 doors: media lane (the cover of each post: public exactly when the post is) ---
    readDoor('GET /media/{id} (its cover, JSON)', async (cell) => {
      const response = await as(http().get(`/media/${cell.fixture.cover.id}`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: cell.fixture.cover.id, uploaderId: ALICE_ID, alt: `Cover ${cell.fixture.mark}` });
    }),
    readDoor('GET /media/{id}/file (its cover)', async (cell) => {
      const response = await as(http().get(`/media/${cell.fixture.cover.id}/file`), cell.caller.token);
      if (!cell.visible) return expectItem404(response, cell);
      expect(response.status, response.text).toBe(200);
      expect(response.headers['content-type'], cell.door).toMatch(/^image\/png/);
    }),
    readDoor('GET /media (the list)', async (cell) => {
      const response = await as(http().get('/media?limit=100'), cell.caller.token).expect(200);
      const ids = (response.body as { id: number }[]).map((item) => item.id);
      expect(ids.includes(cell.fixture.cover.id), `${cell.door}: lists media ${cell.fixture.cover.id} (ids ${ids.join(',')})`).toBe(cell.visible);
      if (!cell.visible) expectNoMarker(response.text, cell.fixture.mark, cell.door);
    }),
    readDoor('GraphQL media(id) (its cover)', async (cell) => {
      const { body, response } = await gql(cell.caller.name, 'query($id: Int!) { media(id: $id) { id alt uploaderId } }', { id: cell.fixture.cover.id });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      if (!cell.visible) {
        expect(body.data.media, cell.door).toBeNull();
        return expectNoMarker(response.text, cell.fixture.mark, cell.door);
      }
      expect(body.data.media).toMatchObject({ id: cell.fixture.cover.id, alt: `Cover ${cell.fixture.mark}`, uploaderId: ALICE_ID });
    }),
    readDoor(
      'GraphQL post(id) { coverImage }',
      async (cell) => {
        const { body } = await gql(cell.caller.name, 'query($id: Int!) { post(id: $id) { id coverImage { id alt } } }', { id: cell.fixture.post.id });
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        expect(body.data.post.coverImage, cell.door).toEqual({ id: cell.fixture.cover.id, alt: `Cover ${cell.fixture.mark}` });
      },
      (state, caller) => mayRead(caller, state),
    ),
    // MEDIA_CREATED has the audience of the item when it was uploaded: not used yet, so its uploader's and the editors'.
    readDoor(
      'GET /events (its cover’s MEDIA_CREATED)',
      async (cell) => {
        const events = (await feed(cell.caller.name)) as (FeedEvent & { mediaId?: number | null })[];
        const created = events.filter((event) => event.type === 'MEDIA_CREATED' && event.mediaId === cell.fixture.cover.id);
        expect(created, cell.door).toHaveLength(isEditorOfAlice(cell.caller.name) ? 1 : 0);
        if (!cell.visible) expectNoMarker(JSON.stringify(events), cell.fixture.mark, cell.door);
      },
      undefined,
      (_state, caller) => (isEditorOfAlice(caller) ? 'shows it' : 'hides it (private when uploaded)'),
    ),

    // --- §15 doors: list negotiation. The fixture's post is in en, its published sibling in de: a public list in a locale shows one post of the two ---
    readDoor('GET /posts?locale=en (its locale; JSON)', async (cell) => {
      const response = await as(http().get('/posts?limit=100&locale=en'), cell.caller.token).expect(200);
      expectOneOfGroup((response.body as { id: number }[]).map((post) => post.id), response.text, cell, 'en');
    }, undefined, groupOutcome('en')),
    readDoor('GET /posts with Accept-Language: en (HAL)', async (cell) => {
      const response = await as(http().get('/posts?limit=100').set('accept', 'application/hal+json').set('accept-language', 'en'), cell.caller.token).expect(200);
      const hal = JSON.parse(response.text) as { _embedded: { posts: { id: number }[] } };
      expectOneOfGroup(hal._embedded.posts.map((post) => post.id), response.text, cell, 'en');
    }, undefined, groupOutcome('en')),
    readDoor('GET /posts?locale=de (its sibling’s locale)', async (cell) => {
      const response = await as(http().get('/posts?limit=100&locale=de'), cell.caller.token).expect(200);
      const posts = response.body as { id: number; _links: { translations?: { href: string; hreflang: string }[] } }[];
      expectOneOfGroup(posts.map((post) => post.id), response.text, cell, 'de');
      // The listed sibling links the post exactly when the caller may see it.
      const links = posts.find((post) => post.id === cell.fixture.sibling.id)?._links.translations ?? [];
      expect(links, `${cell.door}: the sibling's _links.translations`).toEqual(cell.visible ? [{ href: `/posts/${cell.fixture.post.id}`, hreflang: 'en' }] : []);
    }, undefined, groupOutcome('de')),
    readDoor('GET /posts?locale=* (every translation)', async (cell) => {
      const response = await as(http().get('/posts?limit=100&locale=*'), cell.caller.token).expect(200);
      expectOneOfGroup((response.body as { id: number }[]).map((post) => post.id), response.text, cell, '*');
    }, undefined, groupOutcome('*')),
    readDoor(
      'GET /users/{alice}/posts?locale=en',
      async (cell) => {
        const response = await as(http().get(`/users/${ALICE_ID}/posts?limit=100&locale=en`), cell.caller.token).expect(200);
        expectOneOfGroup((response.body as { id: number }[]).map((post) => post.id), response.text, cell, 'en');
      },
      // As on GET /users/{alice}/posts: whether ALICE's own list holds her non-public posts is left open.
      (state, caller) => state === 'published' || !isEditorOfAlice(caller),
      groupOutcome('en'),
    ),
    readDoor('GET /feed?locale=en (JSON Feed)', async (cell) => {
      const response = await as(http().get('/feed?limit=100&locale=en').set('accept', 'application/feed+json'), cell.caller.token).expect(200);
      const ids = (JSON.parse(response.text) as { items: { id: string }[] }).items.map((item) => Number(item.id.split(':post:')[1]));
      expectOneOfGroup(ids, response.text, cell, 'en');
    }, undefined, groupOutcome('en')),
    readDoor('GraphQL posts(locale: "en") { totalCount edges }', async (cell) => {
      const { body, response } = await gql(cell.caller.name, '{ posts(first: 100, locale: "en") { totalCount edges { node { id } } } }');
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const ids = (body.data.posts.edges as { node: { id: number } }[]).map((edge) => edge.node.id);
      expectOneOfGroup(ids, response.text, cell, 'en');
      expect(body.data.posts.totalCount, `${cell.door}: totalCount counts what is listed`).toBe(ids.length);
    }, undefined, groupOutcome('en')),
    readDoor('GraphQL posts(locale: "de") { nodes { translations } }', async (cell) => {
      const { body, response } = await gql(cell.caller.name, '{ posts(first: 100, locale: "de") { nodes { id translations { id locale } } } }');
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const nodes = body.data.posts.nodes as { id: number; translations: { id: number; locale: string }[] }[];
      expectOneOfGroup(nodes.map((node) => node.id), response.text, cell, 'de');
      const translations = nodes.find((node) => node.id === cell.fixture.sibling.id)?.translations ?? [];
      expect(translations, `${cell.door}: the sibling's translations`).toEqual(cell.visible ? [{ id: cell.fixture.post.id, locale: 'en' }] : []);
    }, undefined, groupOutcome('de')),

    // --- end of §13 doors ---

    // Writes by someone who may not see the post: 404 like a read (403 on the public control).
    ...writeDoors(),
  ];

  function writeDoors(): Door[] {
    const refused = (state: PostStatus) => (state === 'published' ? '403' : '404');
    const rest = (name: string, send: (cell: Cell) => request.Test, applies?: (state: PostStatus) => boolean): Door => ({
      name,
      applies: (state, caller) => bobs(caller) && (applies?.(state) ?? true),
      outcome: (state) => refused(state),
      check: async (cell) => {
        const response = await send(cell);
        if (cell.state === 'published') expectProblem(response, 403, 'FORBIDDEN');
        else expectItem404(response, cell);
      },
    });
    const mutation = (name: string, query: string, id: (cell: Cell) => number, applies?: (state: PostStatus) => boolean): Door => ({
      name,
      applies: (state, caller) => bobs(caller) && (applies?.(state) ?? true),
      outcome: (state) => (state === 'published' ? 'FORBIDDEN' : 'NOT_FOUND'),
      check: async (cell) => {
        const { body, response } = await gql(cell.caller.name, query, { id: id(cell) });
        expect((body.errors ?? []).map((error) => error.extensions.code), `${cell.door}: ${response.text}`).toEqual([cell.state === 'published' ? 'FORBIDDEN' : 'NOT_FOUND']);
        expectNoMarker(response.text, cell.fixture.mark, cell.door);
      },
    });
    const hiddenOnly = (state: PostStatus) => state !== 'published';
    return [
      rest('PATCH /posts/{id}', (cell) => as(http().patch(`/posts/${cell.fixture.post.id}`), cell.caller.token).send({ title: 'Changed by BOB' })),
      rest('DELETE /posts/{id}', (cell) => as(http().delete(`/posts/${cell.fixture.post.id}`), cell.caller.token)),
      rest('POST /posts/{id}/comments', (cell) => as(http().post(`/posts/${cell.fixture.post.id}/comments`), cell.caller.token).send({ body: 'By BOB' }), hiddenOnly),
      rest('PATCH /comments/{id} (its comment)', (cell) => as(http().patch(`/comments/${cell.fixture.comment.id}`), cell.caller.token).send({ body: 'Changed by BOB' })),
      rest('DELETE /comments/{id} (its comment)', (cell) => as(http().delete(`/comments/${cell.fixture.comment.id}`), cell.caller.token)),
      mutation('GraphQL updatePost', 'mutation($id: Int!) { updatePost(id: $id, input: { title: "Changed by BOB" }) { id title } }', (cell) => cell.fixture.post.id),
      mutation('GraphQL deletePost', 'mutation($id: Int!) { deletePost(id: $id) }', (cell) => cell.fixture.post.id),
      mutation('GraphQL createComment', 'mutation($id: Int!) { createComment(input: { postId: $id, body: "By BOB" }) { id post { title } } }', (cell) => cell.fixture.post.id, hiddenOnly),
      mutation('GraphQL updateComment', 'mutation($id: Int!) { updateComment(id: $id, input: { body: "Changed by BOB" }) { id } }', (cell) => cell.fixture.comment.id),
      mutation('GraphQL deleteComment', 'mutation($id: Int!) { deleteComment(id: $id) }', (cell) => cell.fixture.comment.id),
    ];
  }

  for (const state of STATES) {
    describe(`${state} post`, () => {
      for (const callerName of CALLER_NAMES) {
        describe(CALLER_LABELS[callerName], () => {
          for (const door of DOORS) {
            if (door.applies && !door.applies(state, callerName)) continue;
            const outcome = (door.outcome ?? ifVisible)(state, callerName);
            it(`${door.name}: ${outcome}`, async () => {
              const fixture = fixtures.get(state)!;
              await door.check({ state, caller: callers[callerName], visible: mayRead(callerName, state), fixture, door: `[${state} × ${callerName}] ${door.name}` });
            });
          }
        });
      }

      it(state === 'published' ? 'webhooks: its events are delivered' : 'webhooks: nothing of it is delivered', async () => {
        const bodies = await deliveries();
        const { post, comment, mark } = fixtures.get(state)!;
        const payloads = bodies.map((body) => JSON.parse(body) as { type: string; data: { postId?: number; commentId?: number; resource?: { title?: string } | null } });
        const about = payloads.filter((payload) => payload.data.postId === post.id);
        if (state === 'published') {
          expect(about.find((payload) => payload.type === 'POST_CREATED')?.data.resource?.title).toBe(post.title);
          expect(about.some((payload) => payload.type === 'COMMENT_CREATED' && payload.data.commentId === comment.id)).toBe(true);
          return;
        }
        expect(about.map((payload) => payload.type), `[${state}] webhook deliveries about post ${post.id}`).toEqual([]);
        expectNoMarker(bodies.join('\n'), mark, `[${state}] webhook deliveries`);
      });

      it('the refused writes changed nothing: ALICE still reads the post and its comment as they were', async () => {
        const { post, comment } = fixtures.get(state)!;
        const now = await readPost(app, post.id, alice());
        expect(now).toMatchObject({ title: post.title, body: post.body, status: state });
        const comments = await http().get(`/posts/${post.id}/comments`).set('authorization', `Bearer ${alice()}`).expect(200);
        expect(comments.body).toEqual([expect.objectContaining({ id: comment.id, body: comment.body })]);
      });
    });
  }

  // -------------------------------------------------------------------------------------------
  // Live: what each caller's subscriptions get while ALICE writes a draft

  describe('live, while ALICE writes a draft, comments on it and changes it', () => {
    type Transport = 'WebSocket' | 'SSE';
    type Field = 'postCreated' | 'events';
    const TRANSPORTS: Transport[] = ['WebSocket', 'SSE'];
    const FIELDS: Field[] = ['postCreated', 'events'];
    const live = new Map<string, LiveSubscription>();
    const key = (caller: CallerName, transport: Transport, field: Field) => `${caller}/${transport}/${field}`;
    let draft: EditorialPost;
    let mark: string;
    let closing: EditorialPost;

    beforeAll(async () => {
      for (const caller of CALLER_NAMES) {
        for (const transport of TRANSPORTS) {
          const client = transport === 'WebSocket' ? (await wsFor(caller)).client : sseFor(caller);
          for (const field of FIELDS) {
            const query = field === 'postCreated' ? 'subscription { postCreated { id title status } }' : `subscription { events { cursor type postId commentId post { id title } comment { id body } } }`;
            live.set(key(caller, transport, field), subscribe(client, query));
          }
        }
      }
      await warmUp([...live.values()], async () => {
        await createPostWith(app, callers.bob.token!, { title: 'Probe', body: 'Is everyone listening?' });
      });
      mark = marker('live');
      draft = await createPostWith(app, alice(), { title: `Title ${mark}`, body: `Body ${mark}`, status: 'draft' });
      await commentOn(app, draft.id, alice(), `A remark ${mark}`);
      await patchPost(app, draft.id, alice(), { body: `Body ${mark}, changed` });
      closing = await createPostWith(app, callers.bob.token!, { title: 'Closing', body: 'After the draft' });
      await until(
        'every subscriber to get the closing post',
        () =>
          [...live.entries()].every(([name, subscription]) =>
            valuesOf(subscription).some((value) => (name.endsWith('postCreated') ? value?.id === closing.id : value?.postId === closing.id)),
          ),
        20_000,
      );
    });

    for (const caller of CALLER_NAMES) {
      for (const transport of TRANSPORTS) {
        const sees = mayRead(caller, 'draft');
        it(`postCreated over ${transport}, ${CALLER_LABELS[caller]}: ${sees ? 'fires once for the draft' : 'nothing of the draft'}`, () => {
          const subscription = live.get(key(caller, transport, 'postCreated'))!;
          const door = `[live draft × ${caller}] postCreated over ${transport}`;
          expect(subscription.results.filter((result) => result.errors), door).toEqual([]);
          const mine = valuesOf(subscription).filter((post) => post?.id === draft.id);
          if (sees) expect(mine, door).toEqual([{ id: draft.id, title: draft.title, status: 'DRAFT' }]);
          else {
            expect(mine, door).toEqual([]);
            expectNoMarker(JSON.stringify(subscription.results), mark, door);
          }
        });
        it(`events over ${transport}, ${CALLER_LABELS[caller]}: ${sees ? 'POST_CREATED, COMMENT_CREATED, POST_UPDATED of the draft' : 'nothing of the draft'}`, () => {
          const subscription = live.get(key(caller, transport, 'events'))!;
          const door = `[live draft × ${caller}] events over ${transport}`;
          expect(subscription.results.filter((result) => result.errors), door).toEqual([]);
          const about = valuesOf(subscription).filter((event) => event?.postId === draft.id);
          if (sees) {
            expect(about.map((event) => event.type), door).toEqual(['POST_CREATED', 'COMMENT_CREATED', 'POST_UPDATED']);
            expect(about[0].post.title, door).toBe(draft.title);
          } else {
            expect(about, door).toEqual([]);
            expectNoMarker(JSON.stringify(subscription.results), mark, door);
          }
        });
      }
    }

    it('webhooks: nothing of the draft is delivered', async () => {
      await until('the webhook delivery of the closing post', () => receiver.payloads().some((payload) => payload.type === 'POST_CREATED' && payload.data.postId === closing.id), 20_000);
      expect(receiver.payloads().filter((payload) => payload.data.postId === draft.id).map((payload) => payload.type)).toEqual([]);
      expectNoMarker(receiver.receipts.map((receipt) => receipt.body).join('\n'), mark, 'webhook deliveries');
    });
  });

  // -------------------------------------------------------------------------------------------
  // Live: what each caller's subscriptions (and the webhooks, and the feed) get of a private media item

  /**
   * CONTRACT §14: MEDIA_CREATED, MEDIA_UPDATED and MEDIA_DELETED have the audience of the item's
   * visibility. ALICE's upload, used by no public post and no avatar, is hers and the editors'
   * and admins': only ALICE and ADMIN may hear of it; BOB (his write key reads as him) and the
   * read keys (they read what anonymous callers read) may not, on any door.
   */
  describe('live, while ALICE uploads a private image, changes its alt and deletes it', () => {
    type Transport = 'WebSocket' | 'SSE';
    type Field = 'events' | 'mediaCreated' | 'mediaUpdated' | 'mediaDeleted';
    const TRANSPORTS: Transport[] = ['WebSocket', 'SSE'];
    // mediaCreated and mediaDeleted first: for some callers nothing can show they are live (below).
    const FIELDS: Field[] = ['mediaCreated', 'mediaDeleted', 'events', 'mediaUpdated'];
    const QUERIES: Record<Field, string> = {
      events: 'subscription { events { cursor type postId mediaId media { id alt } } }',
      mediaCreated: 'subscription { mediaCreated { id alt uploaderId } }',
      mediaUpdated: 'subscription { mediaUpdated { id alt uploaderId variants { name } } }',
      mediaDeleted: 'subscription { mediaDeleted }',
    };
    const live = new Map<string, LiveSubscription>();
    const key = (caller: CallerName, transport: Transport, field: Field) => `${caller}/${transport}/${field}`;
    /** Those who may see ALICE's private item (and so any upload of hers, and BOB's). */
    const sees = isEditorOfAlice;
    /** Whether some upload can show that the caller's mediaCreated and mediaDeleted are live: a signed-in writer sees their own uploads. */
    const hearsUploads = (caller: CallerName) => caller === 'alice' || caller === 'admin' || bobs(caller);
    /** Whether a probe can show that the caller's subscription is live (every caller hears public events). */
    const provable = (caller: CallerName, field: Field) => hearsUploads(caller) || field === 'events' || field === 'mediaUpdated';
    const hooks = new Receiver();
    const MEDIA_TYPES = ['MEDIA_CREATED', 'MEDIA_UPDATED', 'MEDIA_DELETED'];
    let mark: string;
    let item: { id: number };
    let altBefore: string;
    let altAfter: string;
    /** BOB's cover of his published post: public, so its MEDIA_UPDATED reaches everyone. */
    let bobsCover: { id: number };
    /** The cursor of the last event before ALICE's upload. */
    let before: string;
    let closing: EditorialPost;
    /** BOB's upload after ALICE's writes, deleted at once: the last media events those who hear BOB's uploads get. */
    let closingUpload: { id: number };

    /** A public media event for everyone, and an upload and deletion of BOB's and of ALICE's for those who see them. */
    async function probe(): Promise<void> {
      await createPostWith(app, callers.bob.token!, { title: 'Probe', body: 'Is everyone listening?' });
      await as(http().patch(`/media/${bobsCover.id}`), callers.bob.token).send({ alt: `Probe ${Date.now()}` }).expect(200);
      for (const token of [callers.bob.token!, alice()]) {
        const upload = await uploadImage(token, 'Probe');
        await as(http().delete(`/media/${upload.id}`), token).expect(204);
      }
    }

    beforeAll(async () => {
      await hooks.start();
      await as(http().post('/webhooks'), callers.admin.token).send({ url: hooks.url(), types: [...MEDIA_TYPES, 'POST_CREATED'] }).expect(201);
      bobsCover = await uploadImage(callers.bob.token!, 'BOB’s cover');
      await createPostWith(app, callers.bob.token!, { title: 'BOB’s post with a cover', body: 'Public', coverImageId: bobsCover.id });
      const warmable: LiveSubscription[] = [];
      for (const caller of CALLER_NAMES) {
        for (const transport of TRANSPORTS) {
          const client = transport === 'WebSocket' ? (await wsFor(caller)).client : sseFor(caller);
          for (const field of FIELDS) {
            const subscription = subscribe(client, QUERIES[field]);
            live.set(key(caller, transport, field), subscription);
            if (provable(caller, field)) warmable.push(subscription);
          }
        }
      }
      // No upload is public when it is made, and no deletion of a public one is possible without
      // an avatar, so nothing shows that the mediaCreated and mediaDeleted of anonymous callers and
      // read keys are live: they are opened first (on the WebSocket, before the warmed-up ones on
      // the same socket) and read after everyone else got the closing events.
      await warmUp(warmable, probe);
      before = (await lastCursor(app, callers.admin.token))!;

      mark = marker('media');
      altBefore = `Private ${mark}`;
      altAfter = `Private ${mark}, changed`;
      item = await uploadImage(alice(), altBefore);
      await as(http().patch(`/media/${item.id}`), alice()).send({ alt: altAfter }).expect(200);
      await as(http().delete(`/media/${item.id}`), alice()).expect(204);

      closing = await createPostWith(app, callers.bob.token!, { title: 'Closing', body: 'After the private image' });
      await as(http().patch(`/media/${bobsCover.id}`), callers.bob.token).send({ alt: 'Closing' }).expect(200);
      closingUpload = await uploadImage(callers.bob.token!, 'Closing');
      await as(http().delete(`/media/${closingUpload.id}`), callers.bob.token).expect(204);
      const closed = (caller: CallerName, field: Field, value: { postId?: number; id?: number; alt?: string } | number | null): boolean => {
        if (field === 'events') return typeof value === 'object' && value?.postId === closing.id;
        if (field === 'mediaUpdated') return typeof value === 'object' && value?.id === bobsCover.id && value.alt === 'Closing';
        // ALICE does not see BOB's uploads: her own item's events are her last.
        const last = caller === 'alice' ? item.id : closingUpload.id;
        return field === 'mediaCreated' ? typeof value === 'object' && value?.id === last : value === last;
      };
      const waiting = () =>
        CALLER_NAMES.flatMap((caller) =>
          TRANSPORTS.flatMap((transport) =>
            FIELDS.filter((field) => provable(caller, field) && !valuesOf(live.get(key(caller, transport, field))!).some((value) => closed(caller, field, value))).map((field) =>
              key(caller, transport, field),
            ),
          ),
        );
      await until(
        'every subscriber that can to get the closing events',
        () => {
          const left = waiting();
          if (left.length > 0) throw new Error(`still waiting: ${left.join(', ')}`);
          return true;
        },
        20_000,
      );
    });
    afterAll(async () => {
      await hooks.stop();
    });

    for (const caller of CALLER_NAMES) {
      for (const transport of TRANSPORTS) {
        const door = (field: Field) => `[live private media × ${caller}] ${field} over ${transport}`;
        /** The subscription's values, none of them an error. */
        const valuesFor = (field: Field) => {
          const subscription = live.get(key(caller, transport, field))!;
          expect(subscription.error, `${door(field)}: ${JSON.stringify(subscription.error)}`).toBeUndefined();
          expect(subscription.results.filter((result) => result.errors), door(field)).toEqual([]);
          return { values: valuesOf(subscription), text: JSON.stringify(subscription.results) };
        };
        const hidden = (field: Field, mine: unknown[], text: string) => {
          expect(mine, door(field)).toEqual([]);
          expectNoMarker(text, mark, door(field));
        };

        it(`events over ${transport}, ${CALLER_LABELS[caller]}: ${sees(caller) ? 'MEDIA_CREATED, MEDIA_UPDATED, MEDIA_DELETED of it' : 'nothing of it'}`, () => {
          const { values, text } = valuesFor('events');
          const mine = values.filter((event) => event?.mediaId === item.id);
          if (!sees(caller)) return hidden('events', mine, text);
          expect(
            mine.map(({ type, postId, mediaId, media }) => ({ type, postId, mediaId, media })),
            door('events'),
          ).toEqual([
            { type: 'MEDIA_CREATED', postId: null, mediaId: item.id, media: { id: item.id, alt: altBefore } },
            { type: 'MEDIA_UPDATED', postId: null, mediaId: item.id, media: { id: item.id, alt: altAfter } },
            { type: 'MEDIA_DELETED', postId: null, mediaId: item.id, media: null },
          ]);
        });
        it(`mediaCreated over ${transport}, ${CALLER_LABELS[caller]}: ${sees(caller) ? 'fires once for it' : 'nothing of it'}`, () => {
          const { values, text } = valuesFor('mediaCreated');
          const mine = values.filter((media) => media?.id === item.id);
          if (!sees(caller)) return hidden('mediaCreated', mine, text);
          expect(mine, door('mediaCreated')).toEqual([{ id: item.id, alt: altBefore, uploaderId: ALICE_ID }]);
        });
        it(`mediaUpdated over ${transport}, ${CALLER_LABELS[caller]}: ${sees(caller) ? 'fires once for it' : 'nothing of it (BOB’s public cover: yes)'}`, () => {
          const { values, text } = valuesFor('mediaUpdated');
          expect(
            values.some((media) => media?.id === bobsCover.id && media.alt === 'Closing'),
            `${door('mediaUpdated')}: BOB’s public cover`,
          ).toBe(true);
          const mine = values.filter((media) => media?.id === item.id);
          if (!sees(caller)) return hidden('mediaUpdated', mine, text);
          expect(mine, door('mediaUpdated')).toEqual([{ id: item.id, alt: altAfter, uploaderId: ALICE_ID, variants: expect.any(Array) }]);
        });
        it(`mediaDeleted over ${transport}, ${CALLER_LABELS[caller]}: ${sees(caller) ? 'fires once for it' : 'nothing of it'}`, () => {
          const { values, text } = valuesFor('mediaDeleted');
          const mine = values.filter((id) => id === item.id);
          if (!sees(caller)) return hidden('mediaDeleted', mine, text);
          expect(mine, door('mediaDeleted')).toEqual([item.id]);
        });
      }

      it(`GET /events?after= (the replay), ${CALLER_LABELS[caller]}: ${sees(caller) ? 'MEDIA_CREATED, MEDIA_UPDATED, MEDIA_DELETED of it' : 'nothing of it'}`, async () => {
        const door = `[live private media × ${caller}] GET /events?after=`;
        const events = (await eventsSince(app, tokenOf(caller), before)) as (FeedEvent & { mediaId?: number | null })[];
        expect(
          events.some((event) => event.type === 'POST_CREATED' && event.postId === closing.id),
          `${door}: reaches the closing post`,
        ).toBe(true);
        const mine = events.filter((event) => event.mediaId === item.id);
        if (!sees(caller)) {
          expect(mine, door).toEqual([]);
          return expectNoMarker(JSON.stringify(events), mark, door);
        }
        expect(
          mine.map((event) => ({ type: event.type, alt: event.resource?.alt ?? null })),
          door,
        ).toEqual([
          { type: 'MEDIA_CREATED', alt: altBefore },
          { type: 'MEDIA_UPDATED', alt: altAfter },
          { type: 'MEDIA_DELETED', alt: null },
        ]);
      });
    }

    // Webhooks deliver public events only (WebhookDispatcher reads the outbox as PUBLIC_READER).
    it('webhooks (MEDIA_* and POST_CREATED): nothing of it is delivered (BOB’s public cover’s MEDIA_UPDATED is, with the item)', async () => {
      type MediaPayload = WebhookPayload & { data: { mediaId?: number } };
      const payloads = () => hooks.payloads() as MediaPayload[];
      const closingCover = (payload: MediaPayload) => payload.type === 'MEDIA_UPDATED' && payload.data.mediaId === bobsCover.id && payload.data.resource?.alt === 'Closing';
      await until('the webhook deliveries of the closing post and of BOB’s cover’s closing MEDIA_UPDATED (with the item)', () => payloads().some((payload) => payload.type === 'POST_CREATED' && payload.data.postId === closing.id) && payloads().some(closingCover), 20_000);
      expect(payloads().filter((payload) => payload.data.mediaId === item.id).map((payload) => payload.type)).toEqual([]);
      expect(payloads().filter((payload) => MEDIA_TYPES.includes(payload.type) && payload.data.mediaId !== bobsCover.id).map((payload) => `${payload.type} ${payload.data.mediaId}`), 'only public items’ events').toEqual([]);
      expectNoMarker(hooks.receipts.map((receipt) => receipt.body).join('\n'), mark, 'webhook deliveries');
    });
  });

  // -------------------------------------------------------------------------------------------
  // The response cache

  describe('the response cache never holds a non-public answer', () => {
    interface AnonymousRead {
      door: string;
      /** Whether the answer shows the post, and its text. */
      read: () => Promise<{ shown: boolean; text: string }>;
    }

    /** The anonymous doors a cache could answer: the post in JSON and HTML, the public list, and GraphQL over POST and GET. */
    function anonymousReads(post: EditorialPost): AnonymousRead[] {
      const item = (accept: string) => async () => {
        const response = await http().get(`/posts/${post.id}`).set('accept', accept);
        expect([200, 404], `GET /posts/${post.id} (${accept}): ${response.status}`).toContain(response.status);
        return { shown: response.status === 200, text: response.text };
      };
      return [
        { door: 'GET /posts/{id} (JSON)', read: item('application/json') },
        { door: 'GET /posts/{id} (HTML)', read: item('text/html') },
        {
          door: 'GET /posts (JSON)',
          read: async () => {
            const response = await http().get('/posts?limit=100').expect(200);
            return { shown: (response.body as { id: number }[]).some((listed) => listed.id === post.id), text: response.text };
          },
        },
        {
          door: 'GraphQL post(id) (POST)',
          read: async () => {
            const { body, response } = await graphql(app, POST_QUERY, { id: post.id });
            return { shown: body.data?.post != null, text: response.text };
          },
        },
        {
          door: 'GraphQL post(id) (GET)',
          read: async () => {
            const { body, response } = await graphqlGet('anonymous', POST_QUERY, { id: post.id });
            return { shown: body.data?.post != null, text: response.text };
          },
        },
      ];
    }

    /** Reads through every anonymous door twice (the second read may come from the cache) and checks what each shows. */
    async function expectAnonymous(post: EditorialPost, mark: string, shown: boolean, when: string): Promise<void> {
      for (const { door, read } of anonymousReads(post)) {
        for (const attempt of ['first', 'second']) {
          const answer = await read();
          expect(answer.shown, `${door}, ${attempt} anonymous read ${when}`).toBe(shown);
          if (!shown) expectNoMarker(answer.text, mark, `${door}, ${attempt} anonymous read ${when}`);
        }
      }
    }

    for (const state of ['draft', 'in_review', 'scheduled', 'trashed'] as const) {
      it(`a ${state} post: hidden from anonymous readers (also after ALICE and an admin read it), shown at once when published, hidden at once when trashed`, async () => {
        const mark = marker('cache');
        const post = await createPostIn(app, alice(), state, { title: `Title ${mark}`, body: `Body ${mark}` });
        await expectAnonymous(post, mark, false, `of the ${state} post`);
        for (const caller of ['alice', 'admin'] as const) {
          await http().get(`/posts/${post.id}`).set('authorization', `Bearer ${tokenOf(caller)}`).expect(200);
          await http().get(`/posts/${post.id}`).set('accept', 'text/html').set('authorization', `Bearer ${tokenOf(caller)}`).expect(200);
          expect((await gql(caller, POST_QUERY, { id: post.id })).body.data.post).not.toBeNull();
        }
        await expectAnonymous(post, mark, false, `of the ${state} post after ALICE and an admin read it`);

        const published = await patchPost(app, post.id, alice(), { status: 'published' });
        expect(published.status).toBe('published');
        await expectAnonymous(post, mark, true, 'right after it was published');

        await http().delete(`/posts/${post.id}`).set('authorization', `Bearer ${alice()}`).expect(204);
        await expectAnonymous(post, mark, false, 'right after it was trashed');
      });
    }

    const moves: [string, (post: EditorialPost) => Promise<void>][] = [
      ['moved back to draft', async (post) => void (await patchPost(app, post.id, alice(), { status: 'draft' }))],
      ['submitted for review', async (post) => void (await patchPost(app, post.id, alice(), { status: 'in_review' }))],
      ['scheduled again', async (post) => void (await patchPost(app, post.id, alice(), { status: 'scheduled', publishAt: fromNow(3_600_000) }))],
      ['trashed', async (post) => void (await http().delete(`/posts/${post.id}`).set('authorization', `Bearer ${alice()}`).expect(204))],
    ];
    for (const [move, apply] of moves) {
      it(`a published post, read (and cached) by anonymous readers, is hidden from them at once when ${move}`, async () => {
        const mark = marker('cache');
        const post = await createPostIn(app, alice(), 'published', { title: `Title ${mark}`, body: `Body ${mark}` });
        await expectAnonymous(post, mark, true, 'of the published post');
        await apply(post);
        await expectAnonymous(post, mark, false, `right after it was ${move}`);
      });
    }
  });
});
