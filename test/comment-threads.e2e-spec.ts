import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { eventsSince, type FeedEvent, lastCursor } from './support/editorial.js';
import { expectData, graphql, metricValue, relayQuiet } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { type CommentBody, createComment, createPost, createUser, expectComment } from './support/resources.js';
import { until } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Threads (CONTRACT §9): replies with parentId, the depth limit, Comment.parent/replies (batched),
 * ?parentId=, threaded HTML, deleting a thread; and the visibility of a comment by its status on
 * every read door (ReadPolicy: approved for everyone, pending for its author and the moderating
 * roles, spam and hidden for the latter only). Statuses are written straight into the database.
 */
describeEachDatabase('comment threads', (kind) => {
  const app = useApp(kind, { env: { GRAPHQL_MAX_COST: '100000' } });
  const http = () => request(app.server);
  const sql = (text: string, params: unknown[] = []) => app.app.get(DataSource).query(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);

  /**
   * The COMMENT_DELETED events after `after` that a reader gets, once the admin's feed holds
   * `count` of them (PostgreSQL shows an event once every older transaction of the cluster has ended).
   */
  async function deletions(after: string | undefined, count: number, token?: string): Promise<FeedEvent[]> {
    const of = async (reader?: string) => (await eventsSince(app, reader, after)).filter((event) => event.type === 'COMMENT_DELETED');
    await until(`${count} COMMENT_DELETED events`, async () => (await of(app.tokens.admin)).length >= count);
    return of(token);
  }

  async function reply(token: string, postId: number, parentId: number | null, body = 'reply'): Promise<request.Response> {
    return http().post(`/posts/${postId}/comments`).set(bearer(token)).send({ body, parentId });
  }

  async function replied(token: string, postId: number, parentId: number | null, body = 'reply'): Promise<CommentBody> {
    const response = await reply(token, postId, parentId, body);
    expect(response.status, response.text).toBe(201);
    return expectComment(response.body, { postId, parentId, body });
  }

  /** SQL statements of one GraphQL query, counted by the app once the relay is quiet (the smaller of two runs: the relay and the scheduler poll once a second). */
  interface ThreadsData {
    post: { comments: { replies: unknown[] }[] };
  }
  async function statementsOf(query: string, variables: Record<string, unknown>, token?: string): Promise<{ data: ThreadsData; statements: number }> {
    const counts: number[] = [];
    let data: ThreadsData | undefined;
    for (let run = 0; run < 2; run++) {
      await relayQuiet(app);
      const before = await metricValue(app, 'db_queries_total');
      data = expectData(await graphql(app, run === 0 ? query : `${query}\n# again`, variables, { token }));
      counts.push((await metricValue(app, 'db_queries_total')) - before);
    }
    return { data: data!, statements: Math.min(...counts) };
  }

  describe('replies on REST', () => {
    it('201 for a reply: parentId, links to its parent and to its replies; a chain of five is accepted, a reply to the fifth is 400 naming parentId', async () => {
      const post = await createPost(app, app.tokens.alice);
      const top = await replied(app.tokens.bob, post.id, null, 'top');
      expect(top.parentId).toBeNull();
      expect(top._links.parent).toBeUndefined();
      expect(top._links.replies).toEqual({ href: `/posts/${post.id}/comments?parentId=${top.id}` });
      const chain = [top];
      for (let depth = 2; depth <= 5; depth++) chain.push(await replied(depth % 2 ? app.tokens.bob : app.tokens.alice, post.id, chain.at(-1)!.id, `depth ${depth}`));
      expect(chain[1]._links.parent).toEqual({ href: `/comments/${top.id}` });
      expect((await http().get(`/comments/${chain[4].id}`).expect(200)).body.parentId).toBe(chain[3].id);
      const tooDeep = await reply(app.tokens.bob, post.id, chain[4].id, 'depth 6');
      expectProblem(tooDeep, 400, 'BAD_USER_INPUT');
      expect(errorFields(tooDeep)).toEqual(['parentId']);
      // A sibling at a shallower level is still fine, and nothing was written by the refused one.
      await replied(app.tokens.bob, post.id, chain[3].id, 'another at 5');
      expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toHaveLength(6);
    });

    it('400 naming parentId for a parent on another post, a missing parent, or a malformed one; nothing is written', async () => {
      const post = await createPost(app, app.tokens.alice);
      const elsewhere = await createComment(app, app.tokens.bob, 1, 'on post 1');
      for (const parentId of [elsewhere.id, 999_999]) {
        const response = await reply(app.tokens.bob, post.id, parentId);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toEqual(['parentId']);
      }
      for (const parentId of [0, -1, 1.5, 'x', true]) {
        const response = await http().post(`/posts/${post.id}/comments`).set(bearer(app.tokens.bob)).send({ body: 'b', parentId });
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toContain('parentId');
      }
      expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toEqual([]);
    });

    it("a parent on a draft BOB may not see gets the answer of a missing parent (REST and GraphQL): nothing tells the draft's comment exists", async () => {
      const post = await createPost(app, app.tokens.alice);
      const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
      const onDraft = await createComment(app, app.tokens.alice, draft.id, 'on the draft');
      const missing = 999_999;
      const unnamed = (text: string) => text.replaceAll(String(missing), 'N').replaceAll(String(onDraft.id), 'N');
      const [toDraft, toNothing] = [await reply(app.tokens.bob, post.id, onDraft.id), await reply(app.tokens.bob, post.id, missing)];
      expectProblem(toDraft, 400, 'BAD_USER_INPUT');
      expect(errorFields(toDraft)).toEqual(['parentId']);
      expect(unnamed(JSON.stringify({ ...toDraft.body, instance: undefined }))).toBe(unnamed(JSON.stringify({ ...toNothing.body, instance: undefined })));

      const mutation = 'mutation($input: CreateCommentInput!) { createComment(input: $input) { id } }';
      const graphqlReply = async (parentId: number) => (await graphql(app, mutation, { input: { postId: post.id, body: 'b', parentId } }, { token: app.tokens.bob })).body.errors ?? [];
      const [gqlDraft, gqlNothing] = [await graphqlReply(onDraft.id), await graphqlReply(missing)];
      expect(gqlDraft.map((error) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
      expect(unnamed(JSON.stringify(gqlDraft))).toBe(unnamed(JSON.stringify(gqlNothing)));
      expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toEqual([]);
    });

    it('GET lists every comment oldest first, replies included; ?parentId= lists one comment\'s replies; 404 for a parent elsewhere or missing', async () => {
      const post = await createPost(app, app.tokens.alice);
      const a = await replied(app.tokens.bob, post.id, null, 'a');
      const b = await replied(app.tokens.alice, post.id, null, 'b');
      const a1 = await replied(app.tokens.alice, post.id, a.id, 'a1');
      const b1 = await replied(app.tokens.bob, post.id, b.id, 'b1');
      const a2 = await replied(app.tokens.admin, post.id, a.id, 'a2');
      const a11 = await replied(app.tokens.bob, post.id, a1.id, 'a11');
      const all = await http().get(`/posts/${post.id}/comments`).expect(200);
      expect(all.body.map((c: CommentBody) => [c.id, c.parentId])).toEqual([
        [a.id, null],
        [b.id, null],
        [a1.id, a.id],
        [b1.id, b.id],
        [a2.id, a.id],
        [a11.id, a1.id],
      ]);
      const replies = await http().get(`/posts/${post.id}/comments?parentId=${a.id}`).expect(200);
      expect(replies.body).toEqual([a1, a2]);
      const paged = await http().get(`/posts/${post.id}/comments?parentId=${a.id}&limit=1`).expect(200);
      expect(paged.body).toEqual([a1]);
      expect(paged.headers.link).toMatch(new RegExp(`^</posts/${post.id}/comments\\?limit=1&parentId=${a.id}&cursor=[^>]+>; rel="next"$`));
      const next = /<([^>]+)>/.exec(paged.headers.link as string)![1];
      expect((await http().get(next).expect(200)).body).toEqual([a2]);
      expect((await http().get(`/posts/${post.id}/comments?parentId=${a11.id}`).expect(200)).body).toEqual([]);
      expectProblem(await http().get(`/posts/${post.id}/comments?parentId=1`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${post.id}/comments?parentId=999999`), 404, 'NOT_FOUND');
      for (const bad of ['x', '0', '-2']) expectProblem(await http().get(`/posts/${post.id}/comments?parentId=${bad}`), 400, 'BAD_USER_INPUT');
      const hal = await http().get(`/posts/${post.id}/comments?parentId=${a.id}`).set('accept', 'application/hal+json').expect(200);
      expect(JSON.stringify(hal.body)).toContain(`/comments/${a.id}`);
    });

    it('HTML shows the thread nested: replies inside their parent, on the list and on the post page', async () => {
      const post = await createPost(app, app.tokens.alice);
      const a = await replied(app.tokens.bob, post.id, null, 'a');
      const a1 = await replied(app.tokens.alice, post.id, a.id, 'a1');
      const a11 = await replied(app.tokens.bob, post.id, a1.id, 'a11');
      const b = await replied(app.tokens.alice, post.id, null, 'b');
      const nested = (parent: number, child: number) => new RegExp(`<li id="comment-${parent}">(?:(?!</li>).)*<ol class="comments">\\s*<li id="comment-${child}">`, 's');
      for (const path of [`/posts/${post.id}/comments`, `/posts/${post.id}`]) {
        const html = (await http().get(path).set('accept', 'text/html').expect(200)).text;
        expect(html, path).toMatch(nested(a.id, a1.id));
        expect(html, path).toMatch(nested(a1.id, a11.id));
        // b is top-level: it follows a's whole thread, not inside it.
        expect(html, path).toMatch(new RegExp(`comment-${a11.id}">(?:.)*?</li>\\s*</ol>\\s*</li>\\s*</ol>\\s*</li>\\s*<li id="comment-${b.id}">`, 's'));
        expect(html, path).toContain(`href="/comments/${a.id}"`);
      }
      // A page that starts inside a thread shows a reply whose parent is elsewhere at the top, with a link to it.
      const page = (await http().get(`/posts/${post.id}/comments?parentId=${a1.id}`).set('accept', 'text/html').expect(200)).text;
      expect(page).toContain(`<li id="comment-${a11.id}">`);
      expect(page).toContain(`rel="parent" href="/comments/${a1.id}"`);
    });
  });

  describe('replies on GraphQL', () => {
    const CREATE = 'mutation($input: CreateCommentInput!) { createComment(input: $input) { id parentId status parent { id } } }';

    it('createComment takes parentId (null: top-level); Comment.parent and Comment.replies(first)', async () => {
      const post = await createPost(app, app.tokens.alice);
      const top = expectData(await graphql(app, CREATE, { input: { postId: post.id, body: 'top', parentId: null } }, { token: app.tokens.bob })).createComment;
      expect(top).toEqual({ id: expect.any(Number), parentId: null, status: 'APPROVED', parent: null });
      const child = expectData(await graphql(app, CREATE, { input: { postId: post.id, body: 'child', parentId: top.id } }, { token: app.tokens.alice })).createComment;
      expect(child).toEqual({ id: expect.any(Number), parentId: top.id, status: 'APPROVED', parent: { id: top.id } });
      const second = expectData(await graphql(app, CREATE, { input: { postId: post.id, body: 'second' , parentId: top.id } }, { token: app.tokens.bob })).createComment;
      const read = expectData(
        await graphql(app, 'query($id: Int!) { comment(id: $id) { id replies { id parentId parent { id } replies { id } } first: replies(first: 1) { id } } }', { id: top.id }),
      );
      expect(read.comment).toEqual({
        id: top.id,
        replies: [
          { id: child.id, parentId: top.id, parent: { id: top.id }, replies: [] },
          { id: second.id, parentId: top.id, parent: { id: top.id }, replies: [] },
        ],
        first: [{ id: child.id }],
      });
    });

    it('refuses a bad parent with BAD_USER_INPUT and the depth limit, like REST', async () => {
      const post = await createPost(app, app.tokens.alice);
      const other = await createComment(app, app.tokens.bob, 1, 'elsewhere');
      const result = await graphql(app, CREATE, { input: { postId: post.id, body: 'x', parentId: other.id } }, { token: app.tokens.bob });
      expect(result.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(result.body.errors)).toContain('parentId');
      let parentId: number | null = null;
      for (let depth = 1; depth <= 5; depth++) {
        parentId = expectData(await graphql(app, CREATE, { input: { postId: post.id, body: `d${depth}`, parentId } }, { token: app.tokens.bob })).createComment.id;
      }
      const tooDeep = await graphql(app, CREATE, { input: { postId: post.id, body: 'd6', parentId } }, { token: app.tokens.bob });
      expect(tooDeep.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('Comment.replies is batched: the same number of statements for 2 threads as for 25, and the post page of 50 threaded comments costs 1 statement (planned)', async () => {
      const threads = async (count: number) => {
        const post = await createPost(app, app.tokens.alice);
        for (let index = 0; index < count; index++) {
          const top = await replied(index % 2 ? app.tokens.bob : app.tokens.alice, post.id, null, `t${index}`);
          await replied(index % 2 ? app.tokens.alice : app.tokens.bob, post.id, top.id, `r${index}`);
        }
        return post.id;
      };
      const small = await threads(1);
      const busy = await threads(25);
      const THREADS = 'query($id: Int!) { post(id: $id) { comments(first: 50) { id replies(first: 5) { id author { name } replies(first: 1) { id } } } } }';
      const few = await statementsOf(THREADS, { id: small });
      const many = await statementsOf(THREADS, { id: busy });
      expect(few.data.post.comments).toHaveLength(2);
      expect(many.data.post.comments).toHaveLength(50);
      expect(many.data.post.comments.filter((c) => c.replies.length === 1)).toHaveLength(25);
      expect(many.statements).toBe(few.statements);
      // post, comments, replies (with authors), replies of replies.
      expect(many.statements).toBeLessThanOrEqual(4);
      const POST_PAGE = 'query($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } } }';
      expect((await statementsOf(POST_PAGE, { id: busy })).statements).toBe(1);
    });
  });

  it('deleting a comment deletes its replies at any depth: a COMMENT_DELETED for each, their earlier content erased', async () => {
    const post = await createPost(app, app.tokens.alice);
    const root = await replied(app.tokens.bob, post.id, null, 'root-marker');
    const child = await replied(app.tokens.alice, post.id, root.id, 'child-marker');
    const grandchild = await replied(app.tokens.admin, post.id, child.id, 'grandchild-marker');
    const sibling = await replied(app.tokens.alice, post.id, null, 'sibling');
    const after = await lastCursor(app, app.tokens.admin);
    await http().delete(`/comments/${root.id}`).set(bearer(app.tokens.bob)).expect(204);
    for (const gone of [root, child, grandchild]) expectProblem(await http().get(`/comments/${gone.id}`), 404, 'NOT_FOUND');
    expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toEqual([sibling]);
    const deleted = await deletions(after, 3, app.tokens.admin);
    expect(deleted.map((event) => event.commentId).sort((x, y) => x! - y!)).toEqual([root.id, child.id, grandchild.id]);
    expect(deleted.map((event) => event.postId)).toEqual([post.id, post.id, post.id]);
    // Public: the anonymous feed has them too.
    expect(await deletions(after, 3)).toHaveLength(3);
    const created = (await eventsSince(app, app.tokens.admin)).filter((event) => event.type === 'COMMENT_CREATED' && [root.id, child.id, grandchild.id].includes(event.commentId!));
    expect(created).toHaveLength(3);
    expect(created.map((event) => event.resource ?? null)).toEqual([null, null, null]);
    const kept = (await eventsSince(app, app.tokens.admin)).find((event) => event.type === 'COMMENT_CREATED' && event.commentId === sibling.id);
    expect(kept?.resource).toMatchObject({ body: 'sibling' });
  });

  it("deleting a user takes the replies of others under their comments along, and a deletion's event has the audience the comment had", async () => {
    const carol = await createUser(app);
    const post = await createPost(app, app.tokens.alice);
    const carols = await replied(carol.token, post.id, null, 'carol-marker');
    const answer = await replied(app.tokens.bob, post.id, carols.id, 'answer-marker');
    const pending = await replied(app.tokens.bob, post.id, null, 'pending-marker');
    await sql('UPDATE comments SET status = $1 WHERE id = $2', ['pending', pending.id]);
    const after = await lastCursor(app, app.tokens.admin);
    await http().delete(`/users/${carol.id}`).set(bearer(app.tokens.admin)).expect(204);
    expectProblem(await http().get(`/comments/${answer.id}`), 404, 'NOT_FOUND');
    const deleted = await deletions(after, 2);
    expect(deleted.map((event) => event.commentId).sort((x, y) => x! - y!)).toEqual([carols.id, answer.id]);
    const created = (await eventsSince(app, app.tokens.admin)).filter((event) => event.type === 'COMMENT_CREATED' && event.commentId === answer.id);
    expect(created.map((event) => event.resource ?? null)).toEqual([null]);
    // A pending comment deleted (with its thread): its deletion reaches only those who saw it.
    const before = await lastCursor(app, app.tokens.admin);
    await http().delete(`/comments/${pending.id}`).set(bearer(app.tokens.bob)).expect(204);
    const of = async (token?: string) => (await deletions(before, 1, token)).map((event) => event.commentId);
    expect(await of()).toEqual([]);
    expect(await of(app.tokens.alice)).toEqual([]);
    expect(await of(app.tokens.bob)).toEqual([pending.id]);
    expect(await of(app.tokens.admin)).toEqual([pending.id]);
  });

  describe('visibility by status on every read door', () => {
    type Reader = 'anonymous' | 'other' | 'author' | 'moderator' | 'editor' | 'admin';
    const READERS: Reader[] = ['anonymous', 'other', 'author', 'moderator', 'editor', 'admin'];
    const SEES: Record<string, Reader[]> = {
      approved: READERS,
      pending: ['author', 'moderator', 'editor', 'admin'],
      spam: ['moderator', 'editor', 'admin'],
      hidden: ['moderator', 'editor', 'admin'],
    };
    const tokens: Partial<Record<Reader, string>> = {};
    let postId: number;
    let top: CommentBody;
    const byStatus: Record<string, number> = {};

    async function withRole(role: string): Promise<string> {
      const user = await createUser(app);
      await sql('UPDATE users SET role = $1 WHERE id = $2', [role, user.id]);
      return tokenFor(app, { email: user.email, password: user.password });
    }

    beforeAll(async () => {
      const author = await createUser(app);
      Object.assign(tokens, { other: app.tokens.alice, author: author.token, moderator: await withRole('moderator'), editor: await withRole('editor'), admin: app.tokens.admin });
      postId = (await createPost(app, app.tokens.alice)).id;
      top = await replied(author.token, postId, null, 'approved top');
      byStatus.approved = top.id;
      // Replies of the approved comment in each status: they show in Comment.replies and ?parentId= too.
      for (const status of ['pending', 'spam', 'hidden']) {
        const comment = await replied(author.token, postId, top.id, `${status} reply`);
        await sql('UPDATE comments SET status = $1 WHERE id = $2', [status, comment.id]);
        byStatus[status] = comment.id;
      }
    });

    const visibleTo = (reader: Reader) => Object.entries(byStatus).filter(([status]) => SEES[status].includes(reader)).map(([, id]) => id).sort((a, b) => a - b);

    it.each(READERS)('%s sees exactly the comments the read policy allows, on REST (item, list, replies, HTML) and GraphQL', async (reader) => {
      const token = tokens[reader];
      const as = (test: request.Test) => (token ? test.set(bearer(token)) : test);
      const expected = visibleTo(reader);
      for (const [status, id] of Object.entries(byStatus)) {
        const response = await as(http().get(`/comments/${id}`));
        expect(response.status, `${reader} GET /comments/{${status}}`).toBe(SEES[status].includes(reader) ? 200 : 404);
        if (response.status === 200) expect(response.body.status).toBe(status);
      }
      const list = await as(http().get(`/posts/${postId}/comments`)).expect(200);
      expect(list.body.map((c: CommentBody) => c.id)).toEqual(expected);
      const replies = await as(http().get(`/posts/${postId}/comments?parentId=${top.id}`)).expect(200);
      expect(replies.body.map((c: CommentBody) => c.id)).toEqual(expected.filter((id) => id !== top.id));
      const html = (await as(http().get(`/posts/${postId}/comments`).set('accept', 'text/html')).expect(200)).text;
      const page = (await as(http().get(`/posts/${postId}`).set('accept', 'text/html')).expect(200)).text;
      for (const [status, id] of Object.entries(byStatus)) {
        expect(html.includes(`id="comment-${id}"`), `${reader} HTML list, ${status}`).toBe(SEES[status].includes(reader));
        expect(page.includes(`id="comment-${id}"`), `${reader} HTML post page, ${status}`).toBe(SEES[status].includes(reader));
      }
      const data = expectData(
        await graphql(
          app,
          'query($p: Int!, $c: Int!) { post(id: $p) { commentCount comments { id status } } comment(id: $c) { id replies { id } } }',
          { p: postId, c: top.id },
          { token },
        ),
      );
      expect(data.post.commentCount).toBe(expected.length);
      expect(data.post.comments.map((c: { id: number }) => c.id)).toEqual(expected);
      expect(data.comment.replies.map((c: { id: number }) => c.id)).toEqual(expected.filter((id) => id !== top.id));
      for (const [status, id] of Object.entries(byStatus)) {
        const one = expectData(await graphql(app, 'query($id: Int!) { comment(id: $id) { id parent { id } } }', { id }, { token }));
        expect(one.comment, `${reader} comment(id) ${status}`).toEqual(SEES[status].includes(reader) ? { id, parent: id === top.id ? null : { id: top.id } } : null);
      }
    });

    it('a reader may not reply to a comment they cannot see: 400 naming parentId', async () => {
      const response = await reply(app.tokens.alice, postId, byStatus.pending);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response)).toEqual(['parentId']);
      expect((await reply(tokens.moderator!, postId, byStatus.spam, 'a moderator may')).status).toBe(201);
    });
  });
});

describeEachDatabase('comment threads with COMMENTS_MAX_DEPTH=2', (kind) => {
  const app = useApp(kind, { env: { COMMENTS_MAX_DEPTH: '2' }, signIn: ['bob'] });

  it('accepts a chain of two and refuses a reply to the second', async () => {
    const send = (parentId: number | null) => request(app.server).post('/posts/1/comments').set(bearer(app.tokens.bob)).send({ body: 'x', parentId });
    const first = await send(null).expect(201);
    const second = await send(first.body.id).expect(201);
    expect(second.body.parentId).toBe(first.body.id);
    const third = await send(second.body.id);
    expectProblem(third, 400, 'BAD_USER_INPUT');
    expect(errorFields(third)).toEqual(['parentId']);
    expect((await send(first.body.id)).status).toBe(201);
  });
});
