import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { PostPagePlanner, type PlannedRequest } from '../src/api/graphql/plans/post-page-planner.js';
import { Sql } from '../src/common/persistence/sql.js';
import { bearer, tokenFor } from './support/auth.js';
import { type CallerName, createPostWith, type EditorialPost, type PostStatus, signInCallers, STATES } from './support/editorial.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 43's proof that a plan changes nothing but the speed: every post-page document of the
 * suite (the bench's, graphql-batching's, the visibility matrix's, and wider ones with every
 * planned field, aliases, __typename, literals and `first`) is run with plans on and off on the
 * same database, for ALICE's posts in every state (each with comments in every moderation
 * status, replies and tags), by every kind of reader, and the answers must be the same bytes.
 * The planner's answers are counted, so a document that silently fell back cannot pass as planned.
 */

/** The bench's documents (bench/shared.mjs, untyped: read at start). */
const BENCH_MODULE = '../bench/shared.mjs';
const bench = { POST_PAGE_QUERY: '', POST_PAGE_TAGS_QUERY: '', POST_PAGE_HTML_QUERY: '' };

const ALL_POST_FIELDS =
  'id title slug body bodyFormat bodyHtml excerpt readingTimeMinutes metaTitle metaDescription canonicalUrl coverImageId locale authorId status publishAt publishedAt trashedAt createdAt updatedAt';
const ALL_COMMENT_FIELDS = 'id postId parentId status body bodyHtml authorId createdAt updatedAt';

/** graphql-batching's post page and the visibility matrix's post query. */
const BATCHING_POST_PAGE = 'query($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } } }';
const MATRIX_POST_QUERY = 'query($id: Int!) { post(id: $id) { id title status publishAt publishedAt trashedAt } }';

/** Every planned field, with aliases and __typename at each level. */
const WIDE_QUERY = `query Wide($id: Int!) { __typename_probe: post(id: $id) { __typename ${ALL_POST_FIELDS} writer: author { __typename id name avatarUrl }
  comments { __typename ${ALL_COMMENT_FIELDS} by: author { id name avatarUrl __typename } } tags { __typename id name slug createdAt updatedAt } } }`;

const FIRST_QUERY = 'query First($id: Int!, $first: Int) { post(id: $id) { id comments(first: $first) { id status parentId author { name } } } }';

interface Document {
  name: string;
  query: (postId: number) => string;
  variables?: (postId: number) => Record<string, unknown>;
  /** Whether the planner answers it (false: it must fall back, and still answer the same). */
  planned: boolean;
}

const byId = (postId: number) => ({ id: postId });

const DOCUMENTS: Document[] = [
  { name: 'the bench post page', query: () => bench.POST_PAGE_QUERY, variables: byId, planned: true },
  { name: 'the bench post page + tags', query: () => bench.POST_PAGE_TAGS_QUERY, variables: byId, planned: true },
  { name: 'the bench Markdown post page', query: () => bench.POST_PAGE_HTML_QUERY, variables: byId, planned: true },
  { name: 'graphql-batching’s post page', query: () => BATCHING_POST_PAGE, variables: byId, planned: true },
  { name: 'the visibility matrix’s post query', query: () => MATRIX_POST_QUERY, variables: byId, planned: true },
  { name: 'every planned field, aliased', query: () => WIDE_QUERY, variables: byId, planned: true },
  { name: 'a literal id, comments(first: 2)', query: (id) => `{ post(id: ${id}) { title comments(first: 2) { id body author { name } } tags { slug } } }`, planned: true },
  { name: 'comments(first: $first) = 1', query: () => FIRST_QUERY, variables: (id) => ({ id, first: 1 }), planned: true },
  { name: 'comments(first: $first) = 100', query: () => FIRST_QUERY, variables: (id) => ({ id, first: 100 }), planned: true },
  { name: 'comments(first: $first) not given', query: () => FIRST_QUERY, variables: byId, planned: true },
  // Declined: the answer is the resolvers' either way.
  { name: 'comments(first: 0) (refused by validation)', query: () => FIRST_QUERY, variables: (id) => ({ id, first: 0 }), planned: false },
  { name: 'commentCount (not planned)', query: () => 'query($id: Int!) { post(id: $id) { title commentCount } }', variables: byId, planned: false },
  { name: 'a fragment (not planned)', query: () => 'query($id: Int!) { post(id: $id) { ...P } } fragment P on Post { title author { name } }', variables: byId, planned: false },
];

type Reader = CallerName | 'editor' | 'moderator';

