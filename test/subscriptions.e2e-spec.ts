import { createHmac } from 'node:crypto';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { PostFinder } from '../src/posts/post-finder.service.js';
import type { BlogEventName } from '../src/events/blog-events.js';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { expectData, expectError, graphql, metricValue } from './support/graphql-client.js';
import {
  ALL_EVENTS,
  busSubscribers,
  errorCodes,
  type ListeningApp,
  LiveSubscription,
  listen,
  until,
  waitForNoSubscribers,
  waitForSubscribers,
  type WsClient,
  wsClient,
} from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app.js';

/** CONTRACT §5 over graphql-ws: every write's event, filters, nested selections, auth on connect, limits, caps, metrics. */

const ALICE_ID = 2;
const BOB_ID = 3;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
function signJwt(payload: Record<string, unknown>, secret = TEST_JWT_SECRET): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/**
 * Per-suite bookkeeping of live clients: each subscribe() waits until the subscriber listens
 * on the bus (so a write right after it is seen), and afterEach() disposes everything and
 * waits for the bus to be empty again (so the next test starts from zero subscribers).
 */
function liveClients(getApp: () => TestApp, getUrls: () => ListeningApp) {
  const clients: WsClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  let expected = new Map<BlogEventName, number>();

  const connect = async (options: { token?: string } = {}): Promise<WsClient> => {
    const client = wsClient(getUrls().ws, options);
    clients.push(client);
    await Promise.race([client.connected, client.closed.then((event) => Promise.reject(new Error(`closed ${event.code} ${event.reason}`)))]);
    return client;
  };

  const subscribe = async (query: string, variables?: Record<string, unknown>, options: { client?: WsClient; token?: string } = {}) => {
    const client = options.client ?? (await connect(options));
    const name = ALL_EVENTS.find((event) => new RegExp(`\\b${event}\\b`).test(query));
    if (!name) throw new Error(`No event in ${query}`);
    const subscription = new LiveSubscription(client.client, query, variables);
    subscriptions.push(subscription);
    const count = (expected.get(name) ?? 0) + 1;
    expected.set(name, count);
    const failed = () => subscription.error !== undefined || subscription.results.length > 0;
    await until(`${count} ${name} subscriber(s) on the bus`, () => failed() || busSubscribers(getApp(), name) === count);
    if (failed()) throw new Error(`The subscription failed: ${JSON.stringify(subscription.error ?? subscription.results)}`);
    return subscription;
  };

  const cleanUp = async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    expected = new Map();
    await waitForNoSubscribers(getApp());
    // Sockets hold their slot from the upgrade until the server has seen them close.
    await until('every socket to be closed', async () => (await metricValue(getApp(), 'ws_connections')) === 0);
  };

  return { connect, subscribe, cleanUp };
}

