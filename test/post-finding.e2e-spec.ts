import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Dialect } from '../src/common/persistence/dialect.js';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { ALICE_ID, BOB_ID } from './support/editorial.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { nextLink } from './support/resources.js';
import { createTestDatabase } from './support/databases.js';
import { type ExecutionResultLike, listen, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 25 (CONTRACT §8): GET /posts and Query.posts filtered by tag, author, status and
 * publication time, ordered by publication, last change, title or relevance, and searched. Every
 * list is walked page by page with a small limit against a reference computed here from the
 * posts as the service shows them: each matching post exactly once, in order.
 */

interface Row {
  id: number;
  title: string;
  body: string;
  authorId: number;
  status: string;
  publishedAt: string | null;
  updatedAt: string;
  tags: string[];
}

type Sort = '-publishedAt' | 'publishedAt' | '-updatedAt' | 'title';
const SORTS: Sort[] = ['-publishedAt', 'publishedAt', '-updatedAt', 'title'];
const GRAPHQL_ORDER: Record<Sort | 'relevance', string> = {
  '-publishedAt': 'PUBLISHED_AT_DESC',
  publishedAt: 'PUBLISHED_AT_ASC',
  '-updatedAt': 'UPDATED_AT_DESC',
  title: 'TITLE_ASC',
  relevance: 'RELEVANCE',
};

const time = (iso: string | null) => (iso === null ? 0 : Date.parse(iso));
const byId = (a: Row, b: Row) => a.id - b.id;

/** The reference order of a list: its key (publication orders of a non-public list: the id), then the id the same way. */
function reference(rows: Row[], sort: Sort, publicList: boolean): number[] {
  const sorted = [...rows].sort((a, b) => {
    switch (sort) {
      case '-publishedAt':
        return publicList ? time(b.publishedAt) - time(a.publishedAt) || b.id - a.id : b.id - a.id;
      case 'publishedAt':
        return publicList ? time(a.publishedAt) - time(b.publishedAt) || byId(a, b) : byId(a, b);
      case '-updatedAt':
        return time(b.updatedAt) - time(a.updatedAt) || b.id - a.id;
      case 'title':
        return a.title < b.title ? -1 : a.title > b.title ? 1 : byId(a, b);
    }
  });
  return sorted.map((row) => row.id);
}

describeEachDatabase('Finding posts: filters, orders, search (CONTRACT §8)', (kind) => {
  let app: TestApp;
  let alice: string;
  let bob: string;
  let admin: string;
  const rows: Row[] = [];
  /** A time between the posts: those of the second half were published at or after it. */
  let cut: string;
  const http = () => request(app.server);

  async function write(token: string, fields: Record<string, unknown>): Promise<number> {
    const response = await http().post('/posts').set(bearer(token)).send(fields);
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  async function tag(postId: number, slugs: string[]): Promise<void> {
    const data = app.app.get(DataSource);
    for (const slug of slugs) {
      const found = (await data.query(`SELECT id FROM tags WHERE slug = '${slug}'`)) as { id: number }[];
      if (found.length === 0) {
        await data.query(`INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ('${slug}', '${slug}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1)`);
      }
      const [{ id }] = (await data.query(`SELECT id FROM tags WHERE slug = '${slug}'`)) as { id: number }[];
      await data.query(`INSERT INTO post_tags (post_id, tag_id) VALUES (${postId}, ${id})`);
    }
  }

  /** Every post as its author (or the admin) reads it, with the tags given. */
  async function load(id: number, tags: string[]): Promise<void> {
    const response = await http().get(`/posts/${id}`).set(bearer(admin)).expect(200);
    const post = response.body as Omit<Row, 'tags'>;
    rows.push({ id: post.id, title: post.title, body: post.body, authorId: post.authorId, status: post.status, publishedAt: post.publishedAt, updatedAt: post.updatedAt, tags });
  }

  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    app = await startTestApp(kind);
    [alice, bob, admin] = await Promise.all([tokenFor(app, ALICE), tokenFor(app, BOB), tokenFor(app, ADMIN)]);
    // Twelve public posts in tag groups (red: even, blue: every third, green: all), two with the
    // same title (ties by id); the time between the halves is `cut`.
    const titles = ['k05 lantern', 'k11 harbor', 'k02 meadow', 'k08 same', 'k08 same', 'k01 orchard', 'k12 quarry', 'k03 summit', 'k10 valley', 'k04 willow', 'k09 canyon', 'k07 delta'];
    for (const [index, title] of titles.entries()) {
      if (index === 6) {
        await delay(5);
        cut = new Date(Date.now()).toISOString();
        await delay(5);
      }
      const id = await write(index % 4 === 3 ? bob : alice, { title, body: `The body of ${title}` });
      const tags = ['green', ...(index % 2 === 0 ? ['red'] : []), ...(index % 3 === 0 ? ['blue'] : [])];
      await tag(id, tags);
      await delay(2);
      rows.push({ id, title, body: '', authorId: 0, status: '', publishedAt: null, updatedAt: '', tags });
    }
    // Change two (their last change moves them to the front of -updatedAt; the title too).
    await delay(5);
    await http().patch(`/posts/${rows[2].id}`).set(bearer(alice)).send({ title: 'k02 meadow, changed' }).expect(200);
    await delay(5);
    await http().patch(`/posts/${rows[0].id}`).set(bearer(alice)).send({ body: 'Changed body' }).expect(200);
    // Drafts of both authors, tagged red; the search corpus.
    const drafts: [string, Record<string, unknown>, string[]][] = [
      [alice, { title: 'k20 draft of alice', body: 'Draft zorblax secret', status: 'draft' }, ['green', 'red']],
      [alice, { title: 'k06 another draft', body: 'Second draft', status: 'draft' }, ['red']],
      [bob, { title: 'k15 draft of bob', body: 'Bob drafts zorblax', status: 'draft' }, ['red']],
    ];
    const corpus: [string, Record<string, unknown>, string[]][] = [
      [alice, { title: 's1 Zorblax running', body: 'A short text about nothing.' }, ['search']],
      [alice, { title: 's2 Plain', body: `${'Filler words here. '.repeat(40)}Then zorblax once, ${'and more filler after it. '.repeat(40)}` }, ['search']],
      [alice, { title: 's3 Phrase', body: 'the quick brown fox jumps over the zorblax' }, ['search']],
      [bob, { title: 's4 Reverse', body: 'fox brown quick the zorblax and a gryphon' }, ['search']],
      [bob, { title: 's5 Bob', body: 'bob runs with the zorblax and the gryphon' }, ['search']],
    ];
    const old = rows.splice(0);
    for (const row of old) await load(row.id, row.tags);
    for (const [token, fields, tags] of [...drafts, ...corpus]) {
      const id = await write(token, fields);
      await tag(id, tags);
      await load(id, tags);
    }
  });

  afterAll(async () => {
    await app?.close();
  });

  /** Walks GET /posts with the query, `limit` at a time; returns the ids in order, and checks each page's _search. */
  async function walkRest(query: string, token?: string, limit = 2): Promise<{ ids: number[]; search: { rank: number; snippet: string }[] }> {
    const ids: number[] = [];
    const search: { rank: number; snippet: string }[] = [];
    let next: string | null = `/posts?${query}${query ? '&' : ''}limit=${limit}`;
    for (let pages = 0; next !== null; pages += 1) {
      expect(pages, `too many pages for ${query}`).toBeLessThan(50);
      const call = http().get(next);
      const response = await (token ? call.set(bearer(token)) : call);
      expect(response.status, `${next}: ${response.text}`).toBe(200);
      const items = response.body as { id: number; tags: string[]; _search?: { rank: number; snippet: string } }[];
      expect(items.length).toBeLessThanOrEqual(limit);
      for (const item of items) {
        // Every post representation carries its tags, a found one too (the demo's posts: the demo's tags).
        const own = rows.find((row) => row.id === item.id);
        if (own) expect(item.tags, `${next}: the tags of post ${item.id}`).toEqual([...own.tags].sort());
        else expect(Array.isArray(item.tags), `${next}: the tags of post ${item.id}`).toBe(true);
        ids.push(item.id);
        if (item._search) search.push(item._search);
      }
      next = nextLink(response);
      if (next !== null) expect(items).toHaveLength(limit);
    }
    return { ids, search };
  }

  /** Walks Query.posts with the arguments, `first` at a time; checks totalCount against the walk. */
  async function walkGraphQL(args: string, token?: string, first = 2): Promise<{ ids: number[]; ranks: (number | null)[]; snippets: (string | null)[] }> {
    const ids: number[] = [];
    const ranks: (number | null)[] = [];
    const snippets: (string | null)[] = [];
    let after: string | null = null;
    let total = -1;
    for (let pages = 0; ; pages += 1) {
      expect(pages).toBeLessThan(50);
      const query = `query($after: String) { posts(first: ${first}, after: $after${args ? `, ${args}` : ''}) { totalCount edges { cursor rank snippet node { id } } pageInfo { hasNextPage endCursor hasPreviousPage } } }`;
      const data = expectData(await graphql(app, query, { after }, { token }));
      const connection = data.posts as {
        totalCount: number;
        edges: { cursor: string; rank: number | null; snippet: string | null; node: { id: number } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null; hasPreviousPage: boolean };
      };
      total = connection.totalCount;
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      for (const edge of connection.edges) {
        ids.push(edge.node.id);
        ranks.push(edge.rank);
        snippets.push(edge.snippet);
      }
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(total).toBe(ids.length);
    return { ids, ranks, snippets };
  }

  const publicRows = () => rows.filter((row) => row.status === 'published');
  const within = (row: Row, tags: string[]) => tags.every((slug) => row.tags.includes(slug));

  interface Case {
    name: string;
    rest: string;
    graphql: string;
    match: (row: Row) => boolean;
  }

  const cases = (): Case[] => [
    { name: 'tag', rest: 'tag=red', graphql: 'tag: ["red"]', match: (row) => within(row, ['red']) },
    { name: 'two tags (all of them)', rest: 'tag=red&tag=blue', graphql: 'tag: ["red", "blue"]', match: (row) => within(row, ['red', 'blue']) },
    { name: 'publishedAfter (inclusive)', rest: `publishedAfter=${cut}&tag=green`, graphql: `publishedAfter: "${cut}", tag: ["green"]`, match: (row) => within(row, ['green']) && time(row.publishedAt) >= Date.parse(cut) },
    { name: 'publishedBefore (exclusive) and a tag', rest: `publishedBefore=${cut}&tag=blue`, graphql: `publishedBefore: "${cut}", tag: ["blue"]`, match: (row) => within(row, ['blue']) && time(row.publishedAt) < Date.parse(cut) },
    { name: 'authorId and a tag', rest: `authorId=${ALICE_ID}&tag=red`, graphql: `authorId: ${ALICE_ID}, tag: ["red"]`, match: (row) => row.authorId === ALICE_ID && within(row, ['red']) },
    {
      name: 'a search with a tag and an author',
      rest: `q=zorblax&tag=search&authorId=${BOB_ID}`,
      graphql: `search: "zorblax", tag: ["search"], authorId: ${BOB_ID}`,
      match: (row) => row.authorId === BOB_ID && within(row, ['search']),
    },
  ];

  it('walks every filter in every order, over REST and GraphQL: each matching public post once, in order', async () => {
    for (const testCase of cases()) {
      const matching = publicRows().filter(testCase.match);
      expect(matching.length, testCase.name).toBeGreaterThan(1);
      for (const sort of SORTS) {
        const expected = reference(matching, sort, true);
        const rest = await walkRest(`${testCase.rest}&sort=${sort}`);
        expect(rest.ids, `GET /posts?${testCase.rest}&sort=${sort}`).toEqual(expected);
        const ql = await walkGraphQL(`${testCase.graphql}, orderBy: ${GRAPHQL_ORDER[sort]}`);
        expect(ql.ids, `posts(${testCase.graphql}, orderBy: ${GRAPHQL_ORDER[sort]})`).toEqual(expected);
      }
    }
  });

  it('orders every public post by title, by last change and by oldest publication, each once', async () => {
    const all = publicRows();
    // Every public post, the demo's too, as the plain list shows them.
    const everyone = (await walkRest('', undefined, 100)).ids.sort((a, b) => a - b);
    expect(everyone).toEqual(expect.arrayContaining(all.map((row) => row.id)));
    for (const sort of ['title', '-updatedAt', 'publishedAt'] as const) {
      const walked = (await walkRest(`sort=${sort}`, undefined, 7)).ids;
      expect([...walked].sort((a, b) => a - b), sort).toEqual(everyone);
      // Our posts (the demo's were written apart, before them) keep the reference order among themselves.
      const ours = new Set(all.filter((row) => row.tags.length > 0).map((row) => row.id));
      if (sort !== 'title') expect(walked.filter((id) => ours.has(id))).toEqual(reference(all.filter((row) => ours.has(row.id)), sort, true));
    }
    // The default order, filtered: newest publication first.
    expect((await walkRest('tag=green')).ids).toEqual(reference(publicRows().filter((row) => within(row, ['green'])), '-publishedAt', true));
  });

  it('lists non-public posts only for those who may see them, with every filter and order', async () => {
    const drafts = rows.filter((row) => row.status === 'draft' && within(row, ['red']));
    const readers: [string, string | undefined, (row: Row) => boolean][] = [
      ['ALICE', alice, (row) => row.authorId === ALICE_ID],
      ['BOB', bob, (row) => row.authorId === BOB_ID],
      ['ADMIN', admin, () => true],
    ];
    for (const [name, token, sees] of readers) {
      for (const sort of SORTS) {
        const expected = reference(drafts.filter(sees), sort, false);
        expect((await walkRest(`status=draft&tag=red&sort=${sort}`, token)).ids, `${name} ${sort}`).toEqual(expected);
        expect((await walkGraphQL(`status: DRAFT, tag: ["red"], orderBy: ${GRAPHQL_ORDER[sort]}`, token)).ids, `${name} ${sort}`).toEqual(expected);
      }
      const found = reference(rows.filter((row) => row.status === 'draft' && sees(row) && /zorblax/i.test(`${row.title} ${row.body}`)), '-publishedAt', false);
      expect((await walkRest('status=draft&q=zorblax&sort=-publishedAt', token)).ids, `${name} searches drafts`).toEqual(found);
    }
    // Another author's drafts: an empty list; anonymous callers: 401; the public search never shows a draft.
    expect((await walkRest(`status=draft&tag=red&authorId=${BOB_ID}`, alice)).ids).toEqual([]);
    expectProblem(await http().get('/posts?status=draft&tag=red'), 401);
    expectProblem(await http().get('/posts?status=draft&q=zorblax'), 401);
    const draftIds = new Set(rows.filter((row) => row.status !== 'published').map((row) => row.id));
    for (const token of [undefined, bob, alice, admin]) {
      const found = await walkRest('q=zorblax', token, 3);
      expect(found.ids.filter((id) => draftIds.has(id))).toEqual([]);
      const ql = await walkGraphQL('search: "zorblax"', token, 3);
      expect(ql.ids.filter((id) => draftIds.has(id))).toEqual([]);
    }
  });

  const corpus = (title: string) => rows.find((row) => row.title.startsWith(title))!.id;

  it('searches by stem, phrase and exclusion, ranks a title hit first, and pages by relevance', async () => {
    const ids = async (q: string) => new Set((await walkRest(`q=${encodeURIComponent(q)}`)).ids);
    expect(await ids('zorblax run')).toEqual(new Set([corpus('s1'), corpus('s5')]));
    expect(await ids('"quick brown fox"')).toEqual(new Set([corpus('s3')]));
    expect(await ids('zorblax -gryphon')).toEqual(new Set([corpus('s1'), corpus('s2'), corpus('s3')]));
    expect(await ids('zorblax -"brown fox"')).toEqual(new Set([corpus('s1'), corpus('s2'), corpus('s4'), corpus('s5')]));

    // Relevance: the title hit first, every hit once, ranks not increasing; the same over GraphQL.
    const all = [corpus('s1'), corpus('s2'), corpus('s3'), corpus('s4'), corpus('s5')];
    const walked = await walkRest('q=zorblax', undefined, 2);
    expect(walked.ids[0]).toBe(corpus('s1'));
    expect([...walked.ids].sort((a, b) => a - b)).toEqual(all);
    const ranks = walked.search.map((hit) => hit.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(ranks[0]).toBeGreaterThan(ranks[walked.ids.indexOf(corpus('s2'))]);
    const ql = await walkGraphQL('search: "zorblax"', undefined, 2);
    expect(ql.ids).toEqual(walked.ids);
    expect(ql.ranks.every((rank) => typeof rank === 'number')).toBe(true);
    expect(ql.snippets.every((snippet) => typeof snippet === 'string' && /zorblax/i.test(snippet))).toBe(true);
    expect((await walkGraphQL('search: "zorblax", orderBy: RELEVANCE', undefined, 1)).ids).toEqual(walked.ids);

    // Snippets: plain text around the match, at most 200 characters (the long body's too).
    for (const hit of walked.search) {
      expect([...hit.snippet].length).toBeLessThanOrEqual(200);
      expect(hit.snippet).toMatch(/zorblax/i);
      expect(hit.snippet).not.toMatch(/<\/?b>/);
    }
    // Without a search: no _search, and null rank and snippet on the edges.
    const plain = await http().get('/posts?tag=search').expect(200);
    expect(plain.body[0]).not.toHaveProperty('_search');
    expect((await walkGraphQL('tag: ["search"], orderBy: TITLE_ASC')).ranks.every((rank) => rank === null)).toBe(true);
    // HAL items carry _search; XML and HTML still answer.
    const hal = await http().get('/posts?q=zorblax').set('Accept', 'application/hal+json').expect(200);
    expect(hal.body._embedded.posts[0]._search).toEqual({ rank: expect.any(Number), snippet: expect.stringMatching(/zorblax/i) });
    expect((await http().get('/posts?q=zorblax').set('Accept', 'application/xml').expect(200)).text).toMatch(/<_search><rank>[\d.e-]+<\/rank><snippet>[^<]*zorblax[^<]*<\/snippet><\/_search>/i);
    await http().get('/posts?q=zorblax').set('Accept', 'text/html').expect(200);
  });

  it('answers hostile searches with 200 (400 past 200 characters), never 500', async () => {
    const hostile = ['"', 'AND', 'NEAR(a b)', '*', 'title:x', '(', "'", '\\', '%', 'zorblax"', '"zorblax', 'a OR b', 'NOT zorblax', 'zorblax*', '^zorblax', 'ünïcödé 中文 😀', '-', '--', '- -', '-zorblax', '-"a b" -c', '""', 'x'.repeat(200), 'or', 'body:zorblax', '{title}: x', 'NEAR("a" "b", 2)', "'; DROP TABLE posts; --"];
    for (const q of hostile) {
      for (const sort of ['relevance', 'title']) {
        const response = await http().get(`/posts?q=${encodeURIComponent(q)}&sort=${sort}`);
        expect(response.status, `q=${q}: ${response.text}`).toBe(200);
      }
      expectData(await graphql(app, 'query($q: String) { posts(search: $q) { totalCount edges { rank snippet node { id } } } }', { q }));
    }
    // Only exclusions, or nothing to find: an empty list (no 400: a schema cannot tell such a text apart), on both databases.
    for (const q of ['-zorblax', '-', '-"a b" -c', '""', '*', '', '   ']) {
      const response = await http().get(`/posts?q=${encodeURIComponent(q)}`).expect(200);
      expect(response.body, q).toEqual([]);
      expect(expectData(await graphql(app, 'query($q: String) { posts(search: $q) { totalCount nodes { id } } }', { q })).posts).toEqual({ totalCount: 0, nodes: [] });
    }
    // 200 characters are taken; 201 are not.
    await http().get(`/posts?q=${'x'.repeat(200)}`).expect(200);
    const long = await http().get(`/posts?q=${'x'.repeat(201)}`);
    expectProblem(long, 400, 'BAD_USER_INPUT');
    expect(errorFields(long)).toEqual(['q']);
    // Operator words are words (PostgreSQL drops "and" as a stop word; both posts hold it anyway).
    expect(new Set((await walkRest('q=zorblax%20AND%20gryphon')).ids)).toEqual(new Set([corpus('s4'), corpus('s5')]));
  });

  it('refuses every bad parameter with 400 naming it, over REST and GraphQL', async () => {
    const bad: [string, string][] = [
      ['sort=newest', 'sort'],
      ['sort=relevance', 'sort'],
      ['publishedAfter=yesterday', 'publishedAfter'],
      ['publishedBefore=2026-13-01T00:00:00Z', 'publishedBefore'],
      [`q=${'y'.repeat(201)}`, 'q'],
      ['tag=Not_A_Slug', 'tag'],
      [Array.from({ length: 11 }, (_, index) => `tag=t${index}`).join('&'), 'tag'],
      ['cursor=bm9wZQ', 'cursor'],
      ['q=zorblax&q=other', 'q'],
    ];
    for (const [query, field] of bad) {
      const response = await http().get(`/posts?${query}`);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response), query).toContain(field);
    }
    // A cursor of another order, or of other filters, is 400 naming the cursor.
    const byTitle = nextLink(await http().get('/posts?tag=green&sort=title&limit=1').expect(200))!;
    const cursor = new URL(byTitle, 'http://x').searchParams.get('cursor')!;
    for (const query of [`tag=green&sort=-updatedAt&cursor=${cursor}`, `tag=red&sort=title&cursor=${cursor}`, `cursor=${cursor}`, `q=zorblax&sort=title&cursor=${cursor}`]) {
      const response = await http().get(`/posts?${query}`);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response), query).toEqual(['cursor']);
    }
    // GraphQL: BAD_USER_INPUT at posts.
    const invalid = [
      'posts(orderBy: RELEVANCE)',
      `posts(search: "${'z'.repeat(201)}")`,
      'posts(tag: ["Bad Slug"])',
      `posts(tag: [${Array.from({ length: 11 }, (_, index) => `"t${index}"`).join(', ')}])`,
      `posts(tag: ["green"], orderBy: UPDATED_AT_DESC, after: "${cursor}")`,
    ];
    for (const field of invalid) expectError(await graphql(app, `{ ${field} { nodes { id } } }`), 'BAD_USER_INPUT', ['posts']);
    // A malformed DateTime is refused by GraphQL's own validation.
    const date = await graphql(app, '{ posts(publishedAfter: "yesterday") { nodes { id } } }');
    expect(date.body.errors?.[0].extensions.code).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED/);
  });
});

