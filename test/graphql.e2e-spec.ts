import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { CommentsService } from '../src/comments/comments.service.js';
import { encodeTimeCursor } from '../src/common/pagination/cursor.js';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { PostFinder } from '../src/posts/post-finder.service.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { ISO } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/** The demo seed: admin (1), Alice (2), Bob (3); posts 1-2 by Alice, 3-4 by Bob, 5 by the admin. */
const POST_PAGE = `query PostPage($id: Int!) {
  post(id: $id) { title body author { name avatarUrl } comments { body author { name } } }
}`;

const POST_FIELDS = 'id title body authorId createdAt updatedAt';
const COMMENT_FIELDS = 'id body postId authorId createdAt updatedAt';
const USER_FIELDS = 'id name email avatarUrl role createdAt updatedAt';

describeEachDatabase('GraphQL queries and mutations', (kind) => {
  const app = useApp(kind);

  const gql = (query: string, variables?: Record<string, unknown>, token?: string) => graphql(app, query, variables, { token });

  /** A fresh author (GraphQL createUser + createToken), for tests that change or delete things. */
  async function newAuthor(): Promise<{ id: number; email: string; token: string }> {
    const email = `gql-${randomBytes(4).toString('hex')}@example.com`;
    const created = expectData(
      await gql('mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', {
        input: { name: 'GraphQL Author', email, password: 'graphql-password' },
      }),
    );
    const issued = expectData(
      await gql('mutation($input: CreateTokenInput!) { createToken(input: $input) { accessToken } }', {
        input: { email, password: 'graphql-password' },
      }),
    );
    return { id: created.createUser.id, email, token: issued.createToken.accessToken };
  }

  async function newPost(token: string, title = 'A post'): Promise<{ id: number; authorId: number }> {
    const data = expectData(
      await gql('mutation($input: CreatePostInput!) { createPost(input: $input) { id authorId } }', { input: { title, body: 'Body' } }, token),
    );
    return data.createPost;
  }

  async function newComment(token: string, postId: number): Promise<{ id: number; authorId: number }> {
    const data = expectData(
      await gql('mutation($input: CreateCommentInput!) { createComment(input: $input) { id authorId } }', { input: { postId, body: 'A comment' } }, token),
    );
    return data.createComment;
  }

  describe('the post page', () => {
    it('answers the seed post page with exactly the requested shape', async () => {
      const result = await gql(POST_PAGE, { id: 1 });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        data: {
          post: {
            title: 'Welcome to the blog service',
            body: 'Posts, users and comments over REST and GraphQL, with live subscriptions. Try GET /posts or POST /graphql.',
            author: { name: 'Alice Author', avatarUrl: null },
            comments: [
              { body: 'Great to be here!', author: { name: 'Alice Author' } },
              { body: 'Looking forward to more posts.', author: { name: 'Bob Writer' } },
            ],
          },
        },
      });
    });

    it('is the same over GET (a query) as over POST', async () => {
      const response = await request(app.server)
        .get('/graphql')
        .query({ query: POST_PAGE, variables: JSON.stringify({ id: 1 }) })
        .set('apollo-require-preflight', 'true')
        .expect(200);
      const post = await gql(POST_PAGE, { id: 1 });
      expect(response.body).toEqual(post.body);
    });

    it('comments read with only the fields asked for answer as whole ones, and their partial authors are never the users of the rest of the request', async () => {
      // Comment.post.author loads the same users through the request's user loader: whole rows, whatever the comments read.
      const data = expectData(await gql('{ post(id: 1) { comments { body author { name } post { author { name email role createdAt } } } } }'));
      expect(data.post.comments).toHaveLength(2);
      for (const comment of data.post.comments) {
        expect(comment.post.author).toEqual({ name: 'Alice Author', email: expect.stringContaining('@'), role: expect.any(String), createdAt: expect.stringMatching(ISO) });
      }
      // A partial author (plain fields only) and a whole one (email is not among them) agree on what both have.
      const partial = expectData(await gql('{ post(id: 1) { comments { id postId parentId status createdAt author { id name avatarUrl } } } }'));
      const whole = expectData(await gql('{ post(id: 1) { comments { id postId parentId status createdAt author { id name avatarUrl email } } } }'));
      expect(partial.post.comments.map((comment: { author: { name: string } }) => comment.author.name)).toEqual(['Alice Author', 'Bob Writer']);
      expect(partial.post.comments).toEqual(
        whole.post.comments.map(({ author: { email: _email, ...author }, ...comment }: { author: { email: string } }) => ({ ...comment, author })),
      );
    });
  });

  describe('Query', () => {
    it('post: every field, ISO timestamps, null for a missing id', async () => {
      const data = expectData(await gql(`{ post(id: 3) { ${POST_FIELDS} commentCount } missing: post(id: 999999) { id } }`));
      expect(data.post).toEqual({
        id: 3,
        title: 'Keyset paging',
        body: expect.any(String),
        authorId: 3,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        commentCount: 2,
      });
      expect(data.missing).toBeNull();
    });

    it('post: comments oldest first, the first ones per post; no `after` on a list that hands out no cursors', async () => {
      const data = expectData(await gql('{ post(id: 3) { comments { id postId } first: comments(first: 1) { id } } }'));
      expect(data.post.comments.map((c: { id: number }) => c.id)).toEqual([4, 5]);
      expect(data.post.comments.every((c: { postId: number }) => c.postId === 3)).toBe(true);
      expect(data.post.first).toEqual([{ id: 4 }]);
      expectError(await gql(`{ post(id: 3) { comments(after: "${cursorOf(4)}") { id } } }`), 'GRAPHQL_VALIDATION_FAILED');
      expectError(await gql(`{ user(id: 2) { posts(after: "${cursorOf(2)}") { id } } }`), 'GRAPHQL_VALIDATION_FAILED');
    });

    it('pageInfo: startCursor and endCursor are the first and last edge cursors; hasPreviousPage only after a node that is still there', async () => {
      const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
      const first = expectData(await gql(`{ users(first: 2) { nodes { id } ${PAGE_INFO} } }`)).users;
      expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: cursorOf(1), endCursor: cursorOf(2) });
      const second = expectData(await gql(`query($a: String) { users(first: 1, after: $a) { nodes { id } ${PAGE_INFO} } }`, { a: first.pageInfo.endCursor })).users;
      expect(second).toEqual({ nodes: [{ id: 3 }], pageInfo: { hasNextPage: expect.any(Boolean), hasPreviousPage: true, startCursor: cursorOf(3), endCursor: cursorOf(3) } });
      // Public posts page by (publishedAt, id): newest publication first.
      const published = expectData(await gql('{ posts(authorId: 2) { nodes { id publishedAt } } }')).posts.nodes as { id: number; publishedAt: string }[];
      const postCursor = (id: number) => encodeTimeCursor(new Date(published.find((post) => post.id === id)!.publishedAt), id);
      // After Alice's newest post there is one of hers before the page (the cursor's own).
      const alices = expectData(await gql(`{ posts(authorId: 2, after: "${postCursor(2)}") { nodes { id } ${PAGE_INFO} } }`)).posts;
      expect(alices).toEqual({ nodes: [{ id: 1 }], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: postCursor(1), endCursor: postCursor(1) } });
      // A cursor newer than every post: nothing comes before the page (and the page is the whole list).
      const beyond = expectData(await gql(`{ posts(authorId: 2, after: "${encodeTimeCursor(new Date('2100-01-01T00:00:00Z'), 1_999_999_999)}") { nodes { id } ${PAGE_INFO} } }`)).posts;
      expect(beyond.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: postCursor(2), endCursor: postCursor(1) });
      // An id-only cursor (issued before the list paged by publication) pages after that post.
      const legacy = expectData(await gql(`{ posts(authorId: 2, after: "${cursorOf(2)}") { nodes { id } ${PAGE_INFO} } }`)).posts;
      expect(legacy).toEqual(alices);
      // Past the last user: an empty page, with no cursors, after all of them.
      const past = expectData(await gql(`{ users(after: "${cursorOf(2_000_000_000)}") { nodes { id } ${PAGE_INFO} } }`)).users;
      expect(past).toEqual({ nodes: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null } });
    });

    it('posts: newest first, a connection with edges, nodes, pageInfo and totalCount', async () => {
      const data = expectData(
        await gql('{ posts(first: 2, authorId: 2) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } nodes { id publishedAt author { id } } } }'),
      );
      const { posts } = data;
      const cursorOfPost = (id: number) => encodeTimeCursor(new Date(posts.nodes.find((post: { id: number }) => post.id === id).publishedAt), id);
      expect(posts.nodes).toEqual([
        { id: 2, publishedAt: expect.stringMatching(ISO), author: { id: 2 } },
        { id: 1, publishedAt: expect.stringMatching(ISO), author: { id: 2 } },
      ]);
      expect(posts.edges.map((edge: { node: { id: number } }) => edge.node.id)).toEqual([2, 1]);
      expect(posts.edges.map((edge: { cursor: string }) => edge.cursor)).toEqual([cursorOfPost(2), cursorOfPost(1)]);
      // The demo's draft and scheduled post of Alice's are in no public count.
      expect(posts.totalCount).toBe(2);
      expect(posts.pageInfo).toEqual({ hasNextPage: false, endCursor: cursorOfPost(1) });
    });

    it('posts: pages with first/after until hasNextPage is false, without gaps or repeats', async () => {
      const seen: number[] = [];
      let after: string | null = null;
      for (let page = 0; page < 50; page++) {
        const data = expectData(
          await gql('query($after: String) { posts(first: 2, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after }),
        );
        seen.push(...data.posts.nodes.map((node: { id: number }) => node.id));
        if (!data.posts.pageInfo.hasNextPage) break;
        after = data.posts.pageInfo.endCursor;
      }
      expect(seen).toEqual([...seen].sort((a, b) => b - a));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining([1, 2, 3, 4, 5]));
      const total = expectData(await gql('{ posts { totalCount } }')).posts.totalCount;
      expect(seen.length).toBe(total);
    });

    it.each([
      ['first 0', '{ posts(first: 0) { nodes { id } } }', ['posts']],
      ['first 101', '{ posts(first: 101) { nodes { id } } }', ['posts']],
      ['first null', '{ posts(first: null) { nodes { id } } }', ['posts']],
      ['a cursor it never issued', '{ posts(after: "bm9wZQ") { nodes { id } } }', ['posts']],
      ['authorId 0', '{ posts(authorId: 0) { nodes { id } } }', ['posts']],
      ['users first 101', '{ users(first: 101) { nodes { id } } }', ['users']],
      ['comments first 0', '{ post(id: 1) { comments(first: 0) { id } } }', ['post', 'comments']],
      ['User.posts first -1', '{ user(id: 2) { posts(first: -1) { id } } }', ['user', 'posts']],
    ])('BAD_USER_INPUT with its path for %s', async (_case, query, path) => {
      const result = await gql(query);
      expect(result.status).toBe(200);
      const error = expectError(result, 'BAD_USER_INPUT', path);
      expect(error.extensions.fieldErrors).toEqual([{ field: expect.any(String), message: expect.any(String) }]);
    });

    it('user, users, User.posts (newest first) and no password hash or version anywhere', async () => {
      const data = expectData(
        await gql(`{ user(id: 2) { ${USER_FIELDS} posts { id authorId } } users(first: 2) { totalCount nodes { id } edges { cursor } pageInfo { hasNextPage endCursor } } nobody: user(id: 999999) { id } }`),
      );
      expect(data.user).toMatchObject({ id: 2, name: 'Alice Author', email: 'alice@example.com', role: 'AUTHOR' });
      expect(data.user.createdAt).toMatch(ISO);
      const ids = data.user.posts.map((post: { id: number }) => post.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(data.user.posts.every((post: { authorId: number }) => post.authorId === 2)).toBe(true);
      expect(data.users.nodes).toEqual([{ id: 1 }, { id: 2 }]);
      expect(data.users.pageInfo).toEqual({ hasNextPage: true, endCursor: cursorOf(2) });
      expect(data.users.totalCount).toBeGreaterThanOrEqual(3);
      expect(data.nobody).toBeNull();
      for (const field of ['passwordHash', 'password', 'version']) {
        expectError(await graphql(app, `{ user(id: 1) { ${field} } }`, undefined, { checkLeaks: false }), 'GRAPHQL_VALIDATION_FAILED');
      }
      expectError(await gql('{ post(id: 1) { version } }'), 'GRAPHQL_VALIDATION_FAILED');
      expectError(await gql('{ comment(id: 1) { version } }'), 'GRAPHQL_VALIDATION_FAILED');
      const types = expectData(await gql('{ __type(name: "User") { fields { name } } }'));
      expect(types.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(
        ['avatarUrl', 'commentsBlocked', 'createdAt', 'email', 'id', 'name', 'posts', 'role', 'updatedAt'],
      );
    });

    it('users: pages through every user once', async () => {
      const first = expectData(await gql('{ users(first: 1) { nodes { id } pageInfo { endCursor } } }'));
      const next = expectData(await gql('query($a: String) { users(first: 1, after: $a) { nodes { id } } }', { a: first.users.pageInfo.endCursor }));
      expect(first.users.nodes).toEqual([{ id: 1 }]);
      expect(next.users.nodes).toEqual([{ id: 2 }]);
    });

    it('comment: with its post and author; null when missing', async () => {
      const data = expectData(await gql(`{ comment(id: 3) { ${COMMENT_FIELDS} post { id title } author { id name } } none: comment(id: 999999) { id } }`));
      expect(data.comment).toMatchObject({ id: 3, body: 'XML too? Nice.', postId: 2, authorId: 3, post: { id: 2, title: 'Content negotiation' }, author: { id: 3, name: 'Bob Writer' } });
      expect(data.none).toBeNull();
    });

    it('me: null when anonymous, the signed-in user otherwise', async () => {
      expect(expectData(await gql('{ me { id } }')).me).toBeNull();
      expect(expectData(await gql('{ me { id email role } }', undefined, app.tokens.alice)).me).toEqual({ id: 2, email: 'alice@example.com', role: 'AUTHOR' });
      expect(expectData(await gql('{ me { id role } }', undefined, app.tokens.admin)).me).toEqual({ id: 1, role: 'ADMIN' });
    });

    it('a bad token is 401 UNAUTHENTICATED with WWW-Authenticate, even for a public query', async () => {
      for (const authorization of ['Bearer not.a.jwt', 'Basic abc', `Bearer ${app.tokens.alice}x`]) {
        const result = await graphql(app, '{ posts { totalCount } }', undefined, { headers: { authorization } });
        expect(result.status).toBe(401);
        expect(result.response.headers['www-authenticate']).toBe('Bearer');
        expectError(result, 'UNAUTHENTICATED');
        expect(result.body.data).toBeUndefined();
      }
    });
  });

  describe('errors', () => {
    it('GRAPHQL_PARSE_FAILED (400) for a syntax error, with its location', async () => {
      const result = await gql('{ post(id: 1) { title ');
      expect(result.status).toBe(400);
      const error = expectError(result, 'GRAPHQL_PARSE_FAILED');
      expect(error.locations).toEqual([{ line: 1, column: expect.any(Number) }]);
      expect(result.body.data).toBeUndefined();
    });

    it('GRAPHQL_VALIDATION_FAILED (400) for an unknown field or a wrong argument', async () => {
      for (const query of ['{ post(id: 1) { nope } }', '{ post(id: "one") { id } }', '{ post(id: 1, nope: 2) { id } }', 'mutation { nothing }']) {
        const result = await gql(query);
        expect(result.status).toBe(400);
        expect(result.body.data).toBeUndefined();
        expect(result.body.errors!.every((error) => error.extensions.code === 'GRAPHQL_VALIDATION_FAILED')).toBe(true);
      }
    });

    it('BAD_USER_INPUT (400) for variables that do not fit their types', async () => {
      for (const variables of [{ id: 'one' }, { id: null }, {}, { id: 1.5 }, { id: 2 ** 40 }]) {
        const result = await gql(POST_PAGE, variables);
        expect(result.status).toBe(400);
        expect(result.body.data).toBeUndefined();
        expectError(result, 'BAD_USER_INPUT');
      }
      const input = await gql('mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', { input: { title: 'x', body: 'y', extra: 1 } }, app.tokens.alice);
      expect(input.status).toBe(400);
      expectError(input, 'BAD_USER_INPUT');
    });

    it('a partial result: the failing field is null with its error, the rest of the query still answers (HTTP 200)', async () => {
      const result = await gql(`{
        good: post(id: 1) { id title }
        missing: post(id: 999999) { id }
        broken: post(id: 2) { id comments(first: 0) { id } }
        comment(id: 1) { id }
      }`);
      expect(result.status).toBe(200);
      expect(result.body.data).toEqual({ good: { id: 1, title: 'Welcome to the blog service' }, missing: null, broken: null, comment: { id: 1 } });
      expectError(result, 'BAD_USER_INPUT', ['broken', 'comments']);
    });

    it('nulls bubble through non-null fields to the nearest nullable parent', async () => {
      // Post.comments is [Comment!]! and User.posts [Post!]!: a failure inside nulls the user.
      const nested = await gql('{ user(id: 2) { id posts { id comments(first: 0) { id } } } other: user(id: 3) { id } }');
      expect(nested.status).toBe(200);
      expect(nested.body.data).toEqual({ user: null, other: { id: 3 } });
      expect(nested.body.errors!.length).toBeGreaterThanOrEqual(1);
      for (const error of nested.body.errors!) {
        expect(error.extensions.code).toBe('BAD_USER_INPUT');
        expect(error.path).toEqual(['user', 'posts', expect.any(Number), 'comments']);
      }
      // Mutation fields are non-null: a failing one nulls the whole data.
      const mutation = await gql('mutation { createPost(input: { title: "t", body: "b" }) { id } }');
      expect(mutation.status).toBe(200);
      expect(mutation.body.data).toBeNull();
      expectError(mutation, 'UNAUTHENTICATED', ['createPost']);
    });

    it('INTERNAL_SERVER_ERROR with a masked message, and SERVICE_UNAVAILABLE for an unreachable database', async () => {
      const posts = app.app.get(PostFinder);
      // The fault is the resolvers' read (a planned post page reads through its own statement).
      const planner = app.app.get(QueryPlanner);
      planner.enabled = false;
      onTestFinished(() => {
        planner.enabled = true;
      });
      const spy = vi.spyOn(posts, 'findByIds').mockRejectedValueOnce(new Error('SELECT password_hash FROM users -- at /work/src/x.ts:1:1'));
      const internal = await gql('{ post(id: 1) { id } comment(id: 1) { id } }');
      expect(internal.status).toBe(200);
      expect(internal.body.data).toEqual({ post: null, comment: { id: 1 } });
      expect(expectError(internal, 'INTERNAL_SERVER_ERROR', ['post']).message).toBe('Internal server error');
      spy.mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
      const down = await gql('{ post(id: 1) { id } }');
      const error = expectError(down, 'SERVICE_UNAVAILABLE', ['post']);
      expect(error.message).not.toContain('5432');
      expect(error.extensions.retryAfter).toBe(5);
      spy.mockRestore();
    });

    it('INTERNAL_SERVER_ERROR for a null in a non-null field (a bug), masked', async () => {
      const comments = app.app.get(CommentsService);
      const spy = vi.spyOn(comments, 'countForPosts').mockResolvedValueOnce(new Map([[1, Number.NaN]]));
      const result = await gql('{ post(id: 1) { id commentCount } }');
      expect(result.body.data).toEqual({ post: null });
      expect(expectError(result, 'INTERNAL_SERVER_ERROR', ['post', 'commentCount']).message).toBe('Internal server error');
      spy.mockRestore();
    });
  });

  describe('Mutation: users and tokens', () => {
    it('createUser: anyone signs up an author; the e-mail is unique (CONFLICT)', async () => {
      const email = `Sign-Up-${randomBytes(3).toString('hex')}@Example.com`;
      const input = { name: '  Carol  ', email, password: 'carol-password', avatarUrl: 'https://example.com/c.png' };
      const data = expectData(await gql(`mutation($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`, { input }));
      expect(data.createUser).toMatchObject({ name: 'Carol', email: email.toLowerCase(), role: 'AUTHOR', avatarUrl: 'https://example.com/c.png' });
      const again = await gql('mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', { input: { ...input, email: email.toUpperCase() } });
      expect(again.status).toBe(200);
      expect(again.body.data).toBeNull();
      expectError(again, 'CONFLICT', ['createUser']);
    });

    it.each([
      ['an empty name', { name: ' ' }, 'name'],
      ['a bad e-mail', { email: 'nope' }, 'email'],
      ['a short password', { password: 'short' }, 'password'],
      ['an ftp avatar', { avatarUrl: 'ftp://example.com/a.png' }, 'avatarUrl'],
    ])('createUser: BAD_USER_INPUT for %s, naming the field', async (_case, override, field) => {
      const input = { name: 'Dan', email: `dan-${randomBytes(3).toString('hex')}@example.com`, password: 'dan-password', ...override };
      const result = await gql('mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', { input });
      const error = expectError(result, 'BAD_USER_INPUT', ['createUser']);
      expect(error.extensions.fieldErrors).toEqual([{ field, message: expect.any(String) }]);
    });

    it('createToken: a token that works; UNAUTHENTICATED for a wrong password or an unknown e-mail', async () => {
      const data = expectData(await gql('mutation { createToken(input: { email: "bob@example.com", password: "bob-password" }) { accessToken tokenType expiresIn } }'));
      expect(data.createToken).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: expect.any(Number) });
      expect(expectData(await gql('{ me { id } }', undefined, data.createToken.accessToken)).me).toEqual({ id: 3 });
      for (const input of [{ email: 'bob@example.com', password: 'wrong-password' }, { email: 'nobody@example.com', password: 'bob-password' }]) {
        const result = await gql('mutation($input: CreateTokenInput!) { createToken(input: $input) { accessToken } }', { input });
        expect(result.body.data).toBeNull();
        expectError(result, 'UNAUTHENTICATED', ['createToken']);
      }
      const tooLong = await gql('mutation($e: String!) { createToken(input: { email: $e, password: "x" }) { accessToken } }', { e: `${'a'.repeat(320)}@example.com` });
      expectError(tooLong, 'BAD_USER_INPUT', ['createToken']);
    });

    it('updateUser: the user or an admin; role by admins only', async () => {
      const user = await newAuthor();
      const update = (id: number, input: Record<string, unknown>, token?: string) =>
        gql(`mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`, { id, input }, token);
      expectError(await update(user.id, { name: 'Anon' }), 'UNAUTHENTICATED', ['updateUser']);
      expectError(await update(user.id, { name: 'Bob was here' }, app.tokens.bob), 'FORBIDDEN', ['updateUser']);
      expect(expectData(await update(user.id, { name: ' Myself ', avatarUrl: 'https://example.com/me.png' }, user.token)).updateUser).toMatchObject({ name: 'Myself', avatarUrl: 'https://example.com/me.png' });
      expect(expectData(await update(user.id, { avatarUrl: null }, user.token)).updateUser.avatarUrl).toBeNull();
      expectError(await update(user.id, { role: 'ADMIN' }, user.token), 'FORBIDDEN', ['updateUser']);
      expect(expectData(await update(user.id, { name: 'By Admin', role: 'ADMIN' }, app.tokens.admin)).updateUser).toMatchObject({ name: 'By Admin', role: 'ADMIN' });
      // The REST API's lower-case strings are no Role values.
      expect((await request(app.server).get(`/users/${user.id}`).expect(200)).body.role).toBe('admin');
      expect(expectData(await gql(`mutation($id: Int!) { updateUser(id: $id, input: { role: AUTHOR }) { role } }`, { id: user.id }, app.tokens.admin)).updateUser).toEqual({ role: 'AUTHOR' });
      expectError(await update(999999, { name: 'Ghost' }, app.tokens.admin), 'NOT_FOUND', ['updateUser']);
      for (const role of ['owner', 'admin']) expectError(await update(user.id, { role }, app.tokens.admin), 'BAD_USER_INPUT');
      expectError(await gql(`mutation($id: Int!) { updateUser(id: $id, input: { role: "ADMIN" }) { id } }`, { id: user.id }, app.tokens.admin), 'GRAPHQL_VALIDATION_FAILED');
      for (const [input, field] of [[{ name: null }, 'name'], [{ password: 'short' }, 'password'], [{ role: null }, 'role']] as const) {
        const error = expectError(await update(user.id, input, app.tokens.admin), 'BAD_USER_INPUT', ['updateUser']);
        expect(error.extensions.fieldErrors).toEqual([{ field, message: expect.any(String) }]);
      }
      // A new password works for sign-in.
      expectData(await update(user.id, { password: 'a-new-password', currentPassword: 'graphql-password' }, user.token));
      expectData(await gql('mutation($e: String!) { createToken(input: { email: $e, password: "a-new-password" }) { accessToken } }', { e: user.email }));
    });

    it('deleteUser: the user or an admin; returns the id and takes their posts and comments along', async () => {
      const user = await newAuthor();
      const post = await newPost(user.token);
      const comment = await newComment(app.tokens.alice, post.id);
      const remove = (id: number, token?: string) => gql('mutation($id: Int!) { deleteUser(id: $id) }', { id }, token);
      expectError(await remove(user.id), 'UNAUTHENTICATED', ['deleteUser']);
      expectError(await remove(user.id, app.tokens.bob), 'FORBIDDEN', ['deleteUser']);
      expect(expectData(await remove(user.id, user.token))).toEqual({ deleteUser: user.id });
      const gone = expectData(await gql('query($u: Int!, $p: Int!, $c: Int!) { user(id: $u) { id } post(id: $p) { id } comment(id: $c) { id } }', { u: user.id, p: post.id, c: comment.id }));
      expect(gone).toEqual({ user: null, post: null, comment: null });
      const other = await newAuthor();
      expect(expectData(await remove(other.id, app.tokens.admin))).toEqual({ deleteUser: other.id });
      expectError(await remove(other.id, app.tokens.admin), 'NOT_FOUND', ['deleteUser']);
    });
  });

  describe('Mutation: posts', () => {
    it('createPost: signed in; the author is the caller; the title is trimmed', async () => {
      expectError(await gql('mutation { createPost(input: { title: "t", body: "b" }) { id } }'), 'UNAUTHENTICATED', ['createPost']);
      const data = expectData(await gql(`mutation { createPost(input: { title: "  Spaced  ", body: "Body" }) { ${POST_FIELDS} author { name } comments { id } commentCount } }`, undefined, app.tokens.bob));
      expect(data.createPost).toMatchObject({ title: 'Spaced', body: 'Body', authorId: 3, author: { name: 'Bob Writer' }, comments: [], commentCount: 0 });
      expect(data.createPost.createdAt).toMatch(ISO);
      const read = expectData(await gql('query($id: Int!) { post(id: $id) { title authorId } }', { id: data.createPost.id }));
      expect(read.post).toEqual({ title: 'Spaced', authorId: 3 });
    });

    it('createPost: authorId is for admins only', async () => {
      expectError(await gql('mutation { createPost(input: { title: "t", body: "b", authorId: 2 }) { id } }', undefined, app.tokens.bob), 'FORBIDDEN', ['createPost']);
      const own = expectData(await gql('mutation { createPost(input: { title: "t", body: "b", authorId: 3 }) { authorId } }', undefined, app.tokens.bob));
      expect(own.createPost.authorId).toBe(3);
      const data = expectData(await gql('mutation { createPost(input: { title: "For Alice", body: "b", authorId: 2 }) { authorId } }', undefined, app.tokens.admin));
      expect(data.createPost.authorId).toBe(2);
      expectError(await gql('mutation { createPost(input: { title: "t", body: "b", authorId: 999999 }) { id } }', undefined, app.tokens.admin), 'BAD_USER_INPUT', ['createPost']);
    });

    it.each([
      ['an empty title', { title: '   ', body: 'b' }, 'title'],
      ['a title of 201 characters', { title: 't'.repeat(201), body: 'b' }, 'title'],
      ['an empty body', { title: 't', body: '' }, 'body'],
      ['a body of 100001 characters', { title: 't', body: 'b'.repeat(100_001) }, 'body'],
    ])('createPost: BAD_USER_INPUT for %s', async (_case, input, field) => {
      const result = await gql('mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', { input }, app.tokens.alice);
      expect(result.body.data).toBeNull();
      const error = expectError(result, 'BAD_USER_INPUT', ['createPost']);
      expect(error.extensions.fieldErrors).toEqual([{ field, message: expect.any(String) }]);
    });

    it('updatePost: its author or an admin; NOT_FOUND for a missing post; null is refused', async () => {
      const post = await newPost(app.tokens.alice, 'Original');
      const update = (id: number, input: Record<string, unknown>, token?: string) =>
        gql('mutation($id: Int!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { id title body updatedAt } }', { id, input }, token);
      expectError(await update(post.id, { title: 'x' }), 'UNAUTHENTICATED', ['updatePost']);
      expectError(await update(post.id, { title: 'x' }, app.tokens.bob), 'FORBIDDEN', ['updatePost']);
      expect(expectData(await update(post.id, { title: ' By Alice ' }, app.tokens.alice)).updatePost).toMatchObject({ id: post.id, title: 'By Alice', body: 'Body' });
      expect(expectData(await update(post.id, { body: 'By the admin' }, app.tokens.admin)).updatePost).toMatchObject({ title: 'By Alice', body: 'By the admin' });
      expectError(await update(999999, { title: 'x' }, app.tokens.admin), 'NOT_FOUND', ['updatePost']);
      for (const input of [{ title: null }, { body: null }, { title: '' }]) {
        expectError(await update(post.id, input, app.tokens.alice), 'BAD_USER_INPUT', ['updatePost']);
      }
      expect(expectError(await update(post.id, { title: null }, app.tokens.alice), 'BAD_USER_INPUT', ['updatePost']).message).toContain('title must not be null');
      expect(expectData(await gql('query($id: Int!) { post(id: $id) { title body } }', { id: post.id })).post).toEqual({ title: 'By Alice', body: 'By the admin' });
    });

    it('deletePost: its author or an admin; returns the id and deletes its comments', async () => {
      const post = await newPost(app.tokens.alice);
      const comment = await newComment(app.tokens.bob, post.id);
      const remove = (id: number, token?: string) => gql('mutation($id: Int!) { deletePost(id: $id) }', { id }, token);
      expectError(await remove(post.id), 'UNAUTHENTICATED', ['deletePost']);
      expectError(await remove(post.id, app.tokens.bob), 'FORBIDDEN', ['deletePost']);
      // The first deletePost trashes (gone for others, there for its author), the second deletes for good.
      const read = (token?: string) => gql('query($p: Int!, $c: Int!) { post(id: $p) { id status } comment(id: $c) { id } }', { p: post.id, c: comment.id }, token);
      expect(expectData(await remove(post.id, app.tokens.alice))).toEqual({ deletePost: post.id });
      expect(expectData(await read())).toEqual({ post: null, comment: null });
      expect(expectData(await read(app.tokens.bob))).toEqual({ post: null, comment: null });
      expect(expectData(await read(app.tokens.alice))).toEqual({ post: { id: post.id, status: 'TRASHED' }, comment: { id: comment.id } });
      expect(expectData(await remove(post.id, app.tokens.alice))).toEqual({ deletePost: post.id });
      expect(expectData(await read(app.tokens.alice))).toEqual({ post: null, comment: null });
      expectError(await remove(post.id, app.tokens.alice), 'NOT_FOUND', ['deletePost']);
      const other = await newPost(app.tokens.bob);
      expect(expectData(await remove(other.id, app.tokens.admin))).toEqual({ deletePost: other.id });
    });

    it('runs the top-level fields of a mutation one after another, in order', async () => {
      const data = expectData(
        await gql(
          `mutation Two {
            first: createPost(input: { title: "First", body: "1" }) { id title }
            second: createPost(input: { title: "Second", body: "2" }) { id title }
            third: createPost(input: { title: "Third", body: "3" }) { id title }
          }`,
          undefined,
          app.tokens.alice,
        ),
      );
      expect(Object.keys(data)).toEqual(['first', 'second', 'third']);
      expect(data.first.title).toBe('First');
      expect(data.second.id).toBeGreaterThan(data.first.id);
      expect(data.third.id).toBeGreaterThan(data.second.id);
    });

    it('a failing mutation field nulls the result but keeps what ran before it', async () => {
      const result = await gql(
        `mutation {
          ok: createPost(input: { title: "Kept", body: "b" }) { id }
          denied: updatePost(id: 1, input: { title: "Not Alice's to change" }) { id }
        }`,
        undefined,
        app.tokens.bob,
      );
      expect(result.body.data).toBeNull();
      expectError(result, 'FORBIDDEN', ['denied']);
      const kept = expectData(await gql('{ posts(first: 1, authorId: 3) { nodes { title } } }'));
      expect(kept.posts.nodes).toEqual([{ title: 'Kept' }]);
      expect(expectData(await gql('{ post(id: 1) { title } }')).post.title).toBe('Welcome to the blog service');
    });
  });

  describe('Mutation: comments', () => {
    it('createComment: signed in; on an existing post; the body is validated', async () => {
      const post = await newPost(app.tokens.bob);
      const create = (input: Record<string, unknown>, token?: string) =>
        gql(`mutation($input: CreateCommentInput!) { createComment(input: $input) { ${COMMENT_FIELDS} author { name } post { id } } }`, { input }, token);
      expectError(await create({ postId: post.id, body: 'Hi' }), 'UNAUTHENTICATED', ['createComment']);
      const data = expectData(await create({ postId: post.id, body: 'Hi from Alice' }, app.tokens.alice));
      expect(data.createComment).toMatchObject({ postId: post.id, body: 'Hi from Alice', authorId: 2, author: { name: 'Alice Author' }, post: { id: post.id } });
      expectError(await create({ postId: 999999, body: 'Hi' }, app.tokens.alice), 'NOT_FOUND', ['createComment']);
      for (const [input, field] of [[{ postId: post.id, body: '' }, 'body'], [{ postId: post.id, body: 'x'.repeat(10_001) }, 'body'], [{ postId: 0, body: 'Hi' }, 'postId']] as const) {
        const error = expectError(await create(input, app.tokens.alice), 'BAD_USER_INPUT', ['createComment']);
        expect(error.extensions.fieldErrors).toEqual([{ field, message: expect.any(String) }]);
      }
      const read = expectData(await gql('query($id: Int!) { post(id: $id) { commentCount comments { body } } }', { id: post.id }));
      expect(read.post).toEqual({ commentCount: 1, comments: [{ body: 'Hi from Alice' }] });
    });

    it('updateComment and deleteComment: its author or an admin', async () => {
      const post = await newPost(app.tokens.bob);
      const comment = await newComment(app.tokens.alice, post.id);
      const update = (id: number, body: unknown, token?: string) =>
        gql('mutation($id: Int!, $body: String!) { updateComment(id: $id, input: { body: $body }) { id body } }', { id, body }, token);
      const remove = (id: number, token?: string) => gql('mutation($id: Int!) { deleteComment(id: $id) }', { id }, token);
      expectError(await update(comment.id, 'x'), 'UNAUTHENTICATED', ['updateComment']);
      expectError(await update(comment.id, 'x', app.tokens.bob), 'FORBIDDEN', ['updateComment']);
      expect(expectData(await update(comment.id, 'Edited', app.tokens.alice)).updateComment).toEqual({ id: comment.id, body: 'Edited' });
      expect(expectData(await update(comment.id, 'Moderated', app.tokens.admin)).updateComment).toEqual({ id: comment.id, body: 'Moderated' });
      expectError(await update(comment.id, '', app.tokens.alice), 'BAD_USER_INPUT', ['updateComment']);
      expectError(await update(999999, 'x', app.tokens.admin), 'NOT_FOUND', ['updateComment']);
      expectError(await remove(comment.id), 'UNAUTHENTICATED', ['deleteComment']);
      expectError(await remove(comment.id, app.tokens.bob), 'FORBIDDEN', ['deleteComment']);
      expect(expectData(await remove(comment.id, app.tokens.alice))).toEqual({ deleteComment: comment.id });
      expectError(await remove(comment.id, app.tokens.admin), 'NOT_FOUND', ['deleteComment']);
      const another = await newComment(app.tokens.alice, post.id);
      expect(expectData(await remove(another.id, app.tokens.admin))).toEqual({ deleteComment: another.id });
    });
  });
});

/** The service's opaque keyset cursor for an id (what REST's Link and GraphQL's cursors carry). */
function cursorOf(id: number): string {
  return Buffer.from(`v1:${id}`).toString('base64url');
}

describe('createToken and the sign-in rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp('sqlite', { env: { RATE_LIMIT_AUTH_MAX: '3', RATE_LIMIT_WINDOW_S: '60' } });
  });
  afterAll(() => limited?.close());

  it('counts createToken with POST /tokens: RATE_LIMITED with its path and retryAfter once over', async () => {
    const signIn = 'mutation { createToken(input: { email: "alice@example.com", password: "wrong-password" }) { accessToken } }';
    expectError(await graphql(limited, signIn), 'UNAUTHENTICATED', ['createToken']);
    await request(limited.server).post('/tokens').send({ email: 'alice@example.com', password: 'wrong-password' }).expect(401);
    expectError(await graphql(limited, signIn), 'UNAUTHENTICATED', ['createToken']);
    const result = await graphql(limited, signIn);
    expect(result.status).toBe(200);
    expect(result.body.data).toBeNull();
    const error = expectError(result, 'RATE_LIMITED', ['createToken']);
    expect(error.extensions.retryAfter).toEqual(expect.any(Number));
  });
});