describeEachDatabase('subscriptions over graphql-ws', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let alice: string;
  let bob: string;
  let admin: string;
  const live = liveClients(() => app, () => urls);
  const http = () => request(app.server);

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    [alice, bob, admin] = await Promise.all([tokenFor(app, ALICE), tokenFor(app, BOB), tokenFor(app, ADMIN)]);
  });
  afterEach(() => live.cleanUp());
  afterAll(() => app?.close());

  const restPost = async (token: string, title: string): Promise<number> =>
    (await http().post('/posts').set(bearer(token)).send({ title, body: `${title} body` }).expect(201)).body.id;
  const restComment = async (token: string, postId: number, body: string): Promise<number> =>
    (await http().post(`/posts/${postId}/comments`).set(bearer(token)).send({ body }).expect(201)).body.id;
  const gql = async (token: string, query: string, variables?: Record<string, unknown>) =>
    expectData(await graphql(app, query, variables, { token }));

  describe('each event arrives after the REST write and after the GraphQL mutation, filter honoured', () => {
    it('postCreated(authorId)', async () => {
      const sub = await live.subscribe('subscription($a: Int) { postCreated(authorId: $a) { id title body authorId createdAt } }', { a: ALICE_ID });

      await restPost(bob, 'Bob via REST'); // not Alice's: not delivered
      const viaRest = await restPost(alice, 'Alice via REST');
      await gql(bob, 'mutation { createPost(input: { title: "Bob via GraphQL", body: "b" }) { id } }');
      const viaGraphQL = (await gql(alice, 'mutation { createPost(input: { title: "Alice via GraphQL", body: "b" }) { id } }')).createPost.id;

      const values = await sub.received(2);
      expect(values).toEqual([
        { id: viaRest, title: 'Alice via REST', body: 'Alice via REST body', authorId: ALICE_ID, createdAt: expect.stringMatching(/Z$/) },
        { id: viaGraphQL, title: 'Alice via GraphQL', body: 'b', authorId: ALICE_ID, createdAt: expect.stringMatching(/Z$/) },
      ]);
      const stored = await http().get(`/posts/${viaRest}`).expect(200);
      expect(values[0].createdAt).toBe(stored.body.createdAt);
    });

    it('postCreated without a filter sees every author', async () => {
      const sub = await live.subscribe('subscription { postCreated { title authorId } }');
      await restPost(bob, 'any 1');
      await gql(alice, 'mutation { createPost(input: { title: "any 2", body: "b" }) { id } }');
      expect(await sub.received(2)).toEqual([{ title: 'any 1', authorId: BOB_ID }, { title: 'any 2', authorId: ALICE_ID }]);
    });

    it('postUpdated(id)', async () => {
      const other = await restPost(alice, 'other');
      const watched = await restPost(alice, 'watched');
      const sub = await live.subscribe('subscription($id: Int) { postUpdated(id: $id) { id title body } }', { id: watched });

      await http().patch(`/posts/${other}`).set(bearer(alice)).send({ title: 'other, changed' }).expect(200);
      await http().patch(`/posts/${watched}`).set(bearer(alice)).send({ title: 'changed via REST' }).expect(200);
      await gql(alice, 'mutation($id: Int!) { updatePost(id: $id, input: { body: "x" }) { id } }', { id: other });
      await gql(admin, 'mutation($id: Int!) { updatePost(id: $id, input: { body: "changed via GraphQL" }) { id } }', { id: watched });

      expect(await sub.received(2)).toEqual([
        { id: watched, title: 'changed via REST', body: 'watched body' },
        { id: watched, title: 'changed via REST', body: 'changed via GraphQL' },
      ]);
    });

    it('postDeleted(id)', async () => {
      const [p1, p2, p3, p4] = [await restPost(alice, 'd1'), await restPost(alice, 'd2'), await restPost(bob, 'd3'), await restPost(bob, 'd4')];
      const viaRest = await live.subscribe('subscription($id: Int) { postDeleted(id: $id) }', { id: p2 });
      const viaGraphQL = await live.subscribe('subscription($id: Int) { postDeleted(id: $id) }', { id: p4 });
      const any = await live.subscribe('subscription { postDeleted }');

      await http().delete(`/posts/${p1}`).set(bearer(alice)).expect(204);
      await http().delete(`/posts/${p2}`).set(bearer(alice)).expect(204);
      expect(await gql(bob, 'mutation($id: Int!) { deletePost(id: $id) }', { id: p3 })).toEqual({ deletePost: p3 });
      await gql(bob, 'mutation($id: Int!) { deletePost(id: $id) }', { id: p4 });

      expect(await any.received(4)).toEqual([p1, p2, p3, p4]);
      expect(await viaRest.received(1)).toEqual([p2]);
      expect(await viaGraphQL.received(1)).toEqual([p4]);
    });

    it('commentCreated(postId)', async () => {
      const other = await restPost(alice, 'cc other');
      const watched = await restPost(alice, 'cc watched');
      const sub = await live.subscribe('subscription($p: Int) { commentCreated(postId: $p) { id postId body authorId } }', { p: watched });

      await restComment(bob, other, 'elsewhere');
      const viaRest = await restComment(bob, watched, 'via REST');
      await gql(alice, 'mutation($p: Int!) { createComment(input: { postId: $p, body: "elsewhere" }) { id } }', { p: other });
      const viaGraphQL = (await gql(alice, 'mutation($p: Int!) { createComment(input: { postId: $p, body: "via GraphQL" }) { id } }', { p: watched }))
        .createComment.id;

      expect(await sub.received(2)).toEqual([
        { id: viaRest, postId: watched, body: 'via REST', authorId: BOB_ID },
        { id: viaGraphQL, postId: watched, body: 'via GraphQL', authorId: ALICE_ID },
      ]);
    });

    it('commentUpdated(postId)', async () => {
      const other = await restPost(alice, 'cu other');
      const watched = await restPost(alice, 'cu watched');
      const onOther = await restComment(bob, other, 'o');
      const onWatched = await restComment(bob, watched, 'w');
      const sub = await live.subscribe('subscription($p: Int) { commentUpdated(postId: $p) { id postId body } }', { p: watched });

      await http().patch(`/comments/${onOther}`).set(bearer(bob)).send({ body: 'o2' }).expect(200);
      await http().patch(`/comments/${onWatched}`).set(bearer(bob)).send({ body: 'changed via REST' }).expect(200);
      await gql(bob, 'mutation($id: Int!) { updateComment(id: $id, input: { body: "o3" }) { id } }', { id: onOther });
      await gql(admin, 'mutation($id: Int!) { updateComment(id: $id, input: { body: "changed via GraphQL" }) { id } }', { id: onWatched });

      expect(await sub.received(2)).toEqual([
        { id: onWatched, postId: watched, body: 'changed via REST' },
        { id: onWatched, postId: watched, body: 'changed via GraphQL' },
      ]);
    });

    it('commentDeleted(postId)', async () => {
      const other = await restPost(alice, 'cd other');
      const watched = await restPost(alice, 'cd watched');
      const [o1, w1, o2, w2] = [
        await restComment(bob, other, 'o1'),
        await restComment(bob, watched, 'w1'),
        await restComment(bob, other, 'o2'),
        await restComment(bob, watched, 'w2'),
      ];
      const sub = await live.subscribe('subscription($p: Int) { commentDeleted(postId: $p) }', { p: watched });

      await http().delete(`/comments/${o1}`).set(bearer(bob)).expect(204);
      await http().delete(`/comments/${w1}`).set(bearer(bob)).expect(204);
      await gql(bob, 'mutation($id: Int!) { deleteComment(id: $id) }', { id: o2 });
      expect(await gql(admin, 'mutation($id: Int!) { deleteComment(id: $id) }', { id: w2 })).toEqual({ deleteComment: w2 });

      expect(await sub.received(2)).toEqual([w1, w2]);
    });
  });

  describe('selections and cascades', () => {
    it('nested selections resolve like a query: postCreated { title author { name } commentCount }', async () => {
      const sub = await live.subscribe('subscription { postCreated { title author { name avatarUrl } commentCount comments { body } } }');
      await restPost(alice, 'nested');
      await gql(bob, 'mutation { createPost(input: { title: "nested 2", body: "b" }) { id } }');
      expect(await sub.received(2)).toEqual([
        { title: 'nested', author: { name: 'Alice Author', avatarUrl: null }, commentCount: 0, comments: [] },
        { title: 'nested 2', author: { name: 'Bob Writer', avatarUrl: null }, commentCount: 0, comments: [] },
      ]);
    });

    it('commentCreated { body author { name } post { title } } and postUpdated { commentCount } see the committed data', async () => {
      const post = await restPost(alice, 'with comments');
      const comments = await live.subscribe('subscription($p: Int) { commentCreated(postId: $p) { body author { name } post { title author { name } } } }', { p: post });
      const updates = await live.subscribe('subscription($id: Int) { postUpdated(id: $id) { title commentCount comments { body author { name } } } }', { id: post });

      await restComment(bob, post, 'first!');
      await gql(admin, 'mutation($p: Int!) { createComment(input: { postId: $p, body: "second" }) { id } }', { p: post });
      expect(await comments.received(2)).toEqual([
        { body: 'first!', author: { name: 'Bob Writer' }, post: { title: 'with comments', author: { name: 'Alice Author' } } },
        { body: 'second', author: { name: 'Ada Admin' }, post: { title: 'with comments', author: { name: 'Alice Author' } } },
      ]);

      await http().patch(`/posts/${post}`).set(bearer(alice)).send({ title: 'with two comments' }).expect(200);
      expect(await updates.received(1)).toEqual([
        {
          title: 'with two comments',
          commentCount: 2,
          comments: [{ body: 'first!', author: { name: 'Bob Writer' } }, { body: 'second', author: { name: 'Ada Admin' } }],
        },
      ]);
    });

    it('subscribers of one event each get their own selection', async () => {
      const a = await live.subscribe('subscription { postCreated { id } }');
      const b = await live.subscribe('subscription { postCreated { title author { email } } }', undefined, { token: bob });
      const id = await restPost(alice, 'two views');
      expect(await a.received(1)).toEqual([{ id }]);
      expect(await b.received(1)).toEqual([{ title: 'two views', author: { email: 'alice@example.com' } }]);
    });

    it('deleting a post for good (its second DELETE, after the trash) publishes commentDeleted for each of its comments, then postDeleted (REST and GraphQL)', async () => {
      const doomed = await restPost(alice, 'doomed');
      const kept = await restPost(alice, 'kept');
      const c1 = await restComment(bob, doomed, 'c1');
      const c2 = await restComment(alice, doomed, 'c2');
      const keptComment = await restComment(bob, kept, 'k');
      const alsoDoomed = await restPost(bob, 'also doomed');
      const c3 = await restComment(alice, alsoDoomed, 'c3');

      // An admin, who still sees a trashed post and its comments until they are deleted for good.
      const commentsOfDoomed = await live.subscribe('subscription($p: Int) { commentDeleted(postId: $p) }', { p: doomed }, { token: admin });
      const allComments = await live.subscribe('subscription { commentDeleted }', undefined, { token: admin });
      const posts = await live.subscribe('subscription { postDeleted }', undefined, { token: admin });

      await http().delete(`/posts/${doomed}`).set(bearer(alice)).expect(204);
      await http().delete(`/posts/${doomed}`).set(bearer(alice)).expect(204);
      expect((await commentsOfDoomed.received(2)).sort((x, y) => x - y)).toEqual([c1, c2]);
      await gql(bob, 'mutation($id: Int!) { deletePost(id: $id) }', { id: alsoDoomed });
      await gql(bob, 'mutation($id: Int!) { deletePost(id: $id) }', { id: alsoDoomed });

      expect(await posts.received(2)).toEqual([doomed, alsoDoomed]);
      const deleted = await allComments.received(3);
      expect(deleted.slice(0, 2).sort((x, y) => x - y)).toEqual([c1, c2]);
      expect(deleted[2]).toBe(c3);
      expect(deleted).not.toContain(keptComment);
      await http().get(`/comments/${keptComment}`).expect(200);
    });

    it('deleting a user publishes postDeleted and commentDeleted for what went with them', async () => {
      const user = await http().post('/users').send({ name: 'Short Lived', email: `short-${Date.now()}@example.com`, password: 'password-123' }).expect(201);
      const token = await tokenFor(app, { email: user.body.email, password: 'password-123' });
      const post = await restPost(token, 'by a leaving user');
      const onOwnPost = await restComment(alice, post, 'on the leaving post');
      const elsewhere = await restPost(alice, 'stays');
      const ownComment = await restComment(token, elsewhere, 'by the leaving user');

      const posts = await live.subscribe('subscription { postDeleted }');
      const comments = await live.subscribe('subscription { commentDeleted }');
      await http().delete(`/users/${user.body.id}`).set(bearer(token)).expect(204);

      expect(await posts.received(1)).toEqual([post]);
      expect((await comments.received(2)).sort((x, y) => x - y)).toEqual([onOwnPost, ownComment].sort((x, y) => x - y));
    });

    it('a failed write (401, 403, 400, 404) publishes nothing', async () => {
      const post = await restPost(alice, 'target');
      const comment = await restComment(alice, post, 'target comment');
      const subs = new Map<BlogEventName, LiveSubscription>();
      const client = await live.connect();
      for (const name of ALL_EVENTS) {
        const selection = name.endsWith('Deleted') ? '' : ' { id }';
        subs.set(name, await live.subscribe(`subscription { ${name}${selection} }`, undefined, { client }));
      }

      // REST
      await http().post('/posts').send({ title: 't', body: 'b' }).expect(401);
      await http().post('/posts').set(bearer(alice)).send({ title: '   ', body: 'b' }).expect(400);
      await http().post('/posts').set(bearer(alice)).send({ title: 't', body: 'b', authorId: BOB_ID }).expect(403);
      await http().patch(`/posts/${post}`).set(bearer(bob)).send({ title: 'hijacked' }).expect(403);
      await http().patch(`/posts/${post}`).set(bearer(alice)).send({ title: '' }).expect(400);
      await http().patch('/posts/999999').set(bearer(admin)).send({ title: 'x' }).expect(404);
      await http().delete(`/posts/${post}`).set(bearer(bob)).expect(403);
      await http().delete('/posts/999999').set(bearer(admin)).expect(404);
      await http().post(`/posts/${post}/comments`).set(bearer(bob)).send({ body: '' }).expect(400);
      await http().post('/posts/999999/comments').set(bearer(bob)).send({ body: 'x' }).expect(404);
      await http().patch(`/comments/${comment}`).set(bearer(bob)).send({ body: 'x' }).expect(403);
      await http().patch('/comments/999999').set(bearer(admin)).send({ body: 'x' }).expect(404);
      await http().delete(`/comments/${comment}`).set(bearer(bob)).expect(403);
      await http().delete('/comments/abc').set(bearer(admin)).expect(400);
      // GraphQL
      expectError(await graphql(app, 'mutation { createPost(input: { title: "", body: "b" }) { id } }', undefined, { token: alice }), 'BAD_USER_INPUT', ['createPost']);
      expectError(await graphql(app, 'mutation { createPost(input: { title: "t", body: "b" }) { id } }'), 'UNAUTHENTICATED', ['createPost']);
      expectError(await graphql(app, `mutation { updatePost(id: ${post}, input: { title: "x" }) { id } }`, undefined, { token: bob }), 'FORBIDDEN', ['updatePost']);
      expectError(await graphql(app, `mutation { deletePost(id: ${post}) }`, undefined, { token: bob }), 'FORBIDDEN', ['deletePost']);
      expectError(await graphql(app, 'mutation { createComment(input: { postId: 999999, body: "x" }) { id } }', undefined, { token: bob }), 'NOT_FOUND', ['createComment']);
      expectError(await graphql(app, `mutation { updateComment(id: ${comment}, input: { body: "x" }) { id } }`, undefined, { token: bob }), 'FORBIDDEN', ['updateComment']);
      expectError(await graphql(app, 'mutation { deleteComment(id: 999999) }', undefined, { token: admin }), 'NOT_FOUND', ['deleteComment']);

      // Then one successful write of each kind: it must be the first and only event of each stream.
      const sentinel = await restPost(alice, 'sentinel');
      await http().patch(`/posts/${sentinel}`).set(bearer(alice)).send({ title: 'sentinel 2' }).expect(200);
      const sentinelComment = await restComment(alice, sentinel, 'sentinel comment');
      await http().patch(`/comments/${sentinelComment}`).set(bearer(alice)).send({ body: 'sentinel comment 2' }).expect(200);
      await http().delete(`/comments/${sentinelComment}`).set(bearer(alice)).expect(204);
      await http().delete(`/posts/${sentinel}`).set(bearer(alice)).expect(204);

      expect(await subs.get('postCreated')!.received(1)).toEqual([{ id: sentinel }]);
      expect(await subs.get('postUpdated')!.received(1)).toEqual([{ id: sentinel }]);
      expect(await subs.get('commentCreated')!.received(1)).toEqual([{ id: sentinelComment }]);
      expect(await subs.get('commentUpdated')!.received(1)).toEqual([{ id: sentinelComment }]);
      expect(await subs.get('commentDeleted')!.received(1)).toEqual([sentinelComment]);
      expect(await subs.get('postDeleted')!.received(1)).toEqual([sentinel]);
      expect((await http().get(`/posts/${post}`).expect(200)).body.title).toBe('target');
      expect((await http().get(`/comments/${comment}`).expect(200)).body.body).toBe('target comment');
    });
  });

  describe('authentication on connect', () => {
    it('an anonymous connection may subscribe to public events', async () => {
      const client = await live.connect();
      const sub = await live.subscribe('subscription { postCreated { title } }', undefined, { client });
      await restPost(bob, 'for everyone');
      expect(await sub.received(1)).toEqual([{ title: 'for everyone' }]);
    });

    it('a valid Bearer token in connection_init is accepted, with any case of the scheme', async () => {
      const client = await live.connect({ token: alice });
      const sub = await live.subscribe('subscription { postCreated { title } }', undefined, { client });
      const lower = wsClient(urls.ws, { authorization: `bearer ${bob}` });
      await lower.connected;
      await lower.dispose();
      await restPost(alice, 'for a signed-in subscriber');
      expect(await sub.received(1)).toEqual([{ title: 'for a signed-in subscriber' }]);
    });

    it.each([
      ['a malformed token', 'Bearer x.y.z'],
      ['not a Bearer scheme', 'Basic YWxpY2U6cGFzc3dvcmQ='],
      ['an expired token', () => `Bearer ${signJwt({ sub: String(ALICE_ID), iat: now() - 7200, exp: now() - 3600 })}`],
      ['a token signed with another secret', () => `Bearer ${signJwt({ sub: String(ALICE_ID), iat: now(), exp: now() + 600 }, 'another-secret-another-secret-another')}`],
      ['a token for a user who does not exist', () => `Bearer ${signJwt({ sub: '999999', iat: now(), exp: now() + 600 })}`],
    ])('%s closes the socket with 4403', async (_name, value) => {
      const authorization = typeof value === 'function' ? value() : value;
      const before = await metricValue(app, 'ws_connections');
      const client = wsClient(urls.ws, { authorization });
      const sub = new LiveSubscription(client.client, 'subscription { postCreated { id } }');
      const closed = await client.closed;
      expect(closed.code).toBe(4403);
      await sub.failed();
      expect(sub.results).toEqual([]);
      expect(await metricValue(app, 'ws_connections')).toBe(before);
      await client.dispose();
    });
  });

  describe('over the socket, the same rules as over HTTP', () => {
    it('an invalid document is refused with GRAPHQL_VALIDATION_FAILED, a syntax error with GRAPHQL_PARSE_FAILED', async () => {
      const client = await live.connect();
      const unknownField = new LiveSubscription(client.client, 'subscription { postCreated { nope } }');
      expect(errorCodes(await unknownField.failed())).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      const twoRoots = new LiveSubscription(client.client, 'subscription { postCreated { id } postDeleted }');
      expect(errorCodes(await twoRoots.failed())).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      const badArgument = new LiveSubscription(client.client, 'subscription { postCreated(authorId: "two") { id } }');
      expect(errorCodes(await badArgument.failed())).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      const syntax = new LiveSubscription(client.client, 'subscription { postCreated { id }');
      expect(errorCodes(await syntax.failed())).toEqual(['GRAPHQL_PARSE_FAILED']);
      // The connection survives refused operations.
      const sub = await live.subscribe('subscription { postCreated { id } }', undefined, { client });
      const id = await restPost(alice, 'after refusals');
      expect(await sub.received(1)).toEqual([{ id }]);
    });

    it('an error while resolving an event is coded and masked as over HTTP, and the stream goes on', async () => {
      const post = await restPost(alice, 'resolution fails once');
      const sub = await live.subscribe('subscription($p: Int) { commentCreated(postId: $p) { body post { title } } }', { p: post });
      const spy = vi.spyOn(app.app.get(PostFinder), 'findByIds').mockRejectedValueOnce(new Error('SELECT password_hash FROM users -- at /work/src/x.ts:1:1'));
      try {
        await restComment(bob, post, 'unlucky');
        await until('the failed event', () => sub.results.length === 1);
      } finally {
        spy.mockRestore();
      }
      const [failed] = sub.results;
      expect(failed.data).toBeNull();
      expect(failed.errors).toEqual([{ message: 'Internal server error', path: ['commentCreated', 'post'], locations: expect.any(Array), extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      expect(JSON.stringify(failed)).not.toMatch(/password_hash|SELECT|\/work\//);

      await restComment(bob, post, 'lucky');
      await until('the second event', () => sub.results.length === 2);
      expect(sub.results[1]).toEqual({ data: { commentCreated: { body: 'lucky', post: { title: 'resolution fails once' } } } });
    });

    it('a query over the socket answers with coded errors, like over HTTP', async () => {
      const client = await live.connect({ token: alice });
      const me = new LiveSubscription(client.client, '{ me { id name } }');
      expect(await me.received(1)).toEqual([{ id: ALICE_ID, name: 'Alice Author' }]);
      const bad = new LiveSubscription(client.client, '{ posts(after: "bm9wZQ") { nodes { id } } }');
      await until('the answer', () => bad.results.length === 1);
      expect(bad.results[0].errors?.map((error) => [error.extensions?.code, (error as { path?: unknown }).path])).toEqual([['BAD_USER_INPUT', ['posts']]]);
    });

    it('metrics: ws_connections follows open sockets, subscription_events_total{event} counts deliveries, graphql_operations_total{type} operations', async () => {
      await until('no open sockets from earlier tests', async () => (await metricValue(app, 'ws_connections')) === 0);
      const first = await live.connect();
      const second = await live.connect({ token: bob });
      expect(await metricValue(app, 'ws_connections')).toBe(2);

      const created = await metricValue(app, 'subscription_events_total', { event: 'postCreated' });
      const deleted = await metricValue(app, 'subscription_events_total', { event: 'postDeleted' });
      const subscriptions = await metricValue(app, 'graphql_operations_total', { type: 'subscription' });
      const invalid = await metricValue(app, 'graphql_operations_total', { type: 'invalid' });
      const a = await live.subscribe('subscription { postCreated { id } }', undefined, { client: first });
      const b = await live.subscribe('subscription($a: Int) { postCreated(authorId: $a) { id } }', { a: BOB_ID }, { client: second });
      await new LiveSubscription(first.client, 'subscription { postCreated { nope } }').failed();
      expect(await metricValue(app, 'graphql_operations_total', { type: 'subscription' })).toBe(subscriptions + 2);
      expect(await metricValue(app, 'graphql_operations_total', { type: 'invalid' })).toBe(invalid + 1);
      const id = await restPost(alice, 'counted once'); // only `a` wants it
      const id2 = await restPost(bob, 'counted twice');
      expect(await a.received(2)).toEqual([{ id }, { id: id2 }]);
      expect(await b.received(1)).toEqual([{ id: id2 }]);
      expect(await metricValue(app, 'subscription_events_total', { event: 'postCreated' })).toBe(created + 3);
      expect(await metricValue(app, 'subscription_events_total', { event: 'postDeleted' })).toBe(deleted);

      await second.dispose();
      await until('ws_connections to drop to 1', async () => (await metricValue(app, 'ws_connections')) === 1);
      await first.dispose();
      await until('ws_connections to drop to 0', async () => (await metricValue(app, 'ws_connections')) === 0);
    });
  });
});

describe('subscriptions over graphql-ws: limits and caps', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const live = liveClients(() => app, () => urls);

  beforeAll(async () => {
    app = await startTestApp('sqlite', {
      env: {
        GRAPHQL_MAX_DEPTH: '4',
        GRAPHQL_MAX_COST: '50',
        SUBSCRIPTIONS_MAX_PER_CONNECTION: '2',
        SUBSCRIPTIONS_MAX_CONNECTIONS: '1',
        SUBSCRIPTIONS_KEEPALIVE_MS: '100',
      },
    });
    urls = await listen(app);
  });
  afterEach(() => live.cleanUp());
  afterAll(() => app?.close());

  const create = async (title: string) => {
    const token = await tokenFor(app, ALICE);
    return (await request(app.server).post('/posts').set(bearer(token)).send({ title, body: 'b' }).expect(201)).body.id as number;
  };

  it('a subscription within the limits runs (depth 4)', async () => {
    const sub = await live.subscribe('subscription { commentCreated { post { author { name } } } }');
    const post = await create('limits ok');
    await request(app.server).post(`/posts/${post}/comments`).set(bearer(await tokenFor(app, BOB))).send({ body: 'c' }).expect(201);
    expect(await sub.received(1)).toEqual([{ post: { author: { name: 'Alice Author' } } }]);
  });

  it('a too-deep subscription gets QUERY_TOO_DEEP, counted through fragments', async () => {
    const client = await live.connect();
    const deep = new LiveSubscription(client.client, 'subscription { commentCreated { post { author { posts { title } } } } }');
    const error = await deep.failed();
    expect(errorCodes(error)).toEqual(['QUERY_TOO_DEEP']);
    expect((error as { extensions: Record<string, unknown> }[])[0].extensions).toMatchObject({ depth: 5, maxDepth: 4 });
    const viaFragment = new LiveSubscription(
      client.client,
      'subscription { commentCreated { ...C } } fragment C on Comment { post { author { posts { id } } } }',
    );
    expect(errorCodes(await viaFragment.failed())).toEqual(['QUERY_TOO_DEEP']);
  });

  it('a too-costly subscription gets COST_LIMIT_EXCEEDED, with `first` taken from variables', async () => {
    const client = await live.connect();
    const complex = new LiveSubscription(client.client, 'subscription { postCreated { author { posts(first: 100) { title } } } }');
    expect(errorCodes(await complex.failed())).toEqual(['COST_LIMIT_EXCEEDED']);
    const viaVariables = new LiveSubscription(client.client, 'subscription($n: Int) { postCreated { comments(first: $n) { body } } }', { n: 80 });
    expect(errorCodes(await viaVariables.failed())).toEqual(['COST_LIMIT_EXCEEDED']);
    const cheap = await live.subscribe('subscription($n: Int) { postCreated { title comments(first: $n) { body } } }', { n: 5 }, { client });
    await create('cheap');
    expect(await cheap.received(1)).toEqual([{ title: 'cheap', comments: [] }]);
  });

  it('SUBSCRIPTIONS_MAX_PER_CONNECTION=2: the third operation on a connection is refused with RATE_LIMITED; the first two go on', async () => {
    const client = await live.connect();
    const a = await live.subscribe('subscription { postCreated { id } }', undefined, { client });
    const b = await live.subscribe('subscription { postDeleted }', undefined, { client });
    const third = new LiveSubscription(client.client, 'subscription { postUpdated { id } }');
    expect(errorCodes(await third.failed())).toEqual(['RATE_LIMITED']);

    const id = await create('still live');
    expect(await a.received(1)).toEqual([{ id }]);
    b.dispose();
    await waitForSubscribers(app, 'postDeleted', 0);
    // A slot freed by completing an operation can be used again.
    const again = new LiveSubscription(client.client, 'subscription { postUpdated { id } }');
    await waitForSubscribers(app, 'postUpdated', 1);
    await request(app.server).patch(`/posts/${id}`).set(bearer(await tokenFor(app, ALICE))).send({ title: 'again' }).expect(200);
    expect(await again.received(1)).toEqual([{ id }]);
    again.dispose();
  });

  it('SUBSCRIPTIONS_MAX_CONNECTIONS=1: a second connection is closed with 1013, and admitted once the first is gone', async () => {
    const first = await live.connect();
    const second = wsClient(urls.ws);
    const sub = new LiveSubscription(second.client, 'subscription { postCreated { id } }');
    expect((await second.closed).code).toBe(1013);
    await sub.failed();
    await second.dispose();
    expect(await metricValue(app, 'ws_connections')).toBe(1);

    await first.dispose();
    await until('the slot to be free', async () => (await metricValue(app, 'ws_connections')) === 0);
    const third = await live.connect();
    const live3 = await live.subscribe('subscription { postCreated { id } }', undefined, { client: third });
    const id = await create('third admitted');
    expect(await live3.received(1)).toEqual([{ id }]);
  });
  it('SUBSCRIPTIONS_KEEPALIVE_MS: the server pings; a peer that answers stays, a silent one is cut off', async () => {
    const handshake = async (autoPong: boolean) => {
      const socket = new WebSocket(urls.ws, 'graphql-transport-ws', { autoPong });
      const state = { pings: 0, closed: undefined as number | undefined };
      socket.on('ping', () => (state.pings += 1));
      socket.on('close', (code) => (state.closed = code));
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
        socket.once('message', (data) => (JSON.parse(String(data)).type === 'connection_ack' ? resolve() : reject(new Error(String(data)))));
        socket.once('error', reject);
      });
      return { socket, state };
    };

    const answering = await handshake(true);
    await until('three pings', () => answering.state.pings >= 3);
    expect(answering.state.closed).toBeUndefined();
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    answering.socket.close(1000);
    await until('the socket to close', () => answering.state.closed !== undefined);
    await until('the slot to be free', async () => (await metricValue(app, 'ws_connections')) === 0);

    const silent = await handshake(false);
    await until('the silent peer to be cut off', () => silent.state.closed !== undefined);
    expect(silent.state.pings).toBeGreaterThanOrEqual(1);
    expect(silent.state.closed).toBe(1006); // terminated, no close handshake
    await until('the slot to be free again', async () => (await metricValue(app, 'ws_connections')) === 0);
  });
});

