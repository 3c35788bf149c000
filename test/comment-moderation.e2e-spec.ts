import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS } from '../src/redis/redis.module.js';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { type DatabaseKind, TEST_REDIS_URL } from './support/databases.js';
import { eventsSince, type FeedEvent } from './support/editorial.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { type CommentBody, createPost, createUser, nextLink, parseXml, xmlFields } from './support/resources.js';
import { listen, LiveSubscription, until, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * Comment moderation (CONTRACT §9): the status a comment starts in under each
 * COMMENTS_MODERATION, blocked writers, the flood limit (also across two instances sharing
 * Redis), the queue on every door, status changes one at a time and in bulk (all or nothing),
 * who may moderate, and the events of a change as each reader gets them.
 */

interface Comment extends CommentBody {
  status: string;
}

type Role = 'moderator' | 'editor' | 'admin';

interface Account {
  id: number;
  token: string;
}

/** Settings of a suite: Redis beside PostgreSQL when the run has one. */
function envOf(kind: DatabaseKind, extra: Record<string, string>): Record<string, string> {
  const redis: Record<string, string> =
    kind === 'postgres' && TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `moderation-${process.pid}-${randomBytes(4).toString('hex')}:` } : {};
  return { ...redis, ...extra };
}

/** With REDIS_URL, waits until the app's Redis connection is up (the limiter fails open while it is down). */
async function redisReady(app: TestApp): Promise<void> {
  const redis = app.app.get<Redis | null>(REDIS, { strict: false });
  if (!redis || redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', () => resolve());
    setTimeout(() => reject(new Error(`Redis is not ready (${redis.status})`)), 10_000).unref();
  });
}

/** The helpers every suite here uses, over one app. */
function helpers(app: () => TestApp, kind: DatabaseKind) {
  const http = () => request(app().server);
  const sql = <T>(text: string, params: unknown[] = []) => app().app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  /** A new user, with a role set in the database (the roles API is not this spec's), and a token issued after it. */
  const account = async (role?: Role): Promise<Account> => {
    const user = await createUser(app());
    if (!role) return user;
    await sql('UPDATE users SET role = $1 WHERE id = $2', [role, user.id]);
    const token = await http().post('/tokens').send({ email: user.email, password: user.password }).expect(201);
    return { id: user.id, token: token.body.accessToken as string };
  };
  const comment = (token: string, postId: number, body = 'A comment') => http().post(`/posts/${postId}/comments`).set(bearer(token)).send({ body });
  const write = async (token: string, postId: number, body?: string): Promise<Comment> => {
    const response = await comment(token, postId, body);
    expect(response.status, response.text).toBe(201);
    return response.body as Comment;
  };
  const statusOf = async (id: number) => (await sql<{ status: string }>('SELECT status FROM comments WHERE id = $1', [id]))[0]?.status;
  const gql = (query: string, variables?: Record<string, unknown>, token?: string) => graphql(app(), query, variables, token ? { token } : {});
  return { http, sql, account, comment, write, statusOf, gql };
}

