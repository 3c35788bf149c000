import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PlannedRequest } from '../src/api/graphql/plans/plan-completion.js';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { Sql } from '../src/common/persistence/sql.js';
import { encodeCursor } from '../src/common/pagination/cursor.js';
import { bearer, tokenFor } from './support/auth.js';
import { ADMIN_ID, ALICE_ID, BOB_ID, type CallerName, createPostWith, type EditorialPost, type PostStatus, signInCallers, STATES } from './support/editorial.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 43's proof that a plan changes nothing but the speed: every post-page document of the
 * suite (the bench's, graphql-batching's, the visibility matrix's, and wider ones with every
 * planned field, aliases, __typename, literals and `first`) is run with plans on and off on the
 * same database, for ALICE's posts in every state (each with comments in every moderation
 * status, replies and tags), by every kind of reader, and the answers must be the same bytes.
 * So are the list documents (`posts`: the visibility matrix's, every connection field, pages
 * after each kind of cursor, authorId, bad cursors and `first` out of range) over a database
 * holding posts in every state, and the `user(id:)` documents for each user and a missing one.
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
  /** Of a post's id (`over: 'posts'`, the default), a user's (`'users'`), or of nothing (`'list'`). */
  query: (subject: number) => string;
  variables?: (subject: number) => Record<string, unknown>;
  /** Whether the planner answers it (false: it must fall back, and still answer the same). */
  planned: boolean;
  over?: 'posts' | 'list' | 'users';
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

/** Cursors of the public list, read (unplanned) once the posts exist. */
const cursors = { second: '', last: '', publishedId: '', draftId: '' };

const LIST_PAGE = `query Page($after: String, $first: Int) { posts(first: $first, after: $after) {
  pageInfo { hasPreviousPage hasNextPage startCursor endCursor } edges { cursor node { id title publishedAt tags { slug } } } } }`;
const listAfter = (after: () => string, first = 2) => ({ query: () => LIST_PAGE, variables: () => ({ after: after(), first }), over: 'list' as const });
const BY_AUTHOR = 'query($author: Int) { posts(authorId: $author, first: 2) { totalCount nodes { id authorId } pageInfo { hasNextPage hasPreviousPage endCursor } } }';
const USER_PAGE = 'query User($id: Int!, $first: Int) { user(id: $id) { id name posts(first: $first) { title author { name } } } }';

