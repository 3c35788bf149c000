import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { createPost, nextLink } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

/** A body of `words` words holding "kiwi" `times` times, the rest filler that no search here names. */
const body = (times: number, words: number) => [...Array.from({ length: times }, () => 'kiwi'), ...Array.from({ length: words - times }, (_, index) => `filler${index % 7}`)].join(' ');

/**
 * Relevance when the word searched is in most posts (CONTRACT §4 search): SQLite's bm25 clamps
 * the idf of a term in more than half the rows to almost nothing, which left the order to the
 * posts' lengths; the post that holds the word most comes first, on SQLite as on PostgreSQL
 * (whose ts_rank_cd counts occurrences), and the cursor walk keeps that order.
 */
describeEachDatabase('search relevance when the word is in most posts', (kind) => {
  let app: TestApp;
  let owner: string;
  const ids: Record<string, number> = {};
  const http = () => request(app.server);

  beforeAll(async () => {
    // No demo data: these posts are the whole corpus, so "kiwi" is in three of four.
    app = await startTestApp(kind, { env: { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: OWNER.email, ADMIN_PASSWORD: OWNER.password, RESPONSE_CACHE: 'off' } });
    owner = await tokenFor(app, OWNER);
    // A short post with it once, a long one with it four times, a middling one with it twice, one without.
    ids.once = (await createPost(app, owner, { title: 'First note', body: body(1, 2) })).id;
    ids.four = (await createPost(app, owner, { title: 'Second note', body: body(4, 60) })).id;
    ids.twice = (await createPost(app, owner, { title: 'Third note', body: body(2, 12) })).id;
    ids.none = (await createPost(app, owner, { title: 'Fourth note', body: body(0, 8) })).id;
  }, 60_000);
  afterAll(() => app?.close());

  const expected = () => [ids.four, ids.twice, ids.once];

  it('REST: most occurrences first, ranks not increasing, on one page and walking it one post at a time', async () => {
    const page = (await http().get('/posts?q=kiwi').expect(200)).body as { id: number; _search: { rank: number } }[];
    expect(page.map((post) => post.id)).toEqual(expected());
    const ranks = page.map((post) => post._search.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(new Set(ranks).size).toBe(ranks.length);

    const walked: number[] = [];
    let url: string | null = '/posts?q=kiwi&limit=1';
    while (url) {
      const response: request.Response = await http().get(url).set(bearer(owner)).expect(200);
      walked.push(...(response.body as { id: number }[]).map((post) => post.id));
      url = nextLink(response);
    }
    expect(walked).toEqual(expected());
  });

  it('GraphQL: the same order, by RELEVANCE (the default with search) and through cursors', async () => {
    const data = expectData(await graphql(app, '{ posts(search: "kiwi", orderBy: RELEVANCE) { totalCount nodes { id } } }'));
    expect(data.posts.totalCount).toBe(3);
    expect(data.posts.nodes.map((node: { id: number }) => node.id)).toEqual(expected());
    const walked: number[] = [];
    let after: string | null = null;
    do {
      const page = expectData(await graphql(app, 'query($after: String) { posts(search: "kiwi", first: 1, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after }));
      walked.push(...page.posts.nodes.map((node: { id: number }) => node.id));
      after = page.posts.pageInfo.hasNextPage ? page.posts.pageInfo.endCursor : null;
    } while (after);
    expect(walked).toEqual(expected());
  });
});