describeEachDatabase('comment moderation', (kind) => {
  describe('COMMENTS_MODERATION=first: the queue, status changes and their events', () => {
    let app: TestApp;
    const { http, sql, account, write, statusOf, gql } = helpers(() => app, kind);
    let admin: string;
    let alice: string;
    let moderator: Account;
    let editor: Account;
    let postId: number;
    const clients: WsClient[] = [];
    let ws = '';

    beforeAll(async () => {
      app = await startTestApp(kind, { env: envOf(kind, { COMMENTS_MODERATION: 'first', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' }) });
      await redisReady(app);
      ws = (await listen(app)).ws;
      [admin, alice] = await Promise.all([tokenFor(app, ADMIN), tokenFor(app, ALICE)]);
      [moderator, editor] = await Promise.all([account('moderator'), account('editor')]);
      postId = (await createPost(app, alice)).id;
    });
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.dispose()));
      await app?.close();
    });

    it("holds a user's comments until one of theirs is approved; moderators, editors and admins are never held", async () => {
      const carol = await account();
      const first = await write(carol.token, postId);
      expect(first.status).toBe('pending');
      expect((await write(carol.token, postId)).status).toBe('pending');
      await http().patch(`/comments/${first.id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);
      expect((await write(carol.token, postId)).status).toBe('approved');
      for (const token of [moderator.token, editor.token, admin]) expect((await write(token, postId)).status).toBe('approved');
      const created = expectData(await gql('mutation($postId: Int!) { createComment(input: { postId: $postId, body: "Hi" }) { id status } }', { postId }, (await account()).token));
      expect(created.createComment.status).toBe('PENDING');
    });

    it('GET /comments?status=pending: oldest first, paged, in every format; only moderators, editors and admins', async () => {
      const dave = await account();
      const held = [await write(dave.token, postId, 'one'), await write(dave.token, postId, 'two'), await write(dave.token, postId, 'three')];
      const heldIds = held.map((c) => c.id);
      const walk = async (accept: string, token: string) => {
        const ids: number[] = [];
        let next: string | null = '/comments?status=pending&limit=2';
        let pages = 0;
        while (next !== null) {
          const response: Response = await http().get(next).set('Accept', accept).set(bearer(token));
          expect(response.status, response.text).toBe(200);
          pages += 1;
          if (accept === 'application/xml') {
            ids.push(...parseXml(response.text).children.filter((child) => child.name !== 'link').map((child) => Number(xmlFields(child).fields.id)));
          } else if (accept === 'application/hal+json') {
            const hal = JSON.parse(response.text) as { _links: { next?: { href: string } }; _embedded: { comments: { id: number; status: string }[] } };
            expect(hal._embedded.comments.every((item) => item.status === 'pending')).toBe(true);
            ids.push(...hal._embedded.comments.map((item) => item.id));
            expect(hal._links.next?.href ?? null).toBe(nextLink(response));
          } else if (accept === 'text/html') {
            expect(response.headers['content-type']).toMatch(/^text\/html/);
            ids.push(...[...response.text.matchAll(/href="\/comments\/(\d+)"/g)].map((match) => Number(match[1])));
          } else {
            expect((response.body as Comment[]).every((item) => item.status === 'pending')).toBe(true);
            ids.push(...(response.body as Comment[]).map((item) => item.id));
          }
          next = nextLink(response);
          if (next) expect(next).toContain('status=pending');
          expect(pages).toBeLessThan(100);
        }
        return ids;
      };
      for (const accept of ['application/json', 'application/hal+json', 'application/xml', 'text/html']) {
        const ids = await walk(accept, moderator.token);
        expect(ids, accept).toEqual([...ids].sort((a, b) => a - b));
        expect(ids, accept).toEqual(expect.arrayContaining(heldIds));
      }
      // Without status: the pending queue.
      const plain = await http().get('/comments').set(bearer(editor.token)).query({ limit: 100 }).expect(200);
      expect((plain.body as Comment[]).map((c) => c.id)).toEqual(expect.arrayContaining(heldIds));
      expectProblem(await http().get('/comments?status=bogus').set(bearer(moderator.token)), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get('/comments?status=pending&limit=0').set(bearer(moderator.token)), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get('/comments?status=pending'), 401, 'UNAUTHENTICATED');
      expectProblem(await http().get('/comments?status=pending').set(bearer(dave.token)), 403, 'FORBIDDEN');
      expectProblem(await http().get('/comments?status=pending').set(bearer(alice)), 403, 'FORBIDDEN');

      // The other statuses.
      await http().patch(`/comments/${held[0].id}`).set(bearer(moderator.token)).send({ status: 'spam' }).expect(200);
      await http().patch(`/comments/${held[1].id}`).set(bearer(moderator.token)).send({ status: 'hidden' }).expect(200);
      const spam = await http().get('/comments?status=spam&limit=100').set(bearer(admin)).expect(200);
      expect((spam.body as Comment[]).map((c) => c.id)).toContain(held[0].id);
      expect((spam.body as Comment[]).every((c) => c.status === 'spam')).toBe(true);
      const hidden = await http().get('/comments?status=hidden&limit=100').set(bearer(admin)).expect(200);
      expect((hidden.body as Comment[]).map((c) => c.id)).toEqual([held[1].id]);
      const approved = await http().get('/comments?status=approved&limit=100').set(bearer(admin)).expect(200);
      expect((approved.body as Comment[]).every((c) => c.status === 'approved')).toBe(true);
      expect((approved.body as Comment[]).length).toBeGreaterThan(0);
    });

    it('the queue leaves out comments on posts the moderator may not see (a moderator: not on drafts; an editor: all)', async () => {
      const erin = await account();
      const draft = await createPost(app, erin.token, { status: 'draft' });
      const onDraft = await write(erin.token, draft.id);
      expect(onDraft.status).toBe('pending');
      const queue = async (token: string) => {
        const response = await http().get('/comments?status=pending&limit=100').set(bearer(token)).expect(200);
        return (response.body as Comment[]).map((c) => c.id);
      };
      expect(await queue(moderator.token)).not.toContain(onDraft.id);
      expect(await queue(editor.token)).toContain(onDraft.id);
      const moderatorCount = expectData(await gql('{ comments(status: PENDING) { totalCount } }', undefined, moderator.token)).comments.totalCount;
      const editorCount = expectData(await gql('{ comments(status: PENDING) { totalCount } }', undefined, editor.token)).comments.totalCount;
      expect(editorCount).toBeGreaterThan(moderatorCount);
      // Nor may the moderator change it: 404, as for a comment that is not there.
      expectProblem(await http().patch(`/comments/${onDraft.id}`).set(bearer(moderator.token)).send({ status: 'approved' }), 404, 'NOT_FOUND');
      expectProblem(await http().patch('/comments').set(bearer(moderator.token)).send([{ id: onDraft.id, status: 'approved' }]), 404, 'NOT_FOUND');
      expect(await statusOf(onDraft.id)).toBe('pending');
    });

    it('GraphQL comments(status, first, after): a connection with totalCount, oldest first; FORBIDDEN / UNAUTHENTICATED for others', async () => {
      const frank = await account();
      const mine = [await write(frank.token, postId), await write(frank.token, postId)];
      const QUEUE = 'query($after: String) { comments(status: PENDING, first: 1, after: $after) { totalCount edges { cursor node { id status authorId } } nodes { id } pageInfo { hasNextPage hasPreviousPage endCursor } } }';
      const ids: number[] = [];
      let after: string | null = null;
      let total = -1;
      for (let pages = 0; pages < 100; pages += 1) {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const data: any = expectData(await gql(QUEUE, { after }, moderator.token)).comments;
        total = data.totalCount;
        expect(data.pageInfo.hasPreviousPage).toBe(pages > 0);
        expect(data.edges.length).toBeLessThanOrEqual(1);
        for (const edge of data.edges) {
          expect(edge.node.status).toBe('PENDING');
          ids.push(edge.node.id);
        }
        if (!data.pageInfo.hasNextPage) break;
        after = data.pageInfo.endCursor;
      }
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(ids).toEqual(expect.arrayContaining(mine.map((c) => c.id)));
      expect(ids.length).toBe(total);
      expectError(await gql('{ comments(status: PENDING) { totalCount } }', undefined, frank.token), 'FORBIDDEN', ['comments']);
      expectError(await gql('{ comments(status: PENDING) { totalCount } }'), 'UNAUTHENTICATED', ['comments']);
      expectError(await gql('{ comments(status: PENDING, first: 0) { totalCount } }', undefined, moderator.token), 'BAD_USER_INPUT', ['comments']);
      // Without status: the pending queue.
      const plain = expectData(await gql('{ comments(first: 100) { nodes { id status } } }', undefined, editor.token)).comments.nodes;
      expect(plain.every((node: { status: string }) => node.status === 'PENDING')).toBe(true);
    });

    it('PATCH /comments/{id} {status}: moderators, editors and admins; the author keeps the text; If-Match and ETag as ever', async () => {
      const gina = await account();
      const held = await write(gina.token, postId, 'first text');
      // The author may not change the status, not even of their own comment; they may change the text.
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(gina.token)).send({ status: 'approved' }), 403, 'FORBIDDEN');
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(gina.token)).send({ status: 'approved', body: 'x' }), 403, 'FORBIDDEN');
      const edited = await http().patch(`/comments/${held.id}`).set(bearer(gina.token)).send({ body: 'second text' }).expect(200);
      expect(edited.body).toMatchObject({ body: 'second text', status: 'pending' });
      // A moderator may change the status but not someone else's text.
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).send({ body: 'moderated' }), 403, 'FORBIDDEN');
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).send({}), 400, 'BAD_USER_INPUT');
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).send({ status: 'gone' }), 400, 'BAD_USER_INPUT');
      expectProblem(await http().patch(`/comments/${held.id}`).send({ status: 'approved' }), 401, 'UNAUTHENTICATED');
      // Another user does not see a pending comment: 404.
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer((await account()).token)).send({ body: 'x' }), 404, 'NOT_FOUND');
      const etag = edited.headers.etag as string;
      expect(etag).toBeTruthy();
      const approved = await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).set('If-Match', etag).send({ status: 'approved' }).expect(200);
      expect(approved.body).toMatchObject({ id: held.id, status: 'approved', body: 'second text' });
      expect(approved.headers.etag).not.toBe(etag);
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(editor.token)).set('If-Match', etag).send({ status: 'spam' }), 412, 'PRECONDITION_FAILED');
      expect(await statusOf(held.id)).toBe('approved');
      for (const token of [editor.token, admin]) {
        await http().patch(`/comments/${held.id}`).set(bearer(token)).send({ status: 'hidden' }).expect(200);
        await http().patch(`/comments/${held.id}`).set(bearer(token)).send({ status: 'approved' }).expect(200);
      }
      // GraphQL updateComment takes the status too, under the same rule.
      expectError(await gql('mutation($id: Int!) { updateComment(id: $id, input: { status: SPAM }) { id } }', { id: held.id }, gina.token), 'FORBIDDEN', ['updateComment']);
      const spam = expectData(await gql('mutation($id: Int!) { updateComment(id: $id, input: { status: SPAM }) { id status } }', { id: held.id }, moderator.token));
      expect(spam.updateComment).toEqual({ id: held.id, status: 'SPAM' });
    });

    it('PATCH /comments [{id, status}, …]: 1-100 items, all or nothing in one transaction', async () => {
      const hank = await account();
      const held = [await write(hank.token, postId), await write(hank.token, postId), await write(hank.token, postId)];
      const versions = async () => sql<{ id: number; status: string; version: number }>(`SELECT id, status, version FROM comments WHERE id IN (${held.map((c) => c.id).join(', ')}) ORDER BY id`);
      const before = await versions();
      const patch = (body: unknown, token = moderator.token) => http().patch('/comments').set(bearer(token)).send(body as object);
      // Refused as a whole: nothing changes.
      expectProblem(await patch([{ id: held[0].id, status: 'approved' }, { id: 2_000_000_000, status: 'approved' }]), 404, 'NOT_FOUND');
      expectProblem(await patch([{ id: held[0].id, status: 'approved' }, { id: held[0].id, status: 'spam' }]), 400, 'BAD_USER_INPUT');
      expectProblem(await patch([]), 400, 'BAD_USER_INPUT');
      expectProblem(await patch(Array.from({ length: 101 }, (_, index) => ({ id: index + 1, status: 'approved' }))), 400, 'BAD_USER_INPUT');
      expectProblem(await patch({ id: held[0].id, status: 'approved' }), 400, 'BAD_USER_INPUT');
      expectProblem(await patch([{ id: held[0].id, status: 'maybe' }]), 400, 'BAD_USER_INPUT');
      expectProblem(await patch([{ id: 'one', status: 'approved' }]), 400, 'BAD_USER_INPUT');
      expectProblem(await patch([{ id: held[0].id, status: 'approved', body: 'x' }]), 400, 'BAD_USER_INPUT');
      expectProblem(await patch([{ id: held[0].id, status: 'approved' }], hank.token), 403, 'FORBIDDEN');
      expectProblem(await http().patch('/comments').send([{ id: held[0].id, status: 'approved' }]), 401, 'UNAUTHENTICATED');
      expect(await versions()).toEqual(before);
      // Accepted: each in its new status, in the order given.
      const response = await patch([
        { id: held[2].id, status: 'approved' },
        { id: held[0].id, status: 'spam' },
        { id: held[1].id, status: 'approved' },
      ]);
      expect(response.status, response.text).toBe(200);
      expect((response.body as Comment[]).map((c) => [c.id, c.status])).toEqual([
        [held[2].id, 'approved'],
        [held[0].id, 'spam'],
        [held[1].id, 'approved'],
      ]);
      expect((await versions()).map((row) => row.status)).toEqual(['spam', 'approved', 'approved']);
      // 100 at once is allowed (the ones already in that status come back unchanged).
      const hundred = [...held.map((c) => c.id), ...(await Promise.all(Array.from({ length: 3 }, () => write(hank.token, postId)))).map((c) => c.id)];
      const ok = await patch(hundred.map((id) => ({ id, status: 'hidden' })), admin);
      expect(ok.status, ok.text).toBe(200);
      expect((ok.body as Comment[]).every((c) => c.status === 'hidden')).toBe(true);
      const many = (await sql<{ id: number }>('SELECT id FROM comments ORDER BY id LIMIT 100')).map((row) => Number(row.id));
      if (many.length === 100) {
        const all = await patch(many.map((id) => ({ id, status: 'approved' })), admin);
        expect(all.status, all.text).toBe(200);
        expect((all.body as Comment[]).length).toBe(100);
      }
    });

    it('moderateComments(ids, status): the same rules over GraphQL', async () => {
      const ivy = await account();
      const held = [await write(ivy.token, postId), await write(ivy.token, postId)];
      const MODERATE = 'mutation($ids: [Int!]!, $status: CommentStatus!) { moderateComments(ids: $ids, status: $status) { id status } }';
      const ids = held.map((c) => c.id);
      expectError(await gql(MODERATE, { ids: [...ids, 2_000_000_000], status: 'APPROVED' }, moderator.token), 'NOT_FOUND', ['moderateComments']);
      expectError(await gql(MODERATE, { ids: [ids[0], ids[0]], status: 'APPROVED' }, moderator.token), 'BAD_USER_INPUT', ['moderateComments']);
      expectError(await gql(MODERATE, { ids: [], status: 'APPROVED' }, moderator.token), 'BAD_USER_INPUT', ['moderateComments']);
      expectError(await gql(MODERATE, { ids: Array.from({ length: 101 }, (_, index) => index + 1), status: 'APPROVED' }, moderator.token), 'BAD_USER_INPUT', ['moderateComments']);
      expectError(await gql(MODERATE, { ids, status: 'APPROVED' }, ivy.token), 'FORBIDDEN', ['moderateComments']);
      expectError(await gql(MODERATE, { ids, status: 'APPROVED' }), 'UNAUTHENTICATED', ['moderateComments']);
      expect([await statusOf(ids[0]), await statusOf(ids[1])]).toEqual(['pending', 'pending']);
      const data = expectData(await gql(MODERATE, { ids: [ids[1], ids[0]], status: 'APPROVED' }, editor.token));
      expect(data.moderateComments).toEqual([
        { id: ids[1], status: 'APPROVED' },
        { id: ids[0], status: 'APPROVED' },
      ]);
    });

    it('an API key needs the write scope to moderate and to read the queue (a read key reads what anyone may: no held comment)', async () => {
      const key = async (scopes: string[]) => {
        const response = await http().post(`/users/${moderator.id}/api-keys`).set(bearer(moderator.token)).send({ name: `k-${scopes.join('-')}`, scopes });
        expect(response.status, response.text).toBe(201);
        return (response.body as { key: string }).key;
      };
      const readKey = await key(['read']);
      const writeKey = await key(['read', 'write']);
      const jay = await account();
      const held = await write(jay.token, postId);
      const queue = await http().get('/comments?status=pending').set(bearer(readKey));
      expectProblem(queue, 403, 'INSUFFICIENT_SCOPE');
      expect(queue.text).not.toContain(held.body);
      expectError(await gql('{ comments(status: PENDING, first: 10) { totalCount nodes { id body } } }', undefined, readKey), 'INSUFFICIENT_SCOPE', ['comments']);
      expectProblem(await http().get(`/comments/${held.id}`).set(bearer(readKey)), 404, 'NOT_FOUND');
      expect((await http().get('/comments?status=pending').set(bearer(writeKey)).expect(200)).body.map((comment: { id: number }) => comment.id)).toContain(held.id);
      expectProblem(await http().patch(`/comments/${held.id}`).set(bearer(readKey)).send({ status: 'approved' }), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await http().patch('/comments').set(bearer(readKey)).send([{ id: held.id, status: 'approved' }]), 403, 'INSUFFICIENT_SCOPE');
      await http().patch('/comments').set(bearer(writeKey)).send([{ id: held.id, status: 'approved' }]).expect(200);
    });

    it('a blocked writer gets 403 COMMENTS_BLOCKED on REST and GraphQL', async () => {
      const kim = await account();
      await write(kim.token, postId);
      await sql('UPDATE users SET comments_blocked = TRUE WHERE id = $1', [kim.id]);
      const count = async () => Number((await sql<{ count: number | string }>('SELECT COUNT(*) AS count FROM comments WHERE author_id = $1', [kim.id]))[0].count);
      const before = await count();
      expectProblem(await http().post(`/posts/${postId}/comments`).set(bearer(kim.token)).send({ body: 'again' }), 403, 'COMMENTS_BLOCKED');
      expectError(await gql('mutation($postId: Int!) { createComment(input: { postId: $postId, body: "again" }) { id } }', { postId }, kim.token), 'COMMENTS_BLOCKED', ['createComment']);
      expect(await count()).toBe(before);
      await sql('UPDATE users SET comments_blocked = FALSE WHERE id = $1', [kim.id]);
      await write(kim.token, postId);
    });

    it("a blocked writer's edits are 403 COMMENTS_BLOCKED too, REST and GraphQL; the text stays as it was", async () => {
      const kit = await account();
      const own = await write(kit.token, postId, 'My first words');
      await http().patch(`/comments/${own.id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);
      await sql('UPDATE users SET comments_blocked = TRUE WHERE id = $1', [kit.id]);
      expectProblem(await http().patch(`/comments/${own.id}`).set(bearer(kit.token)).send({ body: 'Abuse' }), 403, 'COMMENTS_BLOCKED');
      expectError(await gql('mutation($id: Int!) { updateComment(id: $id, input: { body: "Abuse" }) { id } }', { id: own.id }, kit.token), 'COMMENTS_BLOCKED', ['updateComment']);
      expect((await sql<{ body: string; status: string }>('SELECT body, status FROM comments WHERE id = $1', [own.id]))[0]).toEqual({ body: 'My first words', status: 'approved' });
      // Others' comments are refused as ever (404 for one the writer may not see comes first).
      expectProblem(await http().patch('/comments/999999').set(bearer(kit.token)).send({ body: 'Abuse' }), 404, 'NOT_FOUND');
      await sql('UPDATE users SET comments_blocked = FALSE WHERE id = $1', [kit.id]);
      const edited = await http().patch(`/comments/${own.id}`).set(bearer(kit.token)).send({ body: 'Kind words' });
      expect(edited.status, edited.text).toBe(200);
      // Under `first` a writer with an approved comment is not held: the edit stays approved.
      expect(edited.body).toMatchObject({ body: 'Kind words', status: 'approved' });
    });

    describe('events of a held comment, per reader', () => {
      const byComment = (events: FeedEvent[], id: number) => events.filter((event) => event.commentId === id).map((event) => event.type);

      it('pending: only its author and moderators hear of it; approved: the public gets COMMENT_CREATED, those who saw it COMMENT_UPDATED', async () => {
        const lee = await account();
        const stranger = await account();
        const start = (await eventsSince(app, admin)).at(-1)?.cursor;
        const feed = async (token?: string) => eventsSince(app, token, start);

        const held = await write(lee.token, postId);
        expect(byComment(await feed(), held.id)).toEqual([]);
        expect(byComment(await feed(stranger.token), held.id)).toEqual([]);
        expect(byComment(await feed(lee.token), held.id)).toEqual(['COMMENT_CREATED']);
        expect(byComment(await feed(moderator.token), held.id)).toEqual(['COMMENT_CREATED']);
        expect(byComment(await feed(admin), held.id)).toEqual(['COMMENT_CREATED']);

        await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);
        expect(byComment(await feed(), held.id)).toEqual(['COMMENT_CREATED']);
        expect(byComment(await feed(stranger.token), held.id)).toEqual(['COMMENT_CREATED']);
        expect(byComment(await feed(lee.token), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED']);
        expect(byComment(await feed(moderator.token), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED']);
        const publicCreated = (await feed()).find((event) => event.commentId === held.id)!;
        expect(publicCreated.resource).toMatchObject({ id: held.id, status: 'approved' });

        // Marked as spam: gone for the public and the author (COMMENT_DELETED), an update for moderators.
        await http().patch('/comments').set(bearer(moderator.token)).send([{ id: held.id, status: 'spam' }]).expect(200);
        expect(byComment(await feed(), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_DELETED']);
        expect(byComment(await feed(lee.token), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED']);
        expect(byComment(await feed(moderator.token), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_UPDATED']);
      });

      it('deleting a held comment: 404 for those who do not see it; its COMMENT_DELETED only to those who saw it', async () => {
        const olga = await account();
        const stranger = await account();
        const start = (await eventsSince(app, admin)).at(-1)?.cursor;
        const held = await write(olga.token, postId);
        expectProblem(await http().delete(`/comments/${held.id}`).set(bearer(stranger.token)), 404, 'NOT_FOUND');
        await http().delete(`/comments/${held.id}`).set(bearer(olga.token)).expect(204);
        expect(byComment(await eventsSince(app, undefined, start), held.id)).toEqual([]);
        expect(byComment(await eventsSince(app, stranger.token, start), held.id)).toEqual([]);
        expect(byComment(await eventsSince(app, olga.token, start), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_DELETED']);
        expect(byComment(await eventsSince(app, moderator.token, start), held.id)).toEqual(['COMMENT_CREATED', 'COMMENT_DELETED']);
      });

      it('a webhook (an anonymous reader) is never sent a held comment; it is sent its approval as COMMENT_CREATED', async () => {
        const receiver = await new Receiver().start();
        try {
          const hook = await http().post('/webhooks').set(bearer(admin)).send({ url: receiver.url(), types: ['COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED'] });
          expect(hook.status, hook.text).toBe(201);
          const nia = await account();
          const held = await write(nia.token, postId);
          const marker = await write(admin, postId, 'after the held one');
          await until('the marker delivered', () => receiver.payloads().some((payload) => payload.data.commentId === marker.id));
          expect(receiver.payloads().filter((payload) => payload.data.commentId === held.id)).toEqual([]);
          await http().patch(`/comments/${held.id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);
          await until('the approval delivered', () => receiver.payloads().some((payload) => payload.data.commentId === held.id));
          const marker2 = await write(admin, postId, 'after the approval');
          await until('the second marker delivered', () => receiver.payloads().some((payload) => payload.data.commentId === marker2.id));
          expect(receiver.payloads().filter((payload) => payload.data.commentId === held.id).map((payload) => payload.type)).toEqual(['COMMENT_CREATED']);
          await http().delete(`/webhooks/${(hook.body as { id: number }).id}`).set(bearer(admin)).expect(204);
        } finally {
          await receiver.stop();
        }
      });

      it('a live commentCreated subscription: anonymous hears of a held comment only at its approval; a moderator at its creation', async () => {
        const max = await account();
        const anonymousWs = wsClient(ws);
        const moderatorWs = wsClient(ws, { token: moderator.token });
        clients.push(anonymousWs, moderatorWs);
        await Promise.all([anonymousWs.connected, moderatorWs.connected]);
        const SUBSCRIPTION = 'subscription($postId: Int) { commentCreated(postId: $postId) { id status } }';
        const anonymous = new LiveSubscription(anonymousWs.client, SUBSCRIPTION, { postId });
        const moderating = new LiveSubscription(moderatorWs.client, SUBSCRIPTION, { postId });
        const updates = new LiveSubscription(moderatorWs.client, 'subscription($postId: Int) { commentUpdated(postId: $postId) { id status } }', { postId });
        await waitForSubscribers(app, 'commentCreated', 2);
        await waitForSubscribers(app, 'commentUpdated', 1);

        const held = await write(max.token, postId);
        expect(await moderating.received(1)).toEqual([{ id: held.id, status: 'PENDING' }]);
        await http().patch(`/comments/${held.id}`).set(bearer(editor.token)).send({ status: 'approved' }).expect(200);
        expect(await anonymous.received(1)).toEqual([{ id: held.id, status: 'APPROVED' }]);
        expect(await updates.received(1)).toEqual([{ id: held.id, status: 'APPROVED' }]);
        // A later public comment: the anonymous subscriber's second event, the moderator's second creation (no creation of the approval between).
        const later = await write(editor.token, postId);
        await until('the later comment on both', () => anonymous.results.length >= 2 && moderating.results.length >= 2);
        expect(anonymous.values).toEqual([{ id: held.id, status: 'APPROVED' }, { id: later.id, status: 'APPROVED' }]);
        expect(moderating.values).toEqual([{ id: held.id, status: 'PENDING' }, { id: later.id, status: 'APPROVED' }]);
        for (const subscription of [anonymous, moderating, updates]) subscription.dispose();
      });
    });
  });

  describe('COMMENTS_MODERATION=all', () => {
    const app = useApp(kind, { env: envOf(kind, { COMMENTS_MODERATION: 'all' }), signIn: [] });
    const { account, write, http, gql } = helpers(() => app, kind);

    it('holds every comment, even of a writer with approved ones, but none of moderators, editors and admins', async () => {
      const [moderator, editor, author] = await Promise.all([account('moderator'), account('editor'), account()]);
      const admin = await tokenFor(app, ADMIN);
      const postId = (await createPost(app, author.token)).id;
      const first = await write(author.token, postId);
      expect(first.status).toBe('pending');
      await http().patch(`/comments/${first.id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);
      expect((await write(author.token, postId)).status).toBe('pending');
      for (const token of [moderator.token, editor.token, admin]) expect((await write(token, postId)).status).toBe('approved');
    });

    it('moderation covers edits: a new text of an approved comment goes back to pending (REST and GraphQL), with the events of a moderation to pending; a moderator’s edit does not', async () => {
      const [moderator, author, stranger] = await Promise.all([account('moderator'), account(), account()]);
      const admin = await tokenFor(app, ADMIN);
      const postId = (await createPost(app, author.token)).id;
      const byComment = (events: FeedEvent[], id: number) => events.filter((event) => event.commentId === id).map((event) => event.type);
      const approve = (id: number) => http().patch(`/comments/${id}`).set(bearer(moderator.token)).send({ status: 'approved' }).expect(200);

      for (const door of ['REST', 'GraphQL'] as const) {
        const comment = await write(author.token, postId, `Fine words (${door})`);
        const abuse = `Abuse by ${door}`;
        await approve(comment.id);
        // The approval's last event is the public COMMENT_CREATED (after the COMMENT_UPDATED of those who saw it pending).
        const start = (await eventsSince(app, undefined)).at(-1)?.cursor;
        if (door === 'REST') {
          const edited = await http().patch(`/comments/${comment.id}`).set(bearer(author.token)).send({ body: abuse });
          expect(edited.status, edited.text).toBe(200);
          expect(edited.body).toMatchObject({ body: abuse, status: 'pending' });
        } else {
          const edited = expectData(await gql('mutation($id: Int!, $body: String!) { updateComment(id: $id, input: { body: $body }) { body status } }', { id: comment.id, body: abuse }, author.token));
          expect(edited.updateComment).toEqual({ body: abuse, status: 'PENDING' });
        }
        // Out of the public view at once, on every door.
        expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
        expectProblem(await http().get(`/comments/${comment.id}`).set(bearer(stranger.token)), 404, 'NOT_FOUND');
        const listed = await http().get(`/posts/${postId}/comments`).expect(200);
        expect((listed.body as { id: number }[]).map((each) => each.id), door).not.toContain(comment.id);
        expect(listed.text).not.toContain(abuse);
        expect(expectData(await gql('query($id: Int!) { comment(id: $id) { id } }', { id: comment.id })).comment, door).toBeNull();
        expect((await http().get(`/comments/${comment.id}`).set(bearer(author.token)).expect(200)).body).toMatchObject({ body: abuse, status: 'pending' });
        // The events of approved → pending: the public a COMMENT_DELETED (ids only), its author and moderators a COMMENT_UPDATED.
        const publicFeed = await eventsSince(app, undefined, start);
        expect(byComment(publicFeed, comment.id), door).toEqual(['COMMENT_DELETED']);
        expect(JSON.stringify(publicFeed)).not.toContain(abuse);
        expect(byComment(await eventsSince(app, stranger.token, start), comment.id), door).toEqual(['COMMENT_DELETED']);
        for (const token of [author.token, moderator.token, admin]) expect(byComment(await eventsSince(app, token, start), comment.id), door).toEqual(['COMMENT_UPDATED']);
        // Approved again, it is back for everyone (COMMENT_CREATED for the public).
        await approve(comment.id);
        expect(byComment(await eventsSince(app, undefined, start), comment.id), door).toEqual(['COMMENT_DELETED', 'COMMENT_CREATED']);
      }

      // A pending comment stays pending; a moderator's or an admin's edit of an approved one stays approved.
      const held = await write(author.token, postId, 'Held');
      expect((await http().patch(`/comments/${held.id}`).set(bearer(author.token)).send({ body: 'Held, edited' }).expect(200)).body.status).toBe('pending');
      const own = await write(moderator.token, postId, 'By a moderator');
      expect((await http().patch(`/comments/${own.id}`).set(bearer(moderator.token)).send({ body: 'By a moderator, edited' }).expect(200)).body.status).toBe('approved');
      const other = await write(author.token, postId, 'To be fixed');
      await approve(other.id);
      expect((await http().patch(`/comments/${other.id}`).set(bearer(admin)).send({ body: 'Fixed by an admin' }).expect(200)).body.status).toBe('approved');
    });
  });

  describe('COMMENTS_MODERATION=off and the flood limit', () => {
    let app: TestApp;
    const { account, comment, write, sql, gql } = helpers(() => app, kind);

    beforeAll(async () => {
      app = await startTestApp(kind, { env: envOf(kind, { COMMENTS_MODERATION: 'off', RATE_LIMIT_COMMENTS_MAX: '3' }) });
      await redisReady(app);
    });
    afterAll(() => app?.close());

    it('approves at once; RATE_LIMIT_COMMENTS_MAX comments per user per minute, then 429 with Retry-After (REST and GraphQL)', async () => {
      const [writer, other] = await Promise.all([account(), account()]);
      const postId = (await createPost(app, writer.token)).id;
      for (let index = 0; index < 3; index += 1) expect((await write(writer.token, postId)).status).toBe('approved');
      const refused = await comment(writer.token, postId);
      expectProblem(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      const viaGraphql = await gql('mutation($postId: Int!) { createComment(input: { postId: $postId, body: "more" }) { id } }', { postId }, writer.token);
      expectError(viaGraphql, 'RATE_LIMITED', ['createComment']);
      const count = await sql<{ count: number | string }>('SELECT COUNT(*) AS count FROM comments WHERE author_id = $1', [writer.id]);
      expect(Number(count[0].count)).toBe(3);
      // Another user is not held back.
      await write(other.token, postId);
    });

    it('counts every attempt, refused ones included (a blocked writer cannot flood either)', async () => {
      const writer = await account();
      const postId = (await createPost(app, writer.token)).id;
      await sql('UPDATE users SET comments_blocked = TRUE WHERE id = $1', [writer.id]);
      for (let index = 0; index < 3; index += 1) expectProblem(await comment(writer.token, postId), 403, 'COMMENTS_BLOCKED');
      expectProblem(await comment(writer.token, postId), 429, 'RATE_LIMITED');
    });
  });
});

if (TEST_REDIS_URL) {
  describe('the comment flood limit across two instances sharing Redis', () => {
    let first: TestApp;
    let second: TestApp;
    beforeAll(async () => {
      const env = { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: `moderation-two-${process.pid}-${randomBytes(4).toString('hex')}:`, RATE_LIMIT_COMMENTS_MAX: '3' };
      [first, second] = await Promise.all([startTestApp('sqlite', { env }), startTestApp('sqlite', { env })]);
      await Promise.all([redisReady(first), redisReady(second)]);
    });
    afterAll(async () => {
      await Promise.all([first?.close(), second?.close()]);
    });

    it('3 comments of one user spread over both instances use up the limit on each', async () => {
      // The same seeded user (alice) on both databases: one key in Redis.
      const [onFirst, onSecond] = await Promise.all([tokenFor(first, ALICE), tokenFor(second, ALICE)]);
      const [postOnFirst, postOnSecond] = await Promise.all([createPost(first, onFirst), createPost(second, onSecond)]);
      const comment = (app: TestApp, token: string, postId: number) => request(app.server).post(`/posts/${postId}/comments`).set(bearer(token)).send({ body: 'flood' });
      expect((await comment(first, onFirst, postOnFirst.id)).status).toBe(201);
      expect((await comment(second, onSecond, postOnSecond.id)).status).toBe(201);
      expect((await comment(first, onFirst, postOnFirst.id)).status).toBe(201);
      expectProblem(await comment(second, onSecond, postOnSecond.id), 429, 'RATE_LIMITED');
      expectProblem(await comment(first, onFirst, postOnFirst.id), 429, 'RATE_LIMITED');
    });
  });
} else {
  describe.skip('the comment flood limit across two instances sharing Redis (skipped: TEST_REDIS_URL is not set)', () => {
    it('runs with TEST_REDIS_URL', () => undefined);
  });
}