const LIST_DOCUMENTS: Document[] = [
  { name: 'posts: the visibility matrix’s list', query: () => '{ posts(first: 100) { totalCount edges { node { id } } } }', planned: true, over: 'list' },
  {
    name: 'posts: every planned field, aliased, with __typename',
    query: () => `query Front($first: Int) { front: posts(first: $first) { __typename count: totalCount info: pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
      edges { __typename cursor rank snippet node { __typename ${ALL_POST_FIELDS} author { __typename id name avatarUrl } tags { __typename id name slug createdAt updatedAt } } }
      nodes { id heading: title by: author { name } labels: tags { slug } } } }`,
    variables: () => ({ first: 3 }),
    planned: true,
    over: 'list',
  },
  { name: 'posts: first not given (20)', query: () => '{ posts { nodes { id title } pageInfo { hasNextPage endCursor } } }', planned: true, over: 'list' },
  { name: 'posts: after the first page (a time cursor, by variable)', ...listAfter(() => cursors.second), planned: true },
  { name: 'posts: after the first page (a literal cursor)', query: () => `{ posts(first: 3, after: "${cursors.second}") { pageInfo { hasPreviousPage endCursor } nodes { id } } }`, planned: true, over: 'list' },
  { name: 'posts: after an id-only cursor of a published post', ...listAfter(() => cursors.publishedId), planned: true },
  { name: 'posts: after an id-only cursor of a draft', ...listAfter(() => cursors.draftId), planned: true },
  { name: 'posts: after the last post (an empty page)', ...listAfter(() => cursors.last), planned: true },
  { name: 'posts: after: null', ...listAfter(() => null as unknown as string, 100), planned: true },
  { name: 'posts(authorId: ALICE)', query: () => BY_AUTHOR, variables: () => ({ author: ALICE_ID }), planned: true, over: 'list' },
  { name: 'posts(authorId: null)', query: () => BY_AUTHOR, variables: () => ({ author: null }), planned: true, over: 'list' },
  { name: 'posts(authorId: a missing user)', query: () => BY_AUTHOR, variables: () => ({ author: 999_999 }), planned: true, over: 'list' },
  // Declined: the resolvers answer (their errors), planned or not.
  { name: 'posts: a bad cursor (declined)', ...listAfter(() => 'not-a-cursor'), planned: false },
  { name: 'posts: a cursor too long (declined)', ...listAfter(() => 'x'.repeat(1401)), planned: false },
  { name: 'posts(first: 0) (declined)', ...listAfter(() => cursors.second, 0), planned: false },
  { name: 'posts(first: 101) (declined)', ...listAfter(() => cursors.second, 101), planned: false },
  { name: 'posts(first: null) (declined)', ...listAfter(() => cursors.second, null as unknown as number), planned: false },
  { name: 'posts(authorId: 0) (declined)', query: () => BY_AUTHOR, variables: () => ({ author: 0 }), planned: false, over: 'list' },
  { name: 'posts: graphql-batching’s front page (comments inside)', query: () => '{ posts(first: 20) { nodes { author { name } comments { author { name } } } } }', planned: true, over: 'list' },
  {
    name: 'posts: comments(first: $first) inside, aliased, with every comment field',
    query: () => `query($first: Int) { posts(first: 20) { edges { node { id talk: comments(first: $first) { __typename ${ALL_COMMENT_FIELDS} by: author { id name } } } } } }`,
    variables: () => ({ first: 3 }),
    planned: true,
    over: 'list',
  },
  { name: 'posts: comments(first: 0) inside (declined)', query: () => 'query($first: Int) { posts(first: 4) { nodes { id comments(first: $first) { id } } } }', variables: () => ({ first: 0 }), planned: false, over: 'list' },
  { name: 'posts: commentCount (declined)', query: () => '{ posts(first: 4) { nodes { id commentCount } } }', planned: false, over: 'list' },
  { name: 'posts(orderBy: TITLE_ASC) (declined)', query: () => '{ posts(first: 3, orderBy: TITLE_ASC) { nodes { id } } }', planned: false, over: 'list' },
  { name: 'posts(status: DRAFT) (declined)', query: () => '{ posts(first: 3, status: DRAFT) { nodes { id } } }', planned: false, over: 'list' },
];

const USER_DOCUMENTS: Document[] = [
  { name: 'user: the visibility matrix’s user posts', query: (id) => `{ user(id: ${id}) { posts(first: 100) { id } } }`, planned: true, over: 'users' },
  {
    name: 'user: every planned field, aliased, with __typename',
    query: () => `query Who($id: Int!) { who: user(id: $id) { __typename id name avatarUrl written: posts { __typename ${ALL_POST_FIELDS} author { id name } tags { __typename slug name } } } }`,
    variables: (id) => ({ id }),
    planned: true,
    over: 'users',
  },
  { name: 'user: posts(first: $first) = 1', query: () => USER_PAGE, variables: (id) => ({ id, first: 1 }), planned: true, over: 'users' },
  { name: 'user: posts(first: $first) not given', query: () => USER_PAGE, variables: (id) => ({ id }), planned: true, over: 'users' },
  { name: 'user: posts with their comments', query: () => 'query($id: Int!) { user(id: $id) { name posts(first: 3) { id comments { id status body author { name } } } } }', variables: (id) => ({ id }), planned: true, over: 'users' },
  { name: 'user: posts(first: 0) (declined)', query: () => USER_PAGE, variables: (id) => ({ id, first: 0 }), planned: false, over: 'users' },
  { name: 'user: email (declined)', query: (id) => `{ user(id: ${id}) { id email } }`, planned: false, over: 'users' },
];

type Reader = CallerName | 'editor' | 'moderator';

