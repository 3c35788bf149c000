import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { ADMIN, ALICE, BOB, tokenFor } from './support/auth.js';
import { expectData, expectError, graphql, metricValue, relayQuiet } from './support/graphql-client.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * SQL statements per GraphQL request, counted by the app itself (db_queries_total, fed by a
 * TypeORM logger that sees every statement). Related resources go through per-request
 * DataLoaders, so the count of a page does not grow with the number of items on it.
 */
const POST_PAGE = '{ post(id: $id) { title body author { name avatarUrl } comments { body author { name } } } }';
const FRONT_PAGE = '{ posts(first: 20) { nodes { author { name } comments { author { name } } } } }';

describeEachDatabase('GraphQL batching (SQL statements per request)', (kind) => {
  let app: TestApp;
  let tokens: string[];
  let busyPostId: number;

  /**
   * Runs a query anonymously and returns its data and how many SQL statements it sent. The event
   * relay and the post scheduler each read once a second in the background, and the counter
   * counts those reads too: the query runs three times and the smallest count is its own (on a
   * busy machine a run may take in a poll; three in a row do not). Each run's text differs by a
   * comment, so the response cache does not answer it.
   */
  async function measure(query: string, variables?: Record<string, unknown>) {
    const counts: number[] = [];
    let result: Awaited<ReturnType<typeof graphql>> | undefined;
    for (let run = 0; run < 3; run++) {
      const before = await metricValue(app, 'db_queries_total');
      result = await graphql(app, run === 0 ? query : `${query}\n# again ${run}`, variables);
      counts.push((await metricValue(app, 'db_queries_total')) - before);
    }
    return { result: result!, statements: Math.min(...counts) };
  }

  beforeAll(async () => {
    // Some pages below ask for more than the default cost budget admits (see graphql-limits), so this suite raises it.
    app = await startTestApp(kind, { env: { GRAPHQL_MAX_COST: '100000' } });
    tokens = await Promise.all([tokenFor(app, ADMIN), tokenFor(app, ALICE), tokenFor(app, BOB)]);
    for (let index = 0; index < 3; index++) {
      const email = `batch-${index}@example.com`;
      await graphql(app, 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', {
        input: { name: `Batch ${index}`, email, password: 'batch-password', avatarUrl: `https://example.com/${index}.png` },
      });
      const issued = await graphql(app, 'mutation($e: String!) { createToken(input: { email: $e, password: "batch-password" }) { accessToken } }', { e: email });
      tokens.push(expectData(issued).createToken.accessToken);
    }
    // 24 more posts by six authors, each with comments by several others; one busy post with 40 comments.
    for (let index = 0; index < 24; index++) {
      const author = tokens[index % tokens.length];
      const created = await graphql(app, 'mutation($t: String!) { createPost(input: { title: $t, body: "b" }) { id } }', { t: `Post ${index}` }, { token: author });
      const postId = expectData(created).createPost.id;
      const commenters = index % 4;
      for (let c = 0; c < commenters; c++) {
        await graphql(app, 'mutation($p: Int!) { createComment(input: { postId: $p, body: "c" }) { id } }', { p: postId }, { token: tokens[(index + c + 1) % tokens.length] });
      }
      busyPostId = postId;
    }
    for (let c = 0; c < 40; c++) {
      await graphql(app, 'mutation($p: Int!) { createComment(input: { postId: $p, body: "busy" }) { id } }', { p: busyPostId }, { token: tokens[c % tokens.length] });
    }
  }, 120_000);
  afterAll(() => app?.close());

  it('the post page is planned: 1 statement (the post, its author, the comments with theirs), with 2 comments or with 43', async () => {
    const small = await measure(`query($id: Int!) ${POST_PAGE}`, { id: 1 });
    expect(expectData(small.result).post.comments).toHaveLength(2);
    const busy = await measure(`query($id: Int!) ${POST_PAGE}`, { id: busyPostId });
    const { post } = expectData(busy.result);
    expect(post.comments).toHaveLength(43);
    expect(new Set(post.comments.map((comment: { author: { name: string } }) => comment.author.name)).size).toBe(6);
    console.log(`[${kind}] post page: ${small.statements} statements with 2 comments, ${busy.statements} with 43`);
    expect(small.statements).toBe(1);
    expect(busy.statements).toBe(1);
    expect(post.author.name).toEqual(expect.any(String));
  });

  it('the post page with its tags is planned too: 1 statement', async () => {
    const page = await measure(`query($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } tags { slug name } } }`, { id: busyPostId });
    expect(expectData(page.result).post.comments).toHaveLength(43);
    console.log(`[${kind}] post page with tags: ${page.statements} statements`);
    expect(page.statements).toBe(1);
  });

  it('posts(first: 20) with authors and comments with their authors: 1 statement planned, at most 4 through the resolvers', async () => {
    const planner = app.app.get(QueryPlanner);
    const counts: number[] = [];
    for (const enabled of [true, false]) {
      planner.enabled = enabled;
      try {
        // Another text of the same document for the second run: the response cache keeps the first's answer.
        const { result, statements } = await measure(enabled ? FRONT_PAGE : `${FRONT_PAGE}\n# through the resolvers`);
        const { posts } = expectData(result);
        expect(posts.nodes).toHaveLength(20);
        const comments = posts.nodes.flatMap((node: { comments: unknown[] }) => node.comments);
        expect(comments.length).toBeGreaterThan(40);
        console.log(`[${kind}] posts(first: 20) with authors and ${comments.length} comments with authors, ${enabled ? 'planned' : 'unplanned'}: ${statements} statements`);
        counts.push(statements);
      } finally {
        planner.enabled = true;
      }
    }
    expect(counts[0]).toBe(1);
    expect(counts[1]).toBeGreaterThan(1);
    expect(counts[1]).toBeLessThanOrEqual(4);
  });

  it('totalCount costs one COUNT, and only when selected (unplanned: the resolvers)', async () => {
    const planner = app.app.get(QueryPlanner);
    planner.enabled = false;
    onTestFinished(() => {
      planner.enabled = true;
    });
    const without = await measure('{ posts(first: 5) { nodes { id } } }');
    const withCount = await measure('{ posts(first: 5) { totalCount nodes { id } } }');
    expect(expectData(withCount.result).posts.totalCount).toBe(29);
    expect(without.statements).toBe(1);
    expect(withCount.statements).toBe(2);
  });

  it('the plain list is planned: 1 statement with authors, tags, totalCount and hasPreviousPage, on a page after a cursor too', async () => {
    const LIST = `query($after: String) { posts(first: 10, after: $after) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
      edges { cursor node { id title author { name avatarUrl } tags { slug } } } } }`;
    const first = await measure(LIST);
    const { posts } = expectData(first.result);
    expect(posts.edges).toHaveLength(10);
    expect(posts.totalCount).toBe(29);
    expect(new Set(posts.edges.map((edge: { node: { author: { name: string } } }) => edge.node.author.name)).size).toBeGreaterThan(1);
    const next = await measure(LIST, { after: posts.pageInfo.endCursor });
    expect(expectData(next.result).posts.pageInfo.hasPreviousPage).toBe(true);
    console.log(`[${kind}] planned posts(first: 10): ${first.statements} statement, ${next.statements} after a cursor`);
    expect(first.statements).toBe(1);
    expect(next.statements).toBe(1);
  });

  it('user(id:) with its posts, their authors and tags is planned: 1 statement', async () => {
    const { result, statements } = await measure('query($id: Int!) { user(id: $id) { id name avatarUrl posts(first: 5) { title author { name } tags { slug } } } }', { id: 2 });
    expect(expectData(result).user.posts.length).toBeGreaterThan(0);
    expect(statements).toBe(1);
  });

  it('every list and relation is batched: users → posts → comments → post, author and counts', async () => {
    const query = `{ users(first: 10) { nodes { name posts(first: 10) { title commentCount author { name }
      comments(first: 10) { body author { name posts(first: 2) { id } } post { title } } } } } }`;
    const { result, statements } = await measure(query);
    const { users } = expectData(result);
    expect(users.nodes.length).toBeGreaterThanOrEqual(6);
    console.log(`[${kind}] users → posts → comments → authors → posts: ${statements} statements`);
    // users, posts per user, comment counts, comments with authors, posts per comment author (the rest is cached).
    expect(statements).toBeLessThanOrEqual(6);
  });

  it('aliased lookups by id share one statement per type', async () => {
    const { result, statements } = await measure(
      '{ a: post(id: 1) { id } b: post(id: 2) { id } c: post(id: 3) { id } u: user(id: 1) { id } v: user(id: 2) { id } x: comment(id: 1) { id } }',
    );
    expect(expectData(result)).toEqual({ a: { id: 1 }, b: { id: 2 }, c: { id: 3 }, u: { id: 1 }, v: { id: 2 }, x: { id: 1 } });
    expect(statements).toBe(3);
  });

  it('comments per post are paged in the same single statement (first/after per post); planned, the list and its comments are one', async () => {
    const query = '{ posts(first: 20) { nodes { id comments(first: 2) { id postId } } } }';
    const planner = app.app.get(QueryPlanner);
    planner.enabled = false;
    onTestFinished(() => {
      planner.enabled = true;
    });
    const { result, statements } = await measure(query);
    const { posts } = expectData(result);
    for (const node of posts.nodes) {
      expect(node.comments.length).toBeLessThanOrEqual(2);
      expect(node.comments.every((comment: { postId: number }) => comment.postId === node.id)).toBe(true);
    }
    expect(statements).toBe(2);
    planner.enabled = true;
    // Another text: the response cache keeps the answers above.
    const planned = await measure(`${query}\n# planned`);
    expect(planned.result.body).toEqual(result.body);
    expect(planned.statements).toBe(1);
  });

  // The signed-in user, then the write. For a comment the INSERT … RETURNING with its event and
  // its audit entry: on PostgreSQL one statement (their INSERTs made from the new row), on SQLite
  // BEGIN, the three INSERTs, COMMIT. And, counted or not yet when the metric is read, the relay's reads of the
  // event log (one on its own commit, one more on PostgreSQL when the NOTIFY arrives while that read runs).

  // A post is written in one transaction with its revision 1 (BEGIN, the post, its revision, its
  // event, COMMIT); a comment looks at its writer's standing (blocked? held under
  // COMMENTS_MODERATION? one statement) and at its post (the read policy and its events' audience) first.
  // Counted once the relay is quiet, so its read of the log after a write is in the count (PostgreSQL; one
  // more when the log's NOTIFY wakes it again); on SQLite a post's event is handed to the relay at the
  // commit and not read back. One more may be a background look (the scheduler's or the relay's
  // once-a-second timer), when the write is slow (a busy machine).
  // Two of them since §13: the free slug is looked up, and recorded in post_slugs (§15 adds none:
  // a post of a group of its own has no translation_group_id to set). On PostgreSQL the post, its
  // slug's claim, its revision, its audit entry and its event are one statement (issue 43): the
  // user, BEGIN, the slug's look-up, that statement, COMMIT, and the relay's reads.
  const POST_WRITE_STATEMENTS = kind === 'postgres' ? [5, 6, 7] : [8, 9];
  const COMMENT_WRITE_STATEMENTS = kind === 'postgres' ? [4, 5, 6, 7] : [8, 9];

  it('a new post costs the signed-in user and one transaction; a comment the user, its post, then its INSERT … RETURNING with its event and audit entry, atomically', async () => {
    const write = async (query: string, variables: Record<string, unknown>) => {
      await relayQuiet(app);
      const before = await metricValue(app, 'db_queries_total');
      const result = await graphql(app, query, variables, { token: tokens[1] });
      await relayQuiet(app);
      return { data: expectData(result), statements: (await metricValue(app, 'db_queries_total')) - before };
    };
    // As measure() does for reads: three writes of each kind, and the smallest count is a write's own
    // (on a busy machine one may take in a background look or two; three in a row do not).
    const threeWrites = async (query: string, input: (run: number) => Record<string, unknown>) => {
      const runs = [];
      for (let run = 0; run < 3; run++) runs.push(await write(query, { input: input(run) }));
      return { runs, statements: Math.min(...runs.map((run) => run.statements)) };
    };
    const posts = await threeWrites('mutation($input: CreatePostInput!) { createPost(input: $input) { id title createdAt } }', (run) => ({ title: `Counted ${run}`, body: 'b' }));
    posts.runs.forEach((post, run) => expect(post).toMatchObject({ data: { createPost: { title: `Counted ${run}` } } }));
    expect(POST_WRITE_STATEMENTS).toContain(posts.statements);
    const postId = posts.runs[0].data.createPost.id;
    const comments = await threeWrites('mutation($input: CreateCommentInput!) { createComment(input: $input) { id postId } }', (run) => ({ postId, body: `Counted too ${run}` }));
    for (const comment of comments.runs) expect(comment).toMatchObject({ data: { createComment: { postId } } });
    expect(COMMENT_WRITE_STATEMENTS).toContain(comments.statements);
    const missing = await graphql(app, 'mutation { createComment(input: { postId: 999999, body: "x" }) { id } }', undefined, { token: tokens[1] });
    expectError(missing, 'NOT_FOUND', ['createComment']);
  });

  describe('under the default limits', () => {
    let defaults: TestApp;
    beforeAll(async () => {
      defaults = await startTestApp(kind);
    });
    afterAll(() => defaults?.close());

    it('the front-page query with the default 50 comments per post fits the default cost budget; five times the posts do not', async () => {
      // 1 + 20 × (post 1 + author 1 + 50 × (comment 1 + author 1)) = 2041: scalars cost nothing (CONTRACT §18).
      expect(expectData(await graphql(defaults, FRONT_PAGE)).posts.nodes.length).toBe(5);
      const result = await graphql(defaults, FRONT_PAGE.replace('first: 20', 'first: 100'));
      expect(result.status).toBe(400);
      expect(expectError(result, 'COST_LIMIT_EXCEEDED').extensions.cost).toBe(1 + 100 * (1 + 1 + 50 * (1 + 1)));
      // Asking for fewer comments per post: 1 + 20 × (1 + 1 + 10 × 2) = 441.
      const fewer = await graphql(defaults, '{ posts(first: 20) { nodes { author { name } comments(first: 10) { author { name } } } } }');
      expect(expectData(fewer).posts.nodes.length).toBe(5);
    });
  });
});
