import type { Client as SseClient } from 'graphql-sse';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import {
  as,
  commentOn,
  createPostWith,
  type EditorialPost,
  editorialEnv,
  eventsSince,
  expectNoMarker,
  lastCursor,
  marker,
  sseClient,
  valuesOf,
  warmUp,
} from './support/editorial.js';
import { graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { type CommentBody, createUser, parseXml, xmlFields } from './support/resources.js';
import { type ListeningApp, listen, LiveSubscription, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * The read policy for comment statuses (CONTRACT §9 and the v3 preamble): on one published post,
 * four comments by COMMENTER, one in each status (approved, pending, spam, hidden), read through
 * every door by anonymous, another author, COMMENTER, COMMENTER's read key, the post's author, a
 * moderator, the moderator's read key, an editor and an admin. A `read` key reads what anonymous
 * callers read (CONTRACT §3): neither its user's own held comments nor what its role moderates. Each (status, caller, door) is its own test, named after all
 * three. A comment the caller may not see must not show through any door: 404 on the item (never
 * 403), absent from lists and counts, null in GraphQL, no event, no webhook, no cached answer.
 * Then the events of moderation as each caller's live subscriptions get them (ReadPolicy.transition),
 * and the response cache around an approval.
 *
 * The app runs with COMMENTS_MODERATION=all, so that COMMENTER's comments start pending and no
 * public event ever carried the held ones; the moderation API (PATCH /comments) moves them on.
 */

type Status = 'approved' | 'pending' | 'spam' | 'hidden';
const STATUSES: Status[] = ['approved', 'pending', 'spam', 'hidden'];

type CallerName = 'anonymous' | 'other' | 'commenter' | 'commenterKey' | 'postAuthor' | 'moderator' | 'moderatorKey' | 'editor' | 'admin';
const CALLER_NAMES: CallerName[] = ['anonymous', 'other', 'commenter', 'commenterKey', 'postAuthor', 'moderator', 'moderatorKey', 'editor', 'admin'];
const LABELS: Record<CallerName, string> = {
  anonymous: 'anonymous',
  other: 'another author',
  commenter: 'COMMENTER (its author)',
  commenterKey: "COMMENTER's API key (read)",
  postAuthor: "the post's author",
  moderator: 'a moderator',
  moderatorKey: "the moderator's API key (read)",
  editor: 'an editor',
  admin: 'an admin',
};

const COMMENT_TYPES = 'COMMENT_CREATED,COMMENT_UPDATED,COMMENT_DELETED';

const moderates = (caller: CallerName) => caller === 'moderator' || caller === 'editor' || caller === 'admin';
/** The code of the moderation queue's refusal to a caller who does not moderate. */
const queueRefusal = (caller: CallerName) => (caller === 'anonymous' ? 'UNAUTHENTICATED' : caller === 'moderatorKey' ? 'INSUFFICIENT_SCOPE' : 'FORBIDDEN');
const isCommenter = (caller: CallerName) => caller === 'commenter';
/** The policy under test: approved → everyone; pending → its author and the moderating roles; spam, hidden → the moderating roles; read keys → what anonymous callers see. */
function sees(caller: CallerName, status: Status): boolean {
  if (status === 'approved' || moderates(caller)) return true;
  return status === 'pending' && isCommenter(caller);
}

/**
 * The types of the events about a fixture comment each caller reads: created pending (its author
 * and the moderating roles), then moved by PATCH /comments (ReadPolicy.transition).
 */
function feedTypes(caller: CallerName, status: Status): string[] {
  const sawPending = moderates(caller) || isCommenter(caller);
  switch (status) {
    case 'approved':
      return sawPending ? ['COMMENT_CREATED', 'COMMENT_UPDATED'] : ['COMMENT_CREATED'];
    case 'pending':
      return sawPending ? ['COMMENT_CREATED'] : [];
    default:
      return moderates(caller) ? ['COMMENT_CREATED', 'COMMENT_UPDATED'] : isCommenter(caller) ? ['COMMENT_CREATED', 'COMMENT_DELETED'] : [];
  }
}

interface Fixture {
  status: Status;
  comment: CommentBody & { status: string };
  mark: string;
}

interface Cell {
  status: Status;
  caller: CallerName;
  visible: boolean;
  fixture: Fixture;
  door: string;
}

interface Door {
  name: string;
  outcome?: (status: Status, caller: CallerName) => string;
  check: (cell: Cell) => Promise<void>;
}

describeEachDatabase('comment visibility matrix: comments in each status × callers × doors', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  const tokens = {} as Record<CallerName, string | undefined>;
  const ids = {} as Record<'other' | 'commenter' | 'postAuthor' | 'moderator' | 'editor', number>;
  const receiver = new Receiver();
  let post: EditorialPost;
  /** A post for the fences: public comments written after a step, whose arrival shows that everything before it arrived. */
  let fencePost: EditorialPost;
  let start: string;
  const fixtures = new Map<Status, Fixture>();
  /** ANOTHER AUTHOR's reply to the approved comment (approved too). */
  let reply: CommentBody;
  /** The admin's comment on the fence post written after the fixture. */
  let fixtureFence: CommentBody;
  const wsClients = new Map<CallerName, Promise<WsClient>>();
  const sseClients: SseClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const memo = new Map<string, Promise<unknown>>();
  const http = () => request(app.server);
  const gql = (caller: CallerName, query: string, variables?: Record<string, unknown>) => graphql(app, query, variables, { token: tokens[caller] });

  function once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as Promise<T>;
  }

  function wsFor(caller: CallerName): Promise<WsClient> {
    if (!wsClients.has(caller)) {
      wsClients.set(
        caller,
        (async () => {
          const client = wsClient(urls.ws, { token: tokens[caller] });
          await Promise.race([client.connected, client.closed.then((event) => Promise.reject(new Error(`the socket of ${caller} closed: ${event.code} ${event.reason}`)))]);
          return client;
        })(),
      );
    }
    return wsClients.get(caller)!;
  }

  function sseFor(caller: CallerName): SseClient {
    const client = sseClient(urls.http, tokens[caller]);
    sseClients.push(client);
    return client;
  }

  /** A user in the role (given by the admin through PATCH /users/{id}), with a token issued after it. */
  async function userIn(role: 'author' | 'moderator' | 'editor'): Promise<{ id: number; token: string }> {
    const user = await createUser(app);
    if (role === 'author') return user;
    const patched = await http().patch(`/users/${user.id}`).set(bearer(tokens.admin!)).send({ role });
    expect(patched.status, `PATCH /users/${user.id} {role: ${role}}: ${patched.text}`).toBe(200);
    const token = await http().post('/tokens').send({ email: user.email, password: user.password }).expect(201);
    return { id: user.id, token: token.body.accessToken as string };
  }

  /** PATCH /comments as the admin: [{id, status}, …]; 200 expected. */
  async function moderate(changes: { id: number; status: Status }[]): Promise<{ id: number; status: string }[]> {
    const response = await http().patch('/comments').set(bearer(tokens.admin!)).send(changes);
    expect(response.status, `PATCH /comments ${JSON.stringify(changes)}: ${response.text}`).toBe(200);
    return response.body as { id: number; status: string }[];
  }

  /** Waits until the admin's feed and the webhook receiver both reached the comment (PostgreSQL shows an event once older transactions ended). */
  async function reached(comment: CommentBody, since: string): Promise<void> {
    await until(
      `the COMMENT_CREATED of comment ${comment.id} in the feed`,
      async () => (await eventsSince(app, tokens.admin, since, `&types=${COMMENT_TYPES}`)).some((event) => event.type === 'COMMENT_CREATED' && event.commentId === comment.id),
      20_000,
      100,
    );
  }

  beforeAll(async () => {
    app = await startTestApp(kind, { env: editorialEnv(kind, { RESPONSE_CACHE: 'memory', RATE_LIMIT_COMMENTS_MAX: '0', COMMENTS_MODERATION: 'all' }) });
    urls = await listen(app);
    tokens.anonymous = undefined;
    tokens.admin = await tokenFor(app, ADMIN);
    for (const [name, role] of [
      ['other', 'author'],
      ['commenter', 'author'],
      ['postAuthor', 'author'],
      ['moderator', 'moderator'],
      ['editor', 'editor'],
    ] as const) {
      const user = await userIn(role);
      ids[name] = user.id;
      tokens[name] = user.token;
    }
    const key = await http().post(`/users/${ids.commenter}/api-keys`).set(bearer(tokens.commenter!)).send({ name: 'Comment matrix', scopes: ['read'] });
    expect(key.status, key.text).toBe(201);
    tokens.commenterKey = key.body.key as string;
    const moderatorKey = await http().post(`/users/${ids.moderator}/api-keys`).set(bearer(tokens.moderator!)).send({ name: 'Comment matrix', scopes: ['read'] });
    expect(moderatorKey.status, moderatorKey.text).toBe(201);
    tokens.moderatorKey = moderatorKey.body.key as string;

    await receiver.start();
    await http().post('/webhooks').set(bearer(tokens.admin)).send({ url: receiver.url(), types: COMMENT_TYPES.split(',') }).expect(201);

    post = await createPostWith(app, tokens.postAuthor!, { title: 'The conversation', body: 'Comments in every status' });
    fencePost = await createPostWith(app, tokens.postAuthor!, { title: 'Fences', body: 'Comments that show a step is over' });
    start = (await lastCursor(app, tokens.admin))!;

    for (const status of STATUSES) {
      const mark = marker('cm');
      const comment = (await commentOn(app, post.id, tokens.commenter!, `A remark ${mark}`)) as Fixture['comment'];
      expect(comment.status, 'COMMENTS_MODERATION=all holds the comment').toBe('pending');
      fixtures.set(status, { status, comment, mark });
    }
    // The pending one stays as it was written.
    const moved = await moderate(
      (['approved', 'spam', 'hidden'] as const).map((status) => ({ id: fixtures.get(status)!.comment.id, status })),
    );
    expect(moved.map((comment) => comment.status)).toEqual(['approved', 'spam', 'hidden']);
    const written = await http().post(`/posts/${post.id}/comments`).set(bearer(tokens.other!)).send({ body: 'A reply', parentId: fixtures.get('approved')!.comment.id });
    expect(written.status, written.text).toBe(201);
    reply = written.body as CommentBody;
    await moderate([{ id: reply.id, status: 'approved' }]);

    fixtureFence = await commentOn(app, fencePost.id, tokens.admin, 'Fence after the fixture');
    await reached(fixtureFence, start);
  });

  afterAll(async () => {
    for (const subscription of subscriptions) subscription.dispose();
    for (const client of sseClients) client.dispose();
    await Promise.all([...wsClients.values()].map(async (client) => (await client.catch(() => undefined))?.dispose()));
    await app?.close();
    await receiver.stop();
  });

  // -------------------------------------------------------------------------------------------
  // The doors

  function expectItem404(response: Response, cell: Cell, problemJson = true): void {
    expect(response.status, `${cell.door}: ${response.status} ${response.text.slice(0, 200)}`).toBe(404);
    if (problemJson) expectProblem(response, 404, 'NOT_FOUND');
    expectNoMarker(response.text, cell.fixture.mark, cell.door);
  }

  function expectListed(listed: number[], text: string, cell: Cell): void {
    expect(listed.includes(cell.fixture.comment.id), `${cell.door}: lists comment ${cell.fixture.comment.id} (ids ${listed.join(',')})`).toBe(cell.visible);
    if (cell.visible) expect(text, cell.door).toContain(cell.fixture.mark);
    else expectNoMarker(text, cell.fixture.mark, cell.door);
  }

  /** The fixture comments (and the reply) the caller sees: what every list and count of the post must hold. */
  const visibleIds = (caller: CallerName) => [...STATUSES.filter((status) => sees(caller, status)).map((status) => fixtures.get(status)!.comment.id), reply.id].sort((a, b) => a - b);

  const feed = (caller: CallerName) =>
    once(`feed:${caller}`, async () => {
      const events = await eventsSince(app, tokens[caller], start, `&types=${COMMENT_TYPES}`);
      expect(events.some((event) => event.type === 'COMMENT_CREATED' && event.commentId === fixtureFence.id), `GET /events as ${caller} reaches the fence`).toBe(true);
      for (const event of events) expect(COMMENT_TYPES.split(','), `GET /events?types=… as ${caller}`).toContain(event.type);
      return events;
    });

  const COMMENT_QUERY = 'query($id: Int!) { comment(id: $id) { id status body parentId replies { id } } }';

  const DOORS: Door[] = [
    {
      name: 'GET /comments/{id} (JSON)',
      check: async (cell) => {
        const response = await as(http().get(`/comments/${cell.fixture.comment.id}`), tokens[cell.caller]);
        if (!cell.visible) return expectItem404(response, cell);
        expect(response.status, response.text).toBe(200);
        expect(response.body).toMatchObject({ id: cell.fixture.comment.id, postId: post.id, status: cell.status, body: cell.fixture.comment.body });
      },
    },
    {
      name: 'GET /comments/{id} (XML)',
      check: async (cell) => {
        const response = await as(http().get(`/comments/${cell.fixture.comment.id}`).set('accept', 'application/xml'), tokens[cell.caller]);
        if (!cell.visible) return expectItem404(response, cell, false);
        expect(response.status, response.text).toBe(200);
        const root = parseXml(response.text);
        expect(root.name).toBe('comment');
        expect(xmlFields(root).fields).toMatchObject({ id: String(cell.fixture.comment.id), status: cell.status, body: cell.fixture.comment.body });
      },
    },
    {
      name: 'GET /comments/{id} (HTML)',
      check: async (cell) => {
        const response = await as(http().get(`/comments/${cell.fixture.comment.id}`).set('accept', 'text/html'), tokens[cell.caller]);
        if (!cell.visible) return expectItem404(response, cell, false);
        expect(response.status, response.text.slice(0, 200)).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.text, cell.door).toContain(cell.fixture.mark);
      },
    },
    {
      name: 'GET /comments/{id} (HAL)',
      check: async (cell) => {
        const response = await as(http().get(`/comments/${cell.fixture.comment.id}`).set('accept', 'application/hal+json'), tokens[cell.caller]);
        if (!cell.visible) return expectItem404(response, cell);
        expect(response.status, response.text).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/hal\+json/);
        expect(JSON.parse(response.text)).toMatchObject({ id: cell.fixture.comment.id, status: cell.status, body: cell.fixture.comment.body });
      },
    },
    {
      name: 'HEAD /comments/{id}',
      outcome: (status, caller) => (sees(caller, status) ? '200' : '404'),
      check: async (cell) => {
        const response = await as(http().head(`/comments/${cell.fixture.comment.id}`), tokens[cell.caller]);
        expect(response.status, cell.door).toBe(cell.visible ? 200 : 404);
      },
    },
    {
      name: 'GET /posts/{id}/comments?parentId={it} (its replies)',
      outcome: (status, caller) => (sees(caller, status) ? (status === 'approved' ? 'the reply' : 'no replies') : 'hides it (404)'),
      check: async (cell) => {
        const response = await as(http().get(`/posts/${post.id}/comments?parentId=${cell.fixture.comment.id}`), tokens[cell.caller]);
        if (!cell.visible) return expectItem404(response, cell);
        expect(response.status, response.text).toBe(200);
        expect((response.body as { id: number; parentId: number }[]).map((comment) => [comment.id, comment.parentId])).toEqual(
          cell.status === 'approved' ? [[reply.id, cell.fixture.comment.id]] : [],
        );
      },
    },
    {
      name: 'GET /comments?status={status} (the moderation queue)',
      outcome: (_status, caller) => (moderates(caller) ? 'lists it' : caller === 'anonymous' ? '401' : caller === 'moderatorKey' ? '403 INSUFFICIENT_SCOPE' : '403'),
      check: async (cell) => {
        const response = await as(http().get(`/comments?status=${cell.status}&limit=100`), tokens[cell.caller]);
        if (!moderates(cell.caller)) {
          expectProblem(response, cell.caller === 'anonymous' ? 401 : 403, cell.caller === 'moderatorKey' ? 'INSUFFICIENT_SCOPE' : undefined);
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(response.status, response.text).toBe(200);
        const queue = response.body as { id: number; status: string }[];
        expect(queue.map((comment) => comment.id), cell.door).toContain(cell.fixture.comment.id);
        for (const comment of queue) expect(comment.status, `${cell.door}: comment ${comment.id}`).toBe(cell.status);
      },
    },
    {
      name: 'GraphQL comments(status:) { totalCount nodes } (the moderation queue)',
      outcome: (_status, caller) => (moderates(caller) ? 'lists it' : queueRefusal(caller)),
      check: async (cell) => {
        const { body, response } = await gql(cell.caller, `{ comments(status: ${cell.status.toUpperCase()}, first: 100) { totalCount nodes { id status } } }`);
        if (!moderates(cell.caller)) {
          expect((body.errors ?? []).map((error) => error.extensions.code), response.text).toEqual([queueRefusal(cell.caller)]);
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        const nodes = body.data.comments.nodes as { id: number; status: string }[];
        expect(nodes.map((node) => node.id), cell.door).toContain(cell.fixture.comment.id);
        for (const node of nodes) expect(node.status, `${cell.door}: comment ${node.id}`).toBe(cell.status.toUpperCase());
        expect(body.data.comments.totalCount, `${cell.door}: totalCount counts what is listed`).toBe(nodes.length);
      },
    },
    {
      name: 'GET /posts/{id}/comments (JSON)',
      outcome: (status, caller) => (sees(caller, status) ? 'lists it' : 'does not list it'),
      check: async (cell) => {
        const response = await as(http().get(`/posts/${post.id}/comments?limit=100`), tokens[cell.caller]);
        expect(response.status, response.text).toBe(200);
        const listed = (response.body as { id: number }[]).map((comment) => comment.id);
        expectListed(listed, response.text, cell);
        expect([...listed].sort((a, b) => a - b), `${cell.door}: exactly what the caller sees`).toEqual(visibleIds(cell.caller));
      },
    },
    {
      name: 'GET /posts/{id}/comments (HTML)',
      outcome: (status, caller) => (sees(caller, status) ? 'lists it' : 'does not list it'),
      check: async (cell) => {
        const response = await as(http().get(`/posts/${post.id}/comments?limit=100`).set('accept', 'text/html'), tokens[cell.caller]);
        expect(response.status, response.text.slice(0, 200)).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        const listed = [...response.text.matchAll(/href="\/comments\/(\d+)"/g)].map((match) => Number(match[1]));
        expectListed(listed, response.text, cell);
      },
    },
    {
      name: 'GET /posts/{id} (the HTML post page)',
      outcome: (status, caller) => (sees(caller, status) ? 'shows it' : 'does not show it'),
      check: async (cell) => {
        const response = await as(http().get(`/posts/${post.id}`).set('accept', 'text/html'), tokens[cell.caller]);
        expect(response.status, response.text.slice(0, 200)).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        if (cell.visible) expect(response.text, cell.door).toContain(cell.fixture.mark);
        else expectNoMarker(response.text, cell.fixture.mark, cell.door);
      },
    },
    {
      name: 'GraphQL comment(id) { replies }',
      outcome: (status, caller) => (sees(caller, status) ? 'the comment' : 'null'),
      check: async (cell) => {
        const { body, response } = await gql(cell.caller, COMMENT_QUERY, { id: cell.fixture.comment.id });
        expect(body.errors, `${cell.door}: ${JSON.stringify(body.errors)}`).toBeUndefined();
        if (!cell.visible) {
          expect(body.data.comment, cell.door).toBeNull();
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(body.data.comment).toEqual({
          id: cell.fixture.comment.id,
          status: cell.status.toUpperCase(),
          body: cell.fixture.comment.body,
          parentId: null,
          replies: cell.status === 'approved' ? [{ id: reply.id }] : [],
        });
      },
    },
    {
      name: 'GraphQL comment(id) over GET /graphql',
      outcome: (status, caller) => (sees(caller, status) ? 'the comment' : 'null'),
      check: async (cell) => {
        const response = await as(
          http().get('/graphql').query({ query: COMMENT_QUERY, variables: JSON.stringify({ id: cell.fixture.comment.id }) }).set('accept', 'application/graphql-response+json, application/json'),
          tokens[cell.caller],
        );
        const body = JSON.parse(response.text) as { data?: { comment: { id: number; body: string } | null }; errors?: unknown[] };
        expect(body.errors, `${cell.door}: ${response.text}`).toBeUndefined();
        if (!cell.visible) {
          expect(body.data?.comment, cell.door).toBeNull();
          return expectNoMarker(response.text, cell.fixture.mark, cell.door);
        }
        expect(body.data?.comment).toMatchObject({ id: cell.fixture.comment.id, body: cell.fixture.comment.body });
      },
    },
    {
      name: 'GraphQL comment(id) over WebSocket',
      outcome: (status, caller) => (sees(caller, status) ? 'the comment' : 'null'),
      check: async (cell) => {
        const operation = new LiveSubscription((await wsFor(cell.caller)).client, COMMENT_QUERY, { id: cell.fixture.comment.id });
        subscriptions.push(operation);
        await until(`${cell.door}: the answer`, () => operation.completed || operation.error !== undefined);
        expect(operation.error, JSON.stringify(operation.error)).toBeUndefined();
        expect(operation.results).toHaveLength(1);
        const [result] = operation.results;
        expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
        if (!cell.visible) {
          expect(result.data.comment, cell.door).toBeNull();
          return expectNoMarker(JSON.stringify(result), cell.fixture.mark, cell.door);
        }
        expect(result.data.comment).toMatchObject({ id: cell.fixture.comment.id, body: cell.fixture.comment.body });
      },
    },
    {
      name: 'GraphQL post(id) { commentCount comments }',
      outcome: (status, caller) => (sees(caller, status) ? 'counts and lists it' : 'neither counts nor lists it'),
      check: async (cell) => {
        const { body, response } = await gql(cell.caller, 'query($id: Int!) { post(id: $id) { commentCount comments { id body } } }', { id: post.id });
        expect(body.errors, `${cell.door}: ${JSON.stringify(body.errors)}`).toBeUndefined();
        const listed = (body.data.post.comments as { id: number }[]).map((comment) => comment.id);
        expectListed(listed, response.text, cell);
        expect([...listed].sort((a, b) => a - b), `${cell.door}: exactly what the caller sees`).toEqual(visibleIds(cell.caller));
        expect(body.data.post.commentCount, `${cell.door}: commentCount counts what the caller sees`).toBe(visibleIds(cell.caller).length);
      },
    },
    {
      name: `GET /events?types=${COMMENT_TYPES}`,
      outcome: (status, caller) => {
        const types = feedTypes(caller, status);
        return types.length > 0 ? types.join(', ') : 'nothing of it';
      },
      check: async (cell) => {
        const events = await feed(cell.caller);
        const about = events.filter((event) => event.commentId === cell.fixture.comment.id);
        expect(about.map((event) => event.type), cell.door).toEqual(feedTypes(cell.caller, cell.status));
        for (const event of about) {
          if (event.type === 'COMMENT_DELETED') expect(event.resource ?? null, `${cell.door}: COMMENT_DELETED carries ids only`).toBeNull();
          else expect((event.resource as { body?: string } | null)?.body, `${cell.door}: ${event.type} carries the comment`).toBe(cell.fixture.comment.body);
        }
        // Whoever never saw the comment reads nothing of it anywhere in the feed.
        if (!sees(cell.caller, 'pending') && !cell.visible) expectNoMarker(JSON.stringify(events), cell.fixture.mark, cell.door);
      },
    },
  ];

  for (const status of STATUSES) {
    describe(`${status} comment`, () => {
      for (const caller of CALLER_NAMES) {
        describe(LABELS[caller], () => {
          for (const door of DOORS) {
            const outcome = door.outcome ? door.outcome(status, caller) : sees(caller, status) ? 'shows it' : 'hides it (404)';
            it(`${door.name}: ${outcome}`, async () => {
              await door.check({ status, caller, visible: sees(caller, status), fixture: fixtures.get(status)!, door: `[${status} × ${caller}] ${door.name}` });
            });
          }
        });
      }

      it(status === 'approved' ? 'webhooks: its COMMENT_CREATED (of the approval) is delivered, with the comment' : 'webhooks: nothing of it is delivered', async () => {
        await until('the webhook delivery of the fixture fence', () => receiver.payloads().some((payload) => payload.data.commentId === fixtureFence.id), 20_000);
        const { comment, mark } = fixtures.get(status)!;
        const about = receiver.payloads().filter((payload) => payload.data.commentId === comment.id);
        if (status === 'approved') {
          expect(about.map((payload) => payload.type)).toEqual(['COMMENT_CREATED']);
          expect(about[0].data.resource?.body).toBe(comment.body);
          return;
        }
        expect(about.map((payload) => payload.type), `[${status}] webhook deliveries about comment ${comment.id}`).toEqual([]);
        expectNoMarker(receiver.receipts.map((receipt) => receipt.body).join('\n'), mark, `[${status}] webhook deliveries`);
      });
    });
  }

  it('a reply to the hidden comment by someone who may not see it gets the answer of a reply to no comment at all (400 on parentId), REST and GraphQL; nothing is written', async () => {
    const hidden = fixtures.get('hidden')!;
    const missing = 999_999;
    const restReply = (parentId: number) => http().post(`/posts/${post.id}/comments`).set(bearer(tokens.other!)).send({ body: 'A reply to what I cannot see', parentId });
    const [toHidden, toNothing] = [await restReply(hidden.comment.id), await restReply(missing)];
    expectProblem(toHidden, 400, 'BAD_USER_INPUT');
    expectNoMarker(toHidden.text, hidden.mark, 'POST /posts/{id}/comments with the hidden parent');
    // The same answer as for a comment that does not exist: the refusal tells nothing of the hidden one.
    const unnamed = (response: Response) => response.text.replaceAll(String(hidden.comment.id), 'N').replaceAll(String(missing), 'N');
    expect(toNothing.status).toBe(400);
    expect(unnamed(toHidden)).toBe(unnamed(toNothing));

    const mutation = 'mutation($input: CreateCommentInput!) { createComment(input: $input) { id } }';
    const graphqlReply = (parentId: number) => gql('other', mutation, { input: { postId: post.id, body: 'A reply to what I cannot see', parentId } });
    const [gqlHidden, gqlNothing] = [await graphqlReply(hidden.comment.id), await graphqlReply(missing)];
    const codes = (result: Awaited<ReturnType<typeof graphqlReply>>) => (result.body.errors ?? []).map((error) => error.extensions.code);
    expect(codes(gqlHidden), gqlHidden.response.text).toEqual(['BAD_USER_INPUT']);
    expect(codes(gqlNothing), gqlNothing.response.text).toEqual(codes(gqlHidden));
    expectNoMarker(gqlHidden.response.text, hidden.mark, 'createComment with the hidden parent');

    const listed = await http().get(`/posts/${post.id}/comments?limit=100`).set(bearer(tokens.admin!)).expect(200);
    expect((listed.body as { parentId: number | null }[]).filter((comment) => comment.parentId === hidden.comment.id), 'no reply was written').toEqual([]);
  });

  // -------------------------------------------------------------------------------------------
  // Live: each caller's subscriptions while a comment is held then approved, and another approved then hidden

  describe('live, while COMMENTER writes a held comment that is approved, and the admin a comment that is hidden', () => {
    type Kind = 'events over WebSocket' | 'events over SSE' | 'commentCreated over WebSocket' | 'commentCreated over SSE';
    const KINDS: Kind[] = ['events over WebSocket', 'events over SSE', 'commentCreated over WebSocket', 'commentCreated over SSE'];
    const live = new Map<string, LiveSubscription>();
    const key = (caller: CallerName, kind: Kind) => `${caller}/${kind}`;
    let livePost: EditorialPost;
    let held: CommentBody;
    let shown: CommentBody;
    let heldMark: string;
    let shownMark: string;
    /** The fence after the held comment was written (before its approval), and the one at the end. */
    let middle: CommentBody;
    let closing: CommentBody;
    const receiverStart = { index: 0 };

    /** What a subscription got, as `TYPE:label` for the live comments (commentCreated: `CREATED:label`), cut at the fences. */
    function seen(caller: CallerName, kind: Kind): { before: string[]; after: string[] } {
      const subscription = live.get(key(caller, kind))!;
      const label = (id: number | undefined) => (id === held.id ? 'held' : id === shown.id ? 'shown' : id === middle.id ? 'middle' : id === closing.id ? 'closing' : undefined);
      const items = valuesOf(subscription)
        .map((value: { type?: string; commentId?: number; id?: number }) =>
          kind.startsWith('events') ? { type: value.type!.replace('COMMENT_', ''), name: label(value.commentId) } : { type: 'CREATED', name: label(value.id) },
        )
        .filter((item) => item.name !== undefined)
        .map((item) => `${item.type}:${item.name}`);
      const cut = items.indexOf('CREATED:middle');
      const end = items.indexOf('CREATED:closing');
      expect(cut, `${caller} ${kind}: the middle fence`).toBeGreaterThanOrEqual(0);
      return { before: items.slice(0, cut), after: items.slice(cut + 1, end === -1 ? undefined : end) };
    }

    beforeAll(async () => {
      livePost = await createPostWith(app, tokens.postAuthor!, { title: 'Live conversation', body: 'Watched by everyone' });
      for (const caller of CALLER_NAMES) {
        for (const kind of KINDS) {
          const client = kind.endsWith('SSE') ? sseFor(caller) : (await wsFor(caller)).client;
          const query = kind.startsWith('events')
            ? 'subscription($postId: Int) { events(postId: $postId) { cursor type postId commentId comment { id body status } } }'
            : 'subscription($postId: Int) { commentCreated(postId: $postId) { id body status } }';
          const subscription = new LiveSubscription(client, query, { postId: livePost.id });
          subscriptions.push(subscription);
          live.set(key(caller, kind), subscription);
        }
      }
      await warmUp([...live.values()], async () => {
        await commentOn(app, livePost.id, tokens.admin!, 'Is everyone listening?');
      });
      receiverStart.index = receiver.receipts.length;
      const waitForFence = async (fence: CommentBody) =>
        until(
          `every subscriber to get comment ${fence.id}`,
          () => [...live.values()].every((subscription) => valuesOf(subscription).some((value) => value?.commentId === fence.id || value?.id === fence.id)),
          20_000,
        );

      heldMark = marker('held');
      held = await commentOn(app, livePost.id, tokens.commenter!, `Held ${heldMark}`);
      expect((held as CommentBody & { status: string }).status).toBe('pending');
      middle = await commentOn(app, livePost.id, tokens.admin!, 'Middle fence');
      await waitForFence(middle);

      await moderate([{ id: held.id, status: 'approved' }]);
      shownMark = marker('shown');
      shown = await commentOn(app, livePost.id, tokens.admin!, `Shown ${shownMark}`);
      expect((shown as CommentBody & { status: string }).status).toBe('approved');
      // Delivered before it is hidden: hidden first, its COMMENT_CREATED would have lost its text (content-withdrawal spec).
      await waitForFence(shown);
      await moderate([{ id: shown.id, status: 'hidden' }]);
      closing = await commentOn(app, livePost.id, tokens.admin!, 'Closing fence');
      await waitForFence(closing);
    });

    /** What each caller's `events` subscription gets: before the middle fence (held written), and after it (held approved, shown written, shown hidden). */
    function expectedEvents(caller: CallerName): { before: string[]; after: string[] } {
      const sawHeld = moderates(caller) || isCommenter(caller);
      return {
        before: sawHeld ? ['CREATED:held'] : [],
        after: [sawHeld ? 'UPDATED:held' : 'CREATED:held', 'CREATED:shown', moderates(caller) ? 'UPDATED:shown' : 'DELETED:shown'],
      };
    }

    function expectedCreated(caller: CallerName): { before: string[]; after: string[] } {
      const sawHeld = moderates(caller) || isCommenter(caller);
      return { before: sawHeld ? ['CREATED:held'] : [], after: sawHeld ? ['CREATED:shown'] : ['CREATED:held', 'CREATED:shown'] };
    }

    const describeSeq = (expected: { before: string[]; after: string[] }) =>
      `${expected.before.length > 0 ? expected.before.join(', ') : 'nothing'} while held; then ${expected.after.join(', ')}`;

    for (const caller of CALLER_NAMES) {
      for (const kind of KINDS) {
        const expected = kind.startsWith('events') ? expectedEvents(caller) : expectedCreated(caller);
        it(`${kind}, ${LABELS[caller]}: ${describeSeq(expected)}`, () => {
          const subscription = live.get(key(caller, kind))!;
          const door = `[live × ${caller}] ${kind}`;
          expect(subscription.error, `${door}: ${JSON.stringify(subscription.error)}`).toBeUndefined();
          expect(subscription.results.filter((result) => result.errors), door).toEqual([]);
          expect(seen(caller, kind), door).toEqual(expected);
          // The held comment's text reaches nobody who may not see it pending before its approval.
          if (!(moderates(caller) || isCommenter(caller))) {
            const values = valuesOf(subscription);
            const middleAt = values.findIndex((value) => value?.commentId === middle.id || value?.id === middle.id);
            expectNoMarker(JSON.stringify(values.slice(0, middleAt)), heldMark, `${door} before the approval`);
          }
          if (kind.startsWith('events')) {
            const deleted = valuesOf(subscription).filter((value) => value?.type === 'COMMENT_DELETED');
            for (const value of deleted) expect(value.comment, `${door}: COMMENT_DELETED carries ids only`).toBeNull();
          }
        });
      }
    }

    it('webhooks: nothing of the held comment until its approval’s COMMENT_CREATED; the hidden one’s COMMENT_DELETED carries ids only', async () => {
      await until('the webhook delivery of the closing fence', () => receiver.payloads().some((payload) => payload.data.commentId === closing.id), 20_000);
      const payloads = receiver.payloads().slice(receiverStart.index);
      const names = payloads
        .map((payload) => ({ type: payload.type.replace('COMMENT_', ''), name: payload.data.commentId === held.id ? 'held' : payload.data.commentId === shown.id ? 'shown' : payload.data.commentId === middle.id ? 'middle' : undefined }))
        .filter((item) => item.name !== undefined)
        .map((item) => `${item.type}:${item.name}`);
      // One COMMENT_CREATED of the held comment, and none at its writing: a second (or an UPDATED) would fail here.
      // Sorted: deliveries of different events may arrive in any order.
      expect([...names].sort()).toEqual(['CREATED:held', 'CREATED:middle', 'CREATED:shown', 'DELETED:shown'].sort());
      const heldCreated = payloads.find((payload) => payload.type === 'COMMENT_CREATED' && payload.data.commentId === held.id)!;
      expect(heldCreated.data.resource?.body).toBe(held.body);
      const deleted = payloads.find((payload) => payload.type === 'COMMENT_DELETED' && payload.data.commentId === shown.id)!;
      expect(deleted.data.resource ?? null).toBeNull();
      expectNoMarker(JSON.stringify(deleted), shownMark, 'the COMMENT_DELETED delivery');
    });
  });

  // -------------------------------------------------------------------------------------------
  // The response cache

  describe('the response cache never holds a held comment', () => {
    const HIT = 'blog; hit';
    const MISS = 'blog; fwd=miss';

    const anonymousList = async (postId: number) => {
      const response = await http().get(`/posts/${postId}/comments`).expect(200);
      return { status: response.headers['cache-status'] as string | undefined, ids: (response.body as { id: number }[]).map((comment) => comment.id), text: response.text };
    };

    it('anonymous GraphQL over GET: post(id) { commentCount comments } cached without the held comment, counted and listed at once when approved', async () => {
      const cached = await createPostWith(app, tokens.postAuthor!, { title: 'Cached in GraphQL', body: 'Read twice' });
      const mark = marker('gqlcache');
      const comment = await commentOn(app, cached.id, tokens.commenter!, `Held ${mark}`);
      const query = 'query($id: Int!) { post(id: $id) { commentCount comments { id body } } }';
      const read = async () => {
        const response = await http().get('/graphql').query({ query, variables: JSON.stringify({ id: cached.id }) }).set('accept', 'application/graphql-response+json, application/json');
        const body = JSON.parse(response.text) as { data: { post: { commentCount: number; comments: { id: number }[] } } };
        return { status: response.headers['cache-status'] as string | undefined, post: body.data.post, text: response.text };
      };
      const first = await read();
      expect(first.status).toBe(MISS);
      expect(first.post).toEqual({ commentCount: 0, comments: [] });
      const second = await read();
      expect(second.status, 'the second anonymous read comes from the cache').toBe(HIT);
      expectNoMarker(second.text, mark, 'the cached GraphQL answer');
      await moderate([{ id: comment.id, status: 'approved' }]);
      const approved = await read();
      expect(approved.post, 'right after the approval').toEqual({ commentCount: 1, comments: [{ id: comment.id, body: comment.body }] });
      expect(approved.status).toBe(MISS);
      await moderate([{ id: comment.id, status: 'spam' }]);
      const spam = await read();
      expect(spam.post, 'right after it was marked as spam').toEqual({ commentCount: 0, comments: [] });
      expectNoMarker(spam.text, mark, 'the anonymous GraphQL answer after the comment was marked as spam');
    });

    it('anonymous GET /posts/{id}/comments: cached without the held comment (also after moderators read it), shown at once when approved, gone at once when hidden', async () => {
      const cached = await createPostWith(app, tokens.postAuthor!, { title: 'Cached conversation', body: 'Read twice' });
      const mark = marker('cache');
      const comment = await commentOn(app, cached.id, tokens.commenter!, `Held ${mark}`);
      expect((comment as CommentBody & { status: string }).status).toBe('pending');

      const first = await anonymousList(cached.id);
      expect(first.status, 'the first anonymous read').toBe(MISS);
      expect(first.ids).toEqual([]);
      expectNoMarker(first.text, mark, 'the first anonymous read');
      const second = await anonymousList(cached.id);
      expect(second.status, 'the second anonymous read comes from the cache').toBe(HIT);
      expectNoMarker(second.text, mark, 'the cached anonymous read');

      for (const caller of ['commenter', 'moderator', 'admin'] as const) {
        const read = await http().get(`/posts/${cached.id}/comments`).set(bearer(tokens[caller]!)).expect(200);
        expect((read.body as { id: number }[]).map((item) => item.id), `${caller} sees the held comment`).toEqual([comment.id]);
      }
      const third = await anonymousList(cached.id);
      expect(third.ids, 'the anonymous read after the moderators read it').toEqual([]);
      expectNoMarker(third.text, mark, 'the anonymous read after the moderators read it');

      await moderate([{ id: comment.id, status: 'approved' }]);
      const approved = await anonymousList(cached.id);
      expect(approved.ids, 'right after the approval').toEqual([comment.id]);
      expect(approved.text).toContain(mark);
      expect(approved.status, 'the approval emptied the cache').toBe(MISS);
      expect((await anonymousList(cached.id)).status).toBe(HIT);

      // A new held comment changes nothing for anonymous readers, cached or not.
      const laterMark = marker('later');
      await commentOn(app, cached.id, tokens.commenter!, `Held too ${laterMark}`);
      for (const attempt of ['first', 'second']) {
        const read = await anonymousList(cached.id);
        expect(read.ids, `${attempt} anonymous read after a second held comment`).toEqual([comment.id]);
        expectNoMarker(read.text, laterMark, `${attempt} anonymous read after a second held comment`);
      }

      await moderate([{ id: comment.id, status: 'hidden' }]);
      for (const attempt of ['first', 'second']) {
        const read = await anonymousList(cached.id);
        expect(read.ids, `${attempt} anonymous read right after the comment was hidden`).toEqual([]);
        expectNoMarker(read.text, mark, `${attempt} anonymous read right after the comment was hidden`);
      }
      const item = await http().get(`/comments/${comment.id}`);
      expect(item.status, 'GET /comments/{id} of the hidden comment, anonymous').toBe(404);
    });
  });
});