describeEachDatabase('GraphQL plans: planned and unplanned post pages answer the same bytes', (kind) => {
  let app: TestApp;
  let planner: QueryPlanner;
  let planned = 0;
  const tokens = new Map<Reader, string | undefined>();
  const posts = new Map<PostStatus | 'missing', number>();

  beforeAll(async () => {
    const shared = (await import(BENCH_MODULE)) as typeof bench;
    for (const name of Object.keys(bench) as (keyof typeof bench)[]) bench[name] = shared[name];
    expect(bench.POST_PAGE_QUERY).toContain('post(id: $id)');
    // No response cache: each answer is computed, in the mode it is asked in. Every comment starts pending.
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'off', COMMENTS_MODERATION: 'all' } });
    planner = app.app.get(QueryPlanner);
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
    // More public posts, by two authors, some tagged: the list pages over them.
    for (let index = 0; index < 4; index++) {
      const token = tokens.get(index % 2 === 0 ? 'bob' : 'alice')!;
      await createPostWith(app, token, { title: `Public ${index}`, body: `Listed ${index}`, ...(index < 2 ? { tags: ['News', `list-${index}`] } : {}) });
    }
    planner.enabled = false;
    const list = async (query: string) => {
      const response = await http().post('/graphql').send({ query });
      expect(response.status, response.text).toBe(200);
      return response.body.data.posts as { pageInfo: { endCursor: string }; nodes: { id: number }[] };
    };
    cursors.second = (await list('{ posts(first: 2) { pageInfo { endCursor } nodes { id } } }')).pageInfo.endCursor;
    const all = await list('{ posts(first: 100) { pageInfo { endCursor } nodes { id } } }');
    cursors.last = all.pageInfo.endCursor;
    cursors.publishedId = encodeCursor(all.nodes[1].id);
    cursors.draftId = encodeCursor(posts.get('draft')!);
    planner.enabled = true;
  }, 120_000);
  afterAll(() => app?.close());

  const ask = async (document: Document, postId: number, token: string | undefined) => {
    const call = request(app.server).post('/graphql').set('content-type', 'application/json');
    if (token) void call.set(bearer(token));
    const response = await call.send(JSON.stringify({ query: document.query(postId), variables: document.variables?.(postId) }));
    return { status: response.status, type: response.headers['content-type'] as string, text: response.text };
  };

  const READERS: Reader[] = ['anonymous', 'bob', 'bobKey', 'alice', 'aliceKey', 'moderator', 'editor', 'admin', 'adminKey'];

  const users = new Map<string, number>([
    ['alice', ALICE_ID],
    ['bob', BOB_ID],
    ['admin', ADMIN_ID],
    ['missing', 999_999],
  ]);
  const subjectsOf = (document: Document): Map<string, number> => (document.over === 'list' ? new Map([['the list', 0]]) : document.over === 'users' ? users : posts);

  for (const document of [...DOCUMENTS, ...LIST_DOCUMENTS, ...USER_DOCUMENTS]) {
    describe(document.name, () => {
      it(`the same answer planned and unplanned, for every subject and reader (${document.planned ? 'planned' : 'declined'})`, async () => {
        let compared = 0;
        const before = planned;
        const subjects = subjectsOf(document);
        for (const [state, postId] of subjects) {
          for (const reader of READERS) {
            const token = tokens.get(reader);
            planner.enabled = false;
            const unplanned = await ask(document, postId, token);
            planner.enabled = true;
            const answered = planned;
            const withPlan = await ask(document, postId, token);
            expect(withPlan, `${state}, read by ${reader}`).toEqual(unplanned);
            expect(planned - answered, `${state}, read by ${reader}: answered by the plan`).toBe(document.planned ? 1 : 0);
            compared++;
          }
        }
        expect(compared).toBe(subjects.size * READERS.length);
        expect(planned - before).toBe(document.planned ? compared : 0);
      });
    });
  }

  /**
   * Asks with the next statement sent (Sql.rows) failing with `message`. The post scheduler and
   * the other background jobs send statements of their own every second: one of them may take the
   * failure, or send one more statement while the request runs. So this tries up to three times,
   * until `reached` says the failure went to the request. A path that is wrong every time still
   * fails.
   */
  const askFailing = async (
    document: Document,
    subject: number,
    message: string,
    reached: (tried: { answer: Awaited<ReturnType<typeof ask>>; calls: number; answeredByPlan: number }) => boolean,
  ) => {
    for (let attempt = 1; ; attempt++) {
      const spy = vi.spyOn(app.app.get(Sql), 'rows').mockRejectedValueOnce(new Error(message));
      const before = planned;
      try {
        const answer = await ask(document, subject, undefined);
        const tried = { answer, calls: spy.mock.calls.length, answeredByPlan: planned - before };
        if (reached(tried) || attempt === 3) return tried;
      } finally {
        spy.mockRestore();
      }
    }
  };
  const hasErrors = (answer: { text: string }) => (JSON.parse(answer.text) as { errors?: unknown[] }).errors !== undefined;

  it('a planned statement that fails leaves the request to the resolvers: their answer, as without a plan', async () => {
    const postId = posts.get('published')!;
    planner.enabled = false;
    const unplanned = await ask(DOCUMENTS[0], postId, undefined);
    planner.enabled = true;
    // Reached when the plan did not answer (a background job's statement would have taken the failure instead).
    const withPlan = await askFailing(DOCUMENTS[0], postId, 'the database went away', (tried) => tried.answeredByPlan === 0);
    expect(withPlan.answer).toEqual(unplanned);
    expect(withPlan.calls).toBeGreaterThan(0);
    expect(withPlan.answeredByPlan).toBe(0);
  });

  it('the database unavailable while a planned statement runs: the resolvers’ error and data, at once (one statement, no second wait)', async () => {
    for (const document of [DOCUMENTS[0], LIST_DOCUMENTS[1], USER_DOCUMENTS[2]]) {
      const subject = document.over === 'users' ? ALICE_ID : posts.get('published')!;
      const outage = 'Connection terminated unexpectedly';
      planner.enabled = false;
      const unplanned = await askFailing(document, subject, outage, (tried) => hasErrors(tried.answer));
      planner.enabled = true;
      // Reached when the answer has the error and no other statement was sent meanwhile.
      const withPlan = await askFailing(document, subject, outage, (tried) => hasErrors(tried.answer) && tried.calls === 1);
      expect(JSON.parse(unplanned.answer.text).errors[0].extensions.code, document.name).toBe('SERVICE_UNAVAILABLE');
      expect(withPlan.answer, document.name).toEqual(unplanned.answer);
      expect(withPlan.answeredByPlan, `${document.name}: answered by the plan`).toBe(1);
      expect(withPlan.calls, `${document.name}: statements sent`).toBe(1);
    }
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

/**
 * With translations (SUPPORTED_LOCALES > 1) a list shows each translation group once, in the
 * request's language (the `locale` argument, else Accept-Language, else DEFAULT_LOCALE, along
 * LOCALE_FALLBACKS): the planned list must choose the same post of each group, count groups alike
 * and page alike, for every way of asking for a language.
 */
describeEachDatabase('GraphQL plans: planned and unplanned lists in a language answer the same bytes', (kind) => {
  let app: TestApp;
  let planner: QueryPlanner;
  let planned = 0;
  const tokens = new Map<string, string | undefined>();
  let second = '';

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'off', SUPPORTED_LOCALES: 'en,de,de-CH,fr', LOCALE_FALLBACKS: 'de-CH:de' } });
    planner = app.app.get(QueryPlanner);
    const run = planner.run.bind(planner);
    planner.run = async (plannedRequest: PlannedRequest) => {
      const data = await run(plannedRequest);
      if (data !== undefined) planned++;
      return data;
    };
    const callers = await signInCallers(app);
    for (const name of ['anonymous', 'alice', 'admin'] as const) tokens.set(name, callers[name].token);
    const alice = tokens.get('alice')!;
    const bob = callers.bob.token!;
    // Groups in English with German, Swiss German and French translations (one a draft), German-only posts, a French draft group.
    for (let index = 0; index < 4; index++) {
      const token = index % 2 === 0 ? alice : bob;
      const source = await createPostWith(app, token, { title: `Group ${index}`, body: `English ${index}`, tags: [`group-${index}`] });
      await createPostWith(app, token, { title: `Gruppe ${index}`, body: `Deutsch ${index}`, locale: 'de', translationOf: { postId: source.id } });
      if (index % 2 === 0) await createPostWith(app, token, { title: `Gruppe CH ${index}`, body: `Schweiz ${index}`, locale: 'de-CH', translationOf: { postId: source.id } });
      if (index === 1) {
        await createPostWith(app, token, { title: `Groupe ${index}`, body: `Brouillon ${index}`, locale: 'fr', status: 'draft', translationOf: { postId: source.id } });
        // ALICE's translation in a group of BOB's: the list of her posts shows it (the best of her posts in the group).
        await createPostWith(app, tokens.get('admin')!, { title: `Gruppe CH ${index}`, body: `Von ALICE ${index}`, locale: 'de-CH', authorId: ALICE_ID, translationOf: { postId: source.id } });
      }
      await createPostWith(app, token, { title: `Nur Deutsch ${index}`, body: `Allein ${index}`, locale: 'de' });
    }
    const draft = await createPostWith(app, alice, { title: 'Brouillon', body: 'Pas encore', locale: 'fr', status: 'draft' });
    await createPostWith(app, alice, { title: 'Draft translation published', body: 'Now', locale: 'en', translationOf: { postId: draft.id } });
    planner.enabled = false;
    const page = await request(app.server).post('/graphql').set('accept-language', 'de').send({ query: '{ posts(first: 3) { pageInfo { endCursor } } }' });
    expect(page.status, page.text).toBe(200);
    second = page.body.data.posts.pageInfo.endCursor as string;
    planner.enabled = true;
  }, 120_000);
  afterAll(() => app?.close());

  const LANGUAGE_LIST = `query($locale: String, $after: String, $author: Int) { posts(first: 4, locale: $locale, after: $after, authorId: $author) { totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { id title locale tags { slug } author { name } } } } }`;
  const CASES: { name: string; variables: () => Record<string, unknown>; acceptLanguage?: string; planned: boolean }[] = [
    { name: 'no language asked for (DEFAULT_LOCALE)', variables: () => ({}), planned: true },
    { name: 'Accept-Language: de', variables: () => ({}), acceptLanguage: 'de', planned: true },
    { name: 'Accept-Language: de-CH (falls back to de)', variables: () => ({}), acceptLanguage: 'de-CH, en;q=0.5', planned: true },
    { name: 'Accept-Language: fr', variables: () => ({}), acceptLanguage: 'fr', planned: true },
    { name: 'Accept-Language: ja (none supported)', variables: () => ({}), acceptLanguage: 'ja', planned: true },
    { name: 'locale: "DE" over Accept-Language: fr', variables: () => ({ locale: 'DE' }), acceptLanguage: 'fr', planned: true },
    { name: 'locale: "*" (every translation)', variables: () => ({ locale: '*' }), planned: true },
    { name: 'locale: null', variables: () => ({ locale: null }), acceptLanguage: 'de', planned: true },
    { name: 'locale: "de", after the first page', variables: () => ({ locale: 'de', after: second }), planned: true },
    { name: 'locale: "de", authorId: ALICE', variables: () => ({ locale: 'de', author: ALICE_ID }), planned: true },
    { name: 'locale: "xx" (declined: refused)', variables: () => ({ locale: 'xx' }), planned: false },
  ];

  for (const entry of CASES) {
    it(`${entry.name}: the same answer planned and unplanned, for each reader (${entry.planned ? 'planned' : 'declined'})`, async () => {
      for (const [reader, token] of tokens) {
        const ask = async () => {
          const call = request(app.server).post('/graphql').set('content-type', 'application/json');
          if (token) void call.set(bearer(token));
          if (entry.acceptLanguage) void call.set('accept-language', entry.acceptLanguage);
          const response = await call.send(JSON.stringify({ query: LANGUAGE_LIST, variables: entry.variables() }));
          return { status: response.status, type: response.headers['content-type'] as string, text: response.text };
        };
        planner.enabled = false;
        const unplanned = await ask();
        planner.enabled = true;
        const before = planned;
        expect(await ask(), `read by ${reader}`).toEqual(unplanned);
        expect(planned - before, `read by ${reader}: answered by the plan`).toBe(entry.planned ? 1 : 0);
      }
    });
  }

  it('the languages show different posts (were they equal, a forgotten group condition could hide)', async () => {
    const texts = new Set<string>();
    for (const locale of ['en', 'de', 'de-CH', '*']) {
      const response = await request(app.server).post('/graphql').send({ query: 'query($locale: String) { posts(first: 100, locale: $locale) { nodes { id } } }', variables: { locale } });
      texts.add(response.text);
    }
    expect(texts.size).toBe(4);
  });
});