describeEachDatabase('SEARCH_LANGUAGE', (kind) => {
  it('stems in the configured language, rebuilding the search column when it changes, and refuses an unknown one at start-up', async () => {
    const database = await createTestDatabase(kind, { file: true });
    try {
      const german = await startTestApp(kind, { database, env: { SEARCH_LANGUAGE: 'german' } });
      let id: number;
      try {
        const token = await tokenFor(german, ALICE);
        const created = await request(german.server).post('/posts').set(bearer(token)).send({ title: 'Die Häuser', body: 'Wir laufen durch die Straßen' }).expect(201);
        id = created.body.id as number;
        const found = (await request(german.server).get('/posts?q=Haus').expect(200)).body as { id: number }[];
        // PostgreSQL stems German (Häuser → haus); SQLite's FTS5 stems English only, so the plural is another word there.
        expect(found.map((post) => post.id)).toEqual(kind === 'postgres' ? [id] : []);
        expect(((await request(german.server).get('/posts?q=H%C3%A4user').expect(200)).body as { id: number }[]).map((post) => post.id)).toEqual([id]);
      } finally {
        await german.close();
      }
      // Back to English: the column is rebuilt in English, where Häuser is not a form of Haus.
      const english = await startTestApp(kind, { database });
      try {
        expect(((await request(english.server).get('/posts?q=H%C3%A4user').expect(200)).body as { id: number }[]).map((post) => post.id)).toEqual([id]);
        expect((await request(english.server).get('/posts?q=Haus').expect(200)).body).toEqual([]);
      } finally {
        await english.close();
      }
      if (kind === 'postgres') {
        await expect(startTestApp(kind, { database, env: { SEARCH_LANGUAGE: 'klingon' } })).rejects.toThrow(/SEARCH_LANGUAGE: "klingon" is not a text search configuration/);
      }
    } finally {
      await database.drop();
    }
  });
});

