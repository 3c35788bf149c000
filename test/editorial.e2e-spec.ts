import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostScheduler } from '../src/posts/post-scheduler.js';
import { TrashRetention } from '../src/posts/trash-retention.js';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql, metricValue, relayQuiet } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, ISO, nextLink, type PostBody } from './support/resources.js';
import { describeEachDatabase, startTestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * The editorial life of a post (CONTRACT §7) as the core builds it: states and their rules, the
 * read policy on the REST and GraphQL doors, revisions, the trash and its retention, the
 * schedule (once across instances), and the response cache. The full visibility matrix over
 * every door (subscriptions, the event feed, webhooks) is in its own specs.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface EventRow {
  type: string;
  audience: string;
  audience_owner: number | string | null;
}

describeEachDatabase('editorial life of a post', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);
  const gql = (query: string, variables?: Record<string, unknown>, token?: string) => graphql(app, query, variables, token ? { token } : {});
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  const eventsOf = async (postId: number) =>
    (await sql<EventRow>('SELECT type, audience, audience_owner FROM events WHERE post_id = $1 AND comment_id IS NULL ORDER BY id', [postId])).map((row) => ({
      type: row.type,
      audience: row.audience,
      owner: row.audience_owner === null ? null : Number(row.audience_owner),
    }));
  const ids = (body: PostBody[]) => body.map((post) => post.id);
  const readers = () => ({ anonymous: undefined, bob: app.tokens.bob, alice: app.tokens.alice, admin: app.tokens.admin });

  describe('states', () => {
    it('a post without status is published at once; a draft is not', async () => {
      const published = await createPost(app, app.tokens.alice);
      expect(published).toMatchObject({ status: 'published', publishAt: null, publishedAt: expect.stringMatching(ISO), trashedAt: null });
      const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
      expect(draft).toMatchObject({ status: 'draft', publishAt: null, publishedAt: null, trashedAt: null });
    });

    it('400 for a schedule without a future publishAt, publishAt with another status, "trashed", or an unknown status', async () => {
      const past = new Date(Date.now() - HOUR).toISOString();
      const future = new Date(Date.now() + HOUR).toISOString();
      for (const body of [
        { status: 'scheduled' },
        { status: 'scheduled', publishAt: past },
        { status: 'draft', publishAt: future },
        { publishAt: future },
        { status: 'trashed' },
        { status: 'hidden' },
        { status: 'scheduled', publishAt: 'tomorrow' },
      ]) {
        expectProblem(await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'T', body: 'B', ...body }), 400, 'BAD_USER_INPUT');
      }
      const post = await createPost(app, app.tokens.alice, { status: 'draft' });
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'trashed' }), 400, 'BAD_USER_INPUT');
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ publishAt: future }), 400, 'BAD_USER_INPUT');
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ revision: 99 }), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get('/posts?status=hidden').set(bearer(app.tokens.alice)), 400, 'BAD_USER_INPUT');
      expectError(await gql('mutation { createPost(input: { title: "T", body: "B", status: TRASHED }) { id } }', undefined, app.tokens.alice), 'BAD_USER_INPUT', ['createPost']);
    });

    it('publishing sets publishedAt once, comes first in the public list, and records POST_PUBLISHED; unpublishing POST_UNPUBLISHED', async () => {
      const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
      const published = (await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200)).body as PostBody & { publishedAt: string };
      expect(published.publishedAt).toMatch(ISO);
      expect(ids((await http().get('/posts?limit=1').expect(200)).body)).toEqual([draft.id]);
      await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'draft' }).expect(200);
      expect(ids((await http().get('/posts?limit=100').expect(200)).body)).not.toContain(draft.id);
      const again = (await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200)).body;
      expect(again.publishedAt).toBe(published.publishedAt);
      expect(await eventsOf(draft.id)).toEqual([
        { type: 'POST_CREATED', audience: 'restricted', owner: 2 },
        { type: 'POST_PUBLISHED', audience: 'public', owner: null },
        { type: 'POST_UPDATED', audience: 'restricted', owner: 2 },
        { type: 'POST_UNPUBLISHED', audience: 'public', owner: null },
        { type: 'POST_PUBLISHED', audience: 'public', owner: null },
      ]);
    });
  });

  describe('the read policy: a draft is seen by its author and admins only, on every REST and GraphQL door', () => {
    let draft: PostBody;
    let comment: { id: number };

    beforeAll(async () => {
      draft = await createPost(app, app.tokens.alice, { status: 'draft' });
      comment = await createComment(app, app.tokens.alice, draft.id);
    });

    it('items: 404 (never 403) in every format, null in GraphQL, for anyone else', async () => {
      for (const [who, token] of Object.entries(readers())) {
        const sees = who === 'alice' || who === 'admin';
        for (const accept of ['application/json', 'application/hal+json', 'application/xml', 'text/html']) {
          const get = http().get(`/posts/${draft.id}`).set('Accept', accept);
          expect((await (token ? get.set(bearer(token)) : get)).status, `${who} ${accept}`).toBe(sees ? 200 : 404);
        }
        const data = expectData(await gql('query($id: Int!, $c: Int!) { post(id: $id) { id } comment(id: $c) { id post { id } } }', { id: draft.id, c: comment.id }, token));
        expect(data, who).toEqual(sees ? { post: { id: draft.id }, comment: { id: comment.id, post: { id: draft.id } } } : { post: null, comment: null });
        const comments = http().get(`/posts/${draft.id}/comments`);
        expect((await (token ? comments.set(bearer(token)) : comments)).status, who).toBe(sees ? 200 : 404);
        const one = http().get(`/comments/${comment.id}`);
        expect((await (token ? one.set(bearer(token)) : one)).status, who).toBe(sees ? 200 : 404);
      }
    });

    it('writes: 404 for another author (PATCH, DELETE, a comment), 403 on a public post of someone else as before', async () => {
      expectProblem(await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.bob)).send({ title: 'X' }), 404, 'NOT_FOUND');
      expectProblem(await http().delete(`/posts/${draft.id}`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
      expectProblem(await http().post(`/posts/${draft.id}/comments`).set(bearer(app.tokens.bob)).send({ body: 'Hi' }), 404, 'NOT_FOUND');
      expectProblem(await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).send({ body: 'Hi' }), 404, 'NOT_FOUND');
      expectError(await gql('mutation($id: Int!) { updatePost(id: $id, input: { title: "X" }) { id } }', { id: draft.id }, app.tokens.bob), 'NOT_FOUND', ['updatePost']);
      expectProblem(await http().patch('/posts/1').set(bearer(app.tokens.bob)).send({ title: 'X' }), 403, 'FORBIDDEN');
      await http().post(`/posts/${draft.id}/comments`).set(bearer(app.tokens.admin)).send({ body: 'Editor here' }).expect(201);
    });

    it('lists and counts: the public ones for everyone; ?status for the signed in (own; admins all); 401 anonymous', async () => {
      for (const [who, token] of Object.entries(readers())) {
        const list = http().get('/posts?limit=100');
        expect(ids((await (token ? list.set(bearer(token)) : list).expect(200)).body), who).not.toContain(draft.id);
        const byUser = http().get('/users/2/posts?limit=100');
        expect(ids((await (token ? byUser.set(bearer(token)) : byUser).expect(200)).body), who).not.toContain(draft.id);
      }
      expectProblem(await http().get('/posts?status=draft'), 401, 'UNAUTHENTICATED');
      expect(ids((await http().get('/posts?status=draft&limit=100').set(bearer(app.tokens.bob)).expect(200)).body)).not.toContain(draft.id);
      expect(ids((await http().get('/posts?status=draft&limit=100').set(bearer(app.tokens.alice)).expect(200)).body)).toContain(draft.id);
      expect(ids((await http().get('/posts?status=draft&limit=100').set(bearer(app.tokens.admin)).expect(200)).body)).toContain(draft.id);
      expect((await http().get('/users/2/posts?status=draft').set(bearer(app.tokens.bob)).expect(200)).body).toEqual([]);
      expect(ids((await http().get('/users/2/posts?status=draft&limit=100').set(bearer(app.tokens.alice)).expect(200)).body)).toContain(draft.id);

      const publicCount = await sql<{ n: number | string }>("SELECT COUNT(*) AS n FROM posts WHERE status = 'published'");
      const drafts = async (authorId: number | null) =>
        Number((await sql<{ n: number | string }>(`SELECT COUNT(*) AS n FROM posts WHERE status = 'draft'${authorId ? ` AND author_id = ${authorId}` : ''}`))[0].n);
      const count = (token?: string, status = '') => gql(`{ posts${status ? `(status: ${status})` : ''} { totalCount } }`, undefined, token);
      expect(expectData(await count()).posts.totalCount).toBe(Number(publicCount[0].n));
      expect(expectData(await count(app.tokens.alice)).posts.totalCount).toBe(Number(publicCount[0].n));
      expect(expectData(await count(app.tokens.bob, 'DRAFT')).posts.totalCount).toBe(await drafts(3));
      expect(expectData(await count(app.tokens.alice, 'DRAFT')).posts.totalCount).toBe(await drafts(2));
      expect(expectData(await count(app.tokens.admin, 'DRAFT')).posts.totalCount).toBe(await drafts(null));
      expectError(await count(undefined, 'DRAFT'), 'UNAUTHENTICATED', ['posts']);
      const userPosts = expectData(await gql('{ user(id: 2) { posts(first: 100) { id } } }', undefined, app.tokens.alice)).user.posts as { id: number }[];
      expect(userPosts.map((post) => post.id)).not.toContain(draft.id);
      const draftCount = expectData(await gql('query($id: Int!) { post(id: $id) { commentCount comments { id } } }', { id: draft.id }, app.tokens.alice)).post;
      expect(draftCount.commentCount).toBe(draftCount.comments.length);
    });

    it('the public list pages by (publishedAt, id) without gaps or repeats, and id-only cursors of before still page', async () => {
      const all = ids((await http().get('/posts?limit=100').expect(200)).body);
      const paged: number[] = [];
      let next: string | null = '/posts?limit=3';
      while (next) {
        const response = await http().get(next).expect(200);
        paged.push(...ids(response.body));
        next = nextLink(response);
      }
      expect(paged).toEqual(all);
      const legacy = Buffer.from(`v1:${all[1]}`).toString('base64url');
      expect(ids((await http().get(`/posts?limit=100&cursor=${legacy}`).expect(200)).body)).toEqual(all.slice(2));
    });
  });

  describe('revisions', () => {
    it('numbers every change of title, body or status, restores one by PATCH {revision}, and shows them to the author and admins only', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'First title', body: 'First body' });
      const first = await http().get(`/posts/${post.id}`).expect(200);
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Second title' }).expect(200);
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.admin)).send({ status: 'draft' }).expect(200);
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Second title' }).expect(200);
      const restored = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ revision: 1 }).expect(200);
      expect(restored.body).toMatchObject({ title: 'First title', body: 'First body', status: 'draft' });
      expect(restored.headers.etag).not.toBe(first.headers.etag);

      const list = await http().get(`/posts/${post.id}/revisions`).set(bearer(app.tokens.alice)).expect(200);
      expect(list.body.map((revision: { number: number }) => revision.number)).toEqual([4, 3, 2, 1]);
      expect(list.body.map((revision: { editorId: number | null }) => revision.editorId)).toEqual([2, 1, 2, 2]);
      expect(list.body[1]).toMatchObject({ number: 3, title: 'Second title', status: 'draft', createdAt: expect.stringMatching(ISO) });
      expect(list.body[0]._links).toEqual({ self: { href: `/posts/${post.id}/revisions/4` }, post: { href: `/posts/${post.id}` } });
      const page = await http().get(`/posts/${post.id}/revisions?limit=2`).set(bearer(app.tokens.admin)).expect(200);
      expect(page.body.map((revision: { number: number }) => revision.number)).toEqual([4, 3]);
      const rest = await http().get(nextLink(page)!).set(bearer(app.tokens.admin)).expect(200);
      expect(rest.body.map((revision: { number: number }) => revision.number)).toEqual([2, 1]);

      expect((await http().get(`/posts/${post.id}/revisions/1`).set(bearer(app.tokens.alice)).expect(200)).body).toMatchObject({ number: 1, title: 'First title', status: 'published' });
      const hal = await http().get(`/posts/${post.id}/revisions/2`).set(bearer(app.tokens.alice)).set('Accept', 'application/hal+json').expect(200);
      expect(hal.body._links.self.href).toBe(`/posts/${post.id}/revisions/2`);
      expect((await http().get(`/posts/${post.id}/revisions/2`).set(bearer(app.tokens.alice)).set('Accept', 'application/xml').expect(200)).text).toContain('<revision>');
      await http().get(`/posts/${post.id}/revisions`).set(bearer(app.tokens.alice)).set('Accept', 'text/html').expect(200);
      expectProblem(await http().get(`/posts/${post.id}/revisions/9`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      // Even of a public post, another reader sees no revisions.
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
      expectProblem(await http().get(`/posts/${post.id}/revisions`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${post.id}/revisions/1`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');

      const query = 'query($id: Int!) { post(id: $id) { revisions(first: 2) { number title status editorId createdAt } } }';
      expect(expectData(await gql(query, { id: post.id }, app.tokens.alice)).post.revisions.map((revision: { number: number }) => revision.number)).toEqual([5, 4]);
      expect(expectData(await gql(query, { id: post.id }, app.tokens.bob)).post.revisions).toEqual([]);
      expect(expectData(await gql(query, { id: post.id })).post.revisions).toEqual([]);
    });

    it('Post.revisions is batched: one statement for every post of a list', async () => {
      const posts = await Promise.all([createPost(app, app.tokens.alice), createPost(app, app.tokens.alice), createPost(app, app.tokens.alice)]);
      // The smaller of two runs: a background poll (the relay, the scheduler) cannot fall into both.
      const statements = async (query: string) => {
        const counts: number[] = [];
        let data: Record<string, unknown> = {};
        for (let run = 0; run < 2; run += 1) {
          // The three posts' events are still being published (a read of the log on PostgreSQL).
          await relayQuiet(app);
          const before = await metricValue(app, 'db_queries_total');
          data = expectData(await gql(query, undefined, app.tokens.admin));
          counts.push((await metricValue(app, 'db_queries_total')) - before);
        }
        return { data, statements: Math.min(...counts) };
      };
      const plain = await statements('{ posts(first: 3) { nodes { id } } }');
      const withRevisions = await statements('{ posts(first: 3) { nodes { id revisions { number } } } }');
      expect(withRevisions.statements).toBe(plain.statements + 1);
      const nodes = (withRevisions.data.posts as { nodes: { id: number; revisions: unknown[] }[] }).nodes;
      expect(nodes.map((post) => post.id).sort()).toEqual(posts.map((post) => post.id).sort());
      for (const post of nodes) expect(post.revisions).toEqual([{ number: 1 }]);
    });
  });

  describe('the trash', () => {
    it('DELETE moves to the trash, PATCH {status} restores, a second DELETE deletes for good with its comments', async () => {
      const post = await createPost(app, app.tokens.alice);
      const comment = await createComment(app, app.tokens.bob, post.id);
      await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
      const trashed = (await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200)).body;
      expect(trashed).toMatchObject({ status: 'trashed', trashedAt: expect.stringMatching(ISO) });
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/comments/${comment.id}`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
      expect(ids((await http().get('/posts?status=trashed&limit=100').set(bearer(app.tokens.alice)).expect(200)).body)).toContain(post.id);
      const restored = (await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200)).body;
      expect(restored).toMatchObject({ status: 'published', trashedAt: null });
      await http().get(`/comments/${comment.id}`).expect(200);

      await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.admin)).expect(204);
      await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.admin)).expect(204);
      expectProblem(await http().get(`/posts/${post.id}`).set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/comments/${comment.id}`).set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      const events = await eventsOf(post.id);
      // Deleted from the trash: POST_DELETED is public whatever the state (CONTRACT §7), ids only.
      expect(events.slice(-3)).toEqual([
        { type: 'POST_UPDATED', audience: 'restricted', owner: 2 },
        { type: 'POST_UNPUBLISHED', audience: 'public', owner: null },
        { type: 'POST_DELETED', audience: 'public', owner: null },
      ]);
    });

    it('TRASH_RETENTION_DAYS empties the trash of older posts, through the same deletion', async () => {
      const old = await createPost(app, app.tokens.alice);
      await http().delete(`/posts/${old.id}`).set(bearer(app.tokens.alice)).expect(204);
      const kept = await createPost(app, app.tokens.alice, { status: 'draft' });
      const retention = app.app.get(TrashRetention);
      expect(await retention.purge(new Date(Date.now() + 29 * DAY))).toBe(0);
      expect(await retention.purge(new Date(Date.now() + 31 * DAY))).toBeGreaterThanOrEqual(1);
      expectProblem(await http().get(`/posts/${old.id}`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      await http().get(`/posts/${kept.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect((await eventsOf(old.id)).at(-1)).toEqual({ type: 'POST_DELETED', audience: 'public', owner: null });
    });
  });

  describe('the schedule', () => {
    it('publishes a due post with publishedAt = publishAt, one revision by no editor, one POST_PUBLISHED', async () => {
      const publishAt = new Date(Date.now() + HOUR);
      const post = await createPost(app, app.tokens.alice, { status: 'scheduled', publishAt: publishAt.toISOString() });
      expect(post).toMatchObject({ status: 'scheduled', publishAt: publishAt.toISOString(), publishedAt: null });
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
      expect(ids((await http().get('/posts?status=scheduled&limit=100').set(bearer(app.tokens.alice)).expect(200)).body)).toContain(post.id);

      const scheduler = app.app.get(PostScheduler);
      expect(await scheduler.run(new Date(publishAt.getTime() - 1000))).toBe(0);
      expect(await scheduler.run(new Date(publishAt.getTime() + 1000))).toBeGreaterThanOrEqual(1);
      const published = (await http().get(`/posts/${post.id}`).expect(200)).body;
      expect(published).toMatchObject({ status: 'published', publishAt: null, publishedAt: publishAt.toISOString() });
      const revisions = (await http().get(`/posts/${post.id}/revisions`).set(bearer(app.tokens.alice)).expect(200)).body;
      expect(revisions.map((revision: { number: number; editorId: number | null; status: string }) => [revision.number, revision.editorId, revision.status])).toEqual([
        [2, null, 'published'],
        [1, 2, 'scheduled'],
      ]);
      expect(await scheduler.run(new Date(publishAt.getTime() + 2000))).toBe(0);
      expect((await eventsOf(post.id)).filter((event) => event.type === 'POST_PUBLISHED')).toHaveLength(1);
    });

    it.runIf(kind === 'postgres')('two instances racing on one database publish each due post exactly once', async () => {
      const second = await startTestApp(kind, { database: app.database });
      try {
        const publishAt = new Date(Date.now() + 2 * HOUR);
        const posts: PostBody[] = [];
        for (let n = 0; n < 60; n += 1) posts.push(await createPost(app, n % 2 ? app.tokens.alice : app.tokens.bob, { status: 'scheduled', publishAt: publishAt.toISOString() }));
        const at = new Date(publishAt.getTime() + 1000);
        const [a, b] = await Promise.all([app.app.get(PostScheduler).run(at), second.app.get(PostScheduler).run(at)]);
        expect(a + b).toBe(posts.length);
        const rows = await sql<{ type: string; n: number | string }>(
          `SELECT COUNT(*) AS n FROM events WHERE type = 'POST_PUBLISHED' AND post_id IN (${posts.map((post) => post.id).join(', ')})`,
        );
        expect(Number(rows[0].n)).toBe(posts.length);
        const revisions = await sql<{ n: number | string }>(`SELECT COUNT(*) AS n FROM post_revisions WHERE post_id IN (${posts.map((post) => post.id).join(', ')})`);
        expect(Number(revisions[0].n)).toBe(2 * posts.length);
      } finally {
        await second.close();
      }
    });
  });

  describe('the response cache', () => {
    it('keeps only anonymous answers, which never hold a non-public post', async () => {
      await http().get('/posts?limit=5').expect(200);
      expect((await http().get('/posts?limit=5').expect(200)).headers['cache-status']).toBe('blog; hit');
      const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
      const list = await http().get('/posts?limit=5').expect(200);
      expect(list.headers['cache-status']).toBe('blog; fwd=miss');
      expect(ids(list.body)).not.toContain(draft.id);
      const own = await http().get(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(own.headers['cache-status']).toBe('blog; fwd=uncacheable');
      const mine = await http().get('/posts?status=draft&limit=5').set(bearer(app.tokens.alice)).expect(200);
      expect(mine.headers['cache-status']).toBe('blog; fwd=uncacheable');
      // The author's answers were not kept for anyone else.
      for (let n = 0; n < 2; n += 1) expectProblem(await http().get(`/posts/${draft.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get('/posts?status=draft&limit=5'), 401, 'UNAUTHENTICATED');
      const query = 'query($id: Int!) { post(id: $id) { id } }';
      expect(expectData(await gql(query, { id: draft.id }, app.tokens.alice)).post).toEqual({ id: draft.id });
      for (let n = 0; n < 2; n += 1) expect(expectData(await gql(query, { id: draft.id })).post).toBeNull();
    });
  });
});