describe('subscriptions over graphql-ws in production: introspection is off', () => {
  let app: TestApp;
  let urls: ListeningApp;
  const live = liveClients(() => app, () => urls);

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { NODE_ENV: 'production' } });
    urls = await listen(app);
  });
  afterEach(() => live.cleanUp());
  afterAll(() => app?.close());

  it('refuses __schema and __type over the socket as over HTTP, and gives no hints', async () => {
    expect(app.config.graphqlIntrospection).toBe(false);
    expect((await graphql(app, '{ __schema { types { name } } }')).body.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const client = await live.connect();
    const schema = new LiveSubscription(client.client, '{ __schema { types { name } } }');
    const codes = errorCodes(await schema.failed());
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set(['GRAPHQL_VALIDATION_FAILED']));
    expect(schema.results).toEqual([]);
    const type = new LiveSubscription(client.client, 'query { __type(name: "Post") { name } }');
    expect(errorCodes(await type.failed())).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(type.results).toEqual([]);
    const hinted = new LiveSubscription(client.client, 'subscription { postCreated { titl } }');
    const hintError = await hinted.failed();
    expect(errorCodes(hintError)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(JSON.stringify(hintError)).not.toMatch(/Did you mean/);

    // __typename stays allowed, and subscriptions work.
    const sub = await live.subscribe('subscription { postCreated { __typename id } }', undefined, { client });
    const token = await tokenFor(app, ALICE);
    const id = (await request(app.server).post('/posts').set(bearer(token)).send({ title: 'prod', body: 'b' }).expect(201)).body.id;
    expect(await sub.received(1)).toEqual([{ __typename: 'Post', id }]);
  });
});