describeEachDatabase('Search as a denial of service: normalized terms, a budget of its own, a timeout (issue 36)', (kind) => {
  let app: TestApp;
  let alice: string;
  /** What each search asked the database for (Dialect.searchText's output), in order. */
  const sent: string[] = [];
  let oneTerm: string;
  let gryphon: number;
  let alone: number;
  let addresses = 0;
  /** A client address of its own for each caller, so that budgets do not mix. */
  const address = () => `198.51.100.${(addresses += 1)}`;
  const http = () => request(app.server);
  const ids = (response: { body: unknown }) => (response.body as { id: number }[]).map((post) => post.id).sort((a, b) => a - b);

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { TRUST_PROXY: 'true', SEARCH_MAX_TERMS: '3', RATE_LIMIT_SEARCH_MAX: '4', SEARCH_TIMEOUT_MS: '300' } });
    alice = await tokenFor(app, ALICE);
    gryphon = (await http().post('/posts').set(bearer(alice)).send({ title: 'Gryphon notes', body: 'zorblax walks with the gryphon' }).expect(201)).body.id as number;
    alone = (await http().post('/posts').set(bearer(alice)).send({ title: 'Alone', body: 'zorblax alone' }).expect(201)).body.id as number;
    const dialect = app.app.get(Dialect);
    const searchText = dialect.searchText.bind(dialect);
    oneTerm = searchText({ required: ['zorblax'], excluded: [] });
    vi.spyOn(dialect, 'searchText').mockImplementation((query) => {
      const text = searchText(query);
      sent.push(text);
      return text;
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await app?.close();
  });

  it('takes a repeated word once, whatever its case: the database is asked for one term', async () => {
    const repeated = Array.from({ length: 24 }, (_, index) => ['zorblax', 'Zorblax', 'ZORBLAX'][index % 3]).join(' ');
    expect(repeated.length).toBeLessThanOrEqual(200);
    sent.length = 0;
    const rest = await http().get(`/posts?q=${encodeURIComponent(repeated)}`).set('X-Forwarded-For', address()).expect(200);
    expect(ids(rest)).toEqual([gryphon, alone]);
    const data = expectData(await graphql(app, 'query($q: String) { posts(search: $q) { totalCount nodes { id } } }', { q: repeated }, { headers: { 'X-Forwarded-For': address() } }));
    expect((data.posts as { totalCount: number }).totalCount).toBe(2);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set([oneTerm]));
  });

  it('looks for SEARCH_MAX_TERMS words at most: the words past the bound are left out', async () => {
    sent.length = 0;
    // Three words kept (the gryphon post has them all); the fourth, which no post has, is left out.
    const rest = await http().get(`/posts?q=${encodeURIComponent('zorblax gryphon walks nowhere -alone')}`).set('X-Forwarded-For', address()).expect(200);
    expect(ids(rest)).toEqual([gryphon]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/zorblax/);
    expect(sent[0]).not.toMatch(/nowhere|alone/);
  });

  it('counts searches against RATE_LIMIT_SEARCH_MAX per address, REST and GraphQL together, whatever their limit: then 429', async () => {
    const from = address();
    // Four searches, each with another limit (each a miss of the response cache): the whole budget.
    for (const limit of [1, 2, 3]) {
      const response = await http().get(`/posts?q=zorblax&limit=${limit}`).set('X-Forwarded-For', from).expect(200);
      expect(response.headers['ratelimit-policy']).toBe('"search";q=4;w=60');
      expect(response.headers.ratelimit).toMatch(new RegExp(`^"search";r=${4 - limit};t=\\d+$`));
    }
    expectData(await graphql(app, '{ posts(search: "zorblax", first: 4) { nodes { id } } }', undefined, { headers: { 'X-Forwarded-For': from } }));
    // A fifth: 429 on REST, RATE_LIMITED on GraphQL, with Retry-After and the budget's RateLimit item.
    const refused = await http().get('/posts?q=zorblax&limit=5').set('X-Forwarded-For', from);
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"search";r=0;t=\d+$/);
    expectError(await graphql(app, '{ posts(search: "zorblax", first: 6) { nodes { id } } }', undefined, { headers: { 'X-Forwarded-For': from } }), 'RATE_LIMITED', ['posts']);
    // Signed in is no way around it; a list without a search is no search; another address has its own budget.
    expectProblem(await http().get('/posts?q=zorblax&limit=7').set(bearer(alice)).set('X-Forwarded-For', from), 429, 'RATE_LIMITED');
    await http().get('/posts?tag=news&limit=3').set('X-Forwarded-For', from).expect(200);
    await http().get('/posts?q=zorblax&limit=8').set('X-Forwarded-For', address()).expect(200);
    // Each searched field of one operation counts on its own.
    const aliases = [0, 1, 2, 3, 4].map((index) => `s${index}: posts(search: "zorblax", first: ${index + 1}) { nodes { id } }`).join(' ');
    const batch = await graphql(app, `{ ${aliases} }`, undefined, { headers: { 'X-Forwarded-For': address() } });
    expect(batch.body.errors?.map((error) => [error.extensions.code, error.path])).toEqual([['RATE_LIMITED', ['s4']]]);
  });

  it('counts the searches of a WebSocket operation the same (the socket\'s address: 127.0.0.1, searched nowhere else here)', async () => {
    const socket = wsClient((await listen(app)).ws);
    try {
      await socket.connected;
      const run = (first: number) =>
        new Promise<ExecutionResultLike>((resolve, reject) => {
          socket.client.subscribe({ query: `{ posts(search: "zorblax", first: ${first}) { nodes { id } } }` }, { next: (value) => resolve(value as ExecutionResultLike), error: reject, complete: () => undefined });
        });
      for (const first of [1, 2, 3, 4]) expect((await run(first)).errors, `search ${first}`).toBeUndefined();
      expect((await run(5)).errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
    } finally {
      await socket.dispose();
    }
  });

  it.runIf(kind === 'postgres')('stops a search past SEARCH_TIMEOUT_MS on PostgreSQL: 503 SERVICE_UNAVAILABLE with Retry-After, never 500', async () => {
    // A search that cannot finish in time, deterministically: the posts locked by another transaction.
    const runner = app.app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query('LOCK TABLE posts IN ACCESS EXCLUSIVE MODE');
      const rest = await http().get('/posts?q=zorblax').set(bearer(alice)).set('X-Forwarded-For', address());
      expectProblem(rest, 503, 'SERVICE_UNAVAILABLE');
      expect(rest.headers['retry-after']).toBe('1');
      const ql = await graphql(app, '{ posts(search: "zorblax") { totalCount nodes { id } } }', undefined, { token: alice, headers: { 'X-Forwarded-For': address() } });
      expect(ql.body.errors?.map((error) => error.extensions.code)).toContain('SERVICE_UNAVAILABLE');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    // The connections the stopped searches used serve the next one.
    expect(ids(await http().get('/posts?q=zorblax').set(bearer(alice)).set('X-Forwarded-For', address()).expect(200))).toEqual([gryphon, alone]);
  });
});