describeEachDatabase('GraphQL plans: planned and unplanned post pages answer the same bytes', (kind) => {
  let app: TestApp;
  let planner: PostPagePlanner;
  let planned = 0;
  const tokens = new Map<Reader, string | undefined>();
  const posts = new Map<PostStatus | 'missing', number>();

  beforeAll(async () => {
    const shared = (await import(BENCH_MODULE)) as typeof bench;
    for (const name of Object.keys(bench) as (keyof typeof bench)[]) bench[name] = shared[name];
    expect(bench.POST_PAGE_QUERY).toContain('post(id: $id)');
    // No response cache: each answer is computed, in the mode it is asked in. Every comment starts pending.
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'off', COMMENTS_MODERATION: 'all' } });
    planner = app.app.get(PostPagePlanner);
    const run = planner.run.bind(planner);
    planner.run = async (plannedRequest: PlannedRequest) => {
      const data = await run(plannedRequest);
      if (data !== undefined) planned++;
      return data;
    };
    const callers = await signInCallers(app);
    for (const caller of Object.values(callers)) tokens.set(caller.name, caller.token);
    tokens.set('editor', await tokenFor(app, { email: 'editor@example.com', password: 'editor-password' }));
    tokens.set('moderator', await tokenFor(app, { email: 'moderator@example.com', password: 'moderator-password' }));
    const alice = tokens.get('alice')!;
    const admin = tokens.get('admin')!;
    const http = () => request(app.server);
    const comment = async (postId: number, token: string, body: string, parentId?: number) => {
      const response = await http().post(`/posts/${postId}/comments`).set(bearer(token)).send({ body, ...(parentId ? { parentId } : {}) });
      expect(response.status, response.text).toBe(201);
      return response.body as { id: number };
    };
    const moderate = async (id: number, status: string) => {
      const response = await http().patch(`/comments/${id}`).set(bearer(admin)).send({ status });
      expect(response.status, response.text).toBe(200);
    };
    for (const state of STATES) {
      const text = { title: `A ${state} post`, body: `# The ${state} post\n\nWith *Markdown*.`, bodyFormat: 'markdown', tags: ['News', 'how-to', 'a-b', 'ab'] };
      const status = state === 'published' || state === 'trashed' ? (state === 'trashed' ? 'draft' : undefined) : state;
      const post: EditorialPost = await createPostWith(app, alice, {
        ...text,
        ...(status ? { status } : {}),
        ...(state === 'scheduled' ? { publishAt: new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000).toISOString() } : {}),
      });
      // Approved, pending (ALICE's own), spam and hidden comments, and an approved reply.
      const approved = await comment(post.id, alice, `Approved on ${state}`);
      await moderate(approved.id, 'approved');
      await comment(post.id, alice, `Pending on ${state}`);
      await moderate((await comment(post.id, admin, `Spam on ${state}`)).id, 'spam');
      await moderate((await comment(post.id, alice, `Hidden on ${state}`)).id, 'hidden');
      await moderate((await comment(post.id, admin, `Reply on ${state}`, approved.id)).id, 'approved');
      if (state === 'published') {
        // BOB's pending comment: his own, seen by him alone (and the moderators).
        await comment(post.id, tokens.get('bob')!, 'Pending by BOB');
        for (let index = 0; index < 3; index++) await moderate((await comment(post.id, admin, `More ${index}`)).id, 'approved');
      }
      if (state === 'trashed') await http().delete(`/posts/${post.id}`).set(bearer(alice)).expect(204);
      posts.set(state, post.id);
    }
    posts.set('missing', 999_999);
  }, 120_000);
  afterAll(() => app?.close());

  const ask = async (document: Document, postId: number, token: string | undefined) => {
    const call = request(app.server).post('/graphql').set('content-type', 'application/json');
    if (token) void call.set(bearer(token));
    const response = await call.send(JSON.stringify({ query: document.query(postId), variables: document.variables?.(postId) }));
    return { status: response.status, type: response.headers['content-type'] as string, text: response.text };
  };

  const READERS: Reader[] = ['anonymous', 'bob', 'bobKey', 'alice', 'aliceKey', 'moderator', 'editor', 'admin', 'adminKey'];

  for (const document of DOCUMENTS) {
    describe(document.name, () => {
      it(`the same answer planned and unplanned, for every post state and reader (${document.planned ? 'planned' : 'declined'})`, async () => {
        let compared = 0;
        const before = planned;
        for (const [state, postId] of posts) {
          for (const reader of READERS) {
            const token = tokens.get(reader);
            planner.enabled = false;
            const unplanned = await ask(document, postId, token);
            planner.enabled = true;
            const answered = planned;
            const withPlan = await ask(document, postId, token);
            expect(withPlan, `${state} post, read by ${reader}`).toEqual(unplanned);
            expect(planned - answered, `${state} post, read by ${reader}: answered by the plan`).toBe(document.planned ? 1 : 0);
            compared++;
          }
        }
        expect(compared).toBe(posts.size * READERS.length);
        expect(planned - before).toBe(document.planned ? compared : 0);
      });
    });
  }

  it('a planned statement that fails leaves the request to the resolvers: their answer, as without a plan', async () => {
    const postId = posts.get('published')!;
    planner.enabled = false;
    const unplanned = await ask(DOCUMENTS[0], postId, undefined);
    planner.enabled = true;
    const spy = vi.spyOn(app.app.get(Sql), 'rows').mockRejectedValueOnce(new Error('the database went away'));
    onTestFinished(() => {
      spy.mockRestore();
    });
    const before = planned;
    expect(await ask(DOCUMENTS[0], postId, undefined)).toEqual(unplanned);
    expect(spy).toHaveBeenCalled();
    expect(planned).toBe(before);
  });

  it('the wide document shows what each reader may see: the published post’s comments differ by reader', async () => {
    // A check that the fixture exercises the scopes (were they equal, a forgotten condition could hide).
    const texts = new Set<string>();
    for (const reader of ['anonymous', 'bob', 'alice', 'moderator'] as Reader[]) texts.add((await ask(DOCUMENTS[5], posts.get('published')!, tokens.get(reader))).text);
    expect(texts.size).toBe(4);
    const draft = await ask(DOCUMENTS[5], posts.get('draft')!, undefined);
    expect(JSON.parse(draft.text)).toEqual({ data: { __typename_probe: null } });
  });
});
