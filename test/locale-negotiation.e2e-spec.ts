import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from './support/databases.js';
import { expectData, expectError, fewestStatements, graphql } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createUser, nextLink, parseXml, xmlFields } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Languages, part 2 (CONTRACT §15, second bullet): lists of posts (GET /posts, GET
 * /users/{id}/posts, GET /feed, GraphQL posts) show one post per translation group, in the chosen
 * locale (`?locale=` / `locale:`, else the RFC 4647 lookup of Accept-Language), else along its
 * LOCALE_FALLBACKS chain, else in DEFAULT_LOCALE, else any visible one; a group keeps the place of
 * its first published translation; `?locale=*` lists every translation; the answers say
 * Content-Language and Vary; the response cache keys on the chosen locale. Written from the
 * contract: each expectation below is computed from what the test wrote.
 */

const LOCALE_ENV = { SUPPORTED_LOCALES: 'en,de,de-CH,fr', LOCALE_FALLBACKS: 'de-CH:de' };
const DEFAULT_LOCALE = 'en';
const FALLBACKS: Record<string, string> = { 'de-CH': 'de' };

type Status = 'published' | 'draft';
interface Member {
  id: number;
  locale: string;
  status: Status;
  publishedAt: string | null;
  title: string;
}
interface Group {
  name: string;
  members: Member[];
}
interface Writer {
  id: number;
  token: string;
}

/** The chosen locale, then its fallbacks, then DEFAULT_LOCALE. */
function chainOf(locale: string): string[] {
  const chain = [locale];
  while (FALLBACKS[chain.at(-1)!] && !chain.includes(FALLBACKS[chain.at(-1)!])) chain.push(FALLBACKS[chain.at(-1)!]);
  if (!chain.includes(DEFAULT_LOCALE)) chain.push(DEFAULT_LOCALE);
  return chain;
}

const published = (group: Group) => group.members.filter((member) => member.status === 'published');

/** The ids a group may show in a list in `locale`: the first of the chain it has, else any published one; none when it has no published post. */
function allowedFor(group: Group, locale: string): number[] {
  const visible = published(group);
  for (const wanted of chainOf(locale)) {
    const hit = visible.find((member) => member.locale === wanted);
    if (hit) return [hit.id];
  }
  return visible.map((member) => member.id);
}

/** When a group takes its place in a list: its first published translation's publishedAt. */
const placeOf = (group: Group) => Math.min(...published(group).map((member) => Date.parse(member.publishedAt!)));

/**
 * Checks a list against the groups it should show: with a locale, one post per group that has a
 * published one, the expected one of each (no group twice, none lost, nothing else); with `*`,
 * every published post once. Optionally, the groups' order: newest first publication first.
 */
function expectNegotiated(ids: number[], groups: Group[], locale: string, where: string, { ordered = false } = {}): void {
  expect(new Set(ids).size, `${where}: no post twice (${ids.join(',')})`).toBe(ids.length);
  const groupOf = new Map<number, Group>();
  for (const group of groups) for (const member of group.members) groupOf.set(member.id, group);
  const foreign = ids.filter((id) => !groupOf.has(id));
  expect(foreign, `${where}: only the writer's posts`).toEqual([]);
  if (locale === '*') {
    const everyPublished = groups.flatMap((group) => published(group).map((member) => member.id));
    expect([...ids].sort((a, b) => a - b), `${where}: every published translation`).toEqual(everyPublished.sort((a, b) => a - b));
    return;
  }
  const shownGroups = ids.map((id) => groupOf.get(id)!);
  const repeated = shownGroups.filter((group, index) => shownGroups.indexOf(group) !== index).map((group) => group.name);
  expect(repeated, `${where}: no group twice`).toEqual([]);
  const expectedGroups = groups.filter((group) => published(group).length > 0).map((group) => group.name).sort();
  expect(shownGroups.map((group) => group.name).sort(), `${where}: every group with a published post, once`).toEqual(expectedGroups);
  for (const id of ids) {
    const group = groupOf.get(id)!;
    const member = group.members.find((candidate) => candidate.id === id)!;
    const allowed = allowedFor(group, locale);
    expect(allowed, `${where}: group ${group.name} shows post ${id} (${member.locale}, ${member.status}); expected one of ${allowed.join(',')} for ${locale} (${group.members.map((m) => `${m.id}:${m.locale}:${m.status}`).join(' ')})`).toContain(id);
  }
  if (ordered) {
    const places = shownGroups.map(placeOf);
    const outOfOrder = places.findIndex((place, index) => index > 0 && place > places[index - 1]);
    expect(outOfOrder, `${where}: groups newest first publication first (${shownGroups.map((group) => group.name).join(',')})`).toBe(-1);
  }
}

/** The members of a Vary header, lower-case. */
const varyOf = (response: Response) => String(response.headers.vary ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);

/** JSON Feed item ids are tag URIs ending in `:post:{id}`. */
const feedIds = (response: Response) => (JSON.parse(response.text) as { items: { id: string }[] }).items.map((item) => Number(item.id.split(':post:')[1]));

/** How a list is asked for its language: `?locale=` (GraphQL `locale:`) and/or Accept-Language. */
interface Asking {
  query?: string;
  header?: string;
}

interface Listing {
  ids: number[];
  /** The HTTP answer (REST doors). */
  response?: Response;
  totalCount?: number;
}

interface ListDoor {
  name: string;
  rest: boolean;
  read: (app: TestApp, writer: number, asking: Asking, token?: string) => Promise<Listing>;
}

const withLocale = (path: string, asking: Asking) => (asking.query === undefined ? path : `${path}&locale=${encodeURIComponent(asking.query)}`);
const get = (app: TestApp, path: string, asking: Asking, token?: string, accept = 'application/json') => {
  const test = request(app.server).get(path).set('Accept', accept);
  if (asking.header !== undefined) test.set('Accept-Language', asking.header);
  if (token) test.set(bearer(token));
  return test;
};

const DOORS: ListDoor[] = [
  {
    name: 'GET /posts?authorId=',
    rest: true,
    read: async (app, writer, asking, token) => {
      const response = await get(app, withLocale(`/posts?authorId=${writer}&limit=100`, asking), asking, token);
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      return { ids: (response.body as { id: number }[]).map((post) => post.id), response };
    },
  },
  {
    name: 'GET /users/{id}/posts',
    rest: true,
    read: async (app, writer, asking, token) => {
      const response = await get(app, withLocale(`/users/${writer}/posts?limit=100`, asking), asking, token);
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      return { ids: (response.body as { id: number }[]).map((post) => post.id), response };
    },
  },
  {
    name: 'GET /feed?authorId= (JSON Feed)',
    rest: true,
    read: async (app, writer, asking, token) => {
      const response = await get(app, withLocale(`/feed?authorId=${writer}&limit=100`, asking), asking, token, 'application/feed+json');
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      return { ids: feedIds(response), response };
    },
  },
  {
    name: 'GraphQL posts(authorId:, locale:) { totalCount nodes }',
    rest: false,
    read: async (app, writer, asking, token) => {
      const locale = asking.query === undefined ? '' : `, locale: ${JSON.stringify(asking.query)}`;
      const headers: Record<string, string> = asking.header === undefined ? {} : { 'Accept-Language': asking.header };
      const result = await graphql(app, `{ posts(authorId: ${writer}, first: 100${locale}) { totalCount nodes { id locale } } }`, undefined, { headers, ...(token ? { token } : {}) });
      const { posts } = expectData(result);
      return { ids: (posts.nodes as { id: number }[]).map((node) => node.id), totalCount: posts.totalCount as number };
    },
  },
];

/** Checks a door's answer: the posts, and for REST Content-Language (and Vary when the header could decide). */
async function expectDoor(app: TestApp, door: ListDoor, writer: number, groups: Group[], asking: Asking, chosen: string): Promise<void> {
  const where = `${door.name} ${JSON.stringify(asking)}`;
  const listing = await door.read(app, writer, asking);
  expectNegotiated(listing.ids, groups, chosen, where, { ordered: chosen !== '*' });
  if (listing.totalCount !== undefined) expect(listing.totalCount, `${where}: totalCount counts the groups shown`).toBe(listing.ids.length);
  if (!listing.response) return;
  if (chosen !== '*') expect(listing.response.headers['content-language'], `${where}: Content-Language`).toBe(chosen);
  if (asking.query === undefined) expect(varyOf(listing.response), `${where}: Vary`).toEqual(expect.arrayContaining(['accept', 'accept-language']));
}

/** Writes the posts of a group, in order: the first on its own, the others as its translations. */
async function writeGroup(app: TestApp, writer: Writer, name: string, shape: [string, Status][]): Promise<Group> {
  const members: Member[] = [];
  for (const [locale, status] of shape) {
    const title = `${name} ${locale} ${status}`;
    const fields: Record<string, unknown> = { title, body: `The ${locale} text of ${name}`, locale, status };
    if (members.length > 0) fields.translationOf = { postId: members[0].id };
    const response = await request(app.server).post('/posts').set(bearer(writer.token)).send(fields);
    expect(response.status, response.text).toBe(201);
    const body = response.body as { id: number; locale: string; status: Status; publishedAt: string | null };
    expect(body.locale).toBe(locale);
    members.push({ id: body.id, locale: body.locale, status: body.status, publishedAt: body.publishedAt, title });
  }
  return { name, members };
}

/** Publishes a draft member of a group and records its publishedAt. */
async function publish(app: TestApp, writer: Writer, member: Member): Promise<void> {
  const response = await request(app.server).patch(`/posts/${member.id}`).set(bearer(writer.token)).send({ status: 'published' });
  expect(response.status, response.text).toBe(200);
  member.status = 'published';
  member.publishedAt = (response.body as { publishedAt: string }).publishedAt;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Groups with translations missing in various ways: the fixture of the negotiation cases. */
const SHAPES: [string, [string, Status][]][] = [
  ['en-only', [['en', 'published']]],
  ['en+de', [['en', 'published'], ['de', 'published']]],
  ['de-only', [['de', 'published']]],
  ['fr+de-CH', [['fr', 'published'], ['de-CH', 'published']]],
  ['en+de(draft)', [['en', 'published'], ['de', 'draft']]],
  ['fr+de-CH(draft)', [['fr', 'published'], ['de-CH', 'draft']]],
  ['fr-only', [['fr', 'published']]],
  ['en+fr+de-CH+de', [['en', 'published'], ['fr', 'published'], ['de-CH', 'published'], ['de', 'published']]],
  ['de-CH(draft)-only', [['de-CH', 'draft']]],
  ['en(draft)+fr', [['en', 'draft'], ['fr', 'published']]],
  ['de+fr', [['de', 'published'], ['fr', 'published']]],
  ['de-CH+en(draft)', [['de-CH', 'published'], ['en', 'draft']]],
];

/** How each case asks, and the locale it must choose. */
const CASES: [string, Asking, string][] = [
  ['neither ?locale nor Accept-Language: DEFAULT_LOCALE', {}, 'en'],
  ['Accept-Language: de-CH (de-CH, else de, else en, else any)', { header: 'de-CH' }, 'de-CH'],
  ['Accept-Language: fr;q=0.9, en;q=0.8 (fr, else en)', { header: 'fr;q=0.9, en;q=0.8' }, 'fr'],
  ['Accept-Language: en;q=0.1, de-ch-1996;q=0.5 (the lookup: de-CH)', { header: 'en;q=0.1, de-ch-1996;q=0.5' }, 'de-CH'],
  ['Accept-Language: de-AT (the lookup: de)', { header: 'de-AT' }, 'de'],
  ['Accept-Language: it, de;q=0.5 (it is not supported: de)', { header: 'it, de;q=0.5' }, 'de'],
  ['Accept-Language: de;q=0, fr (q=0 is not acceptable: fr)', { header: 'de;q=0, fr' }, 'fr'],
  ['Accept-Language: * (DEFAULT_LOCALE)', { header: '*' }, 'en'],
  ['Accept-Language: "" (empty: DEFAULT_LOCALE)', { header: '' }, 'en'],
  ['?locale=de over Accept-Language: fr', { query: 'de', header: 'fr' }, 'de'],
  ['?locale=de-CH', { query: 'de-CH' }, 'de-CH'],
  ['?locale=fr', { query: 'fr' }, 'fr'],
  ['?locale=en over Accept-Language: de-CH', { query: 'en', header: 'de-CH' }, 'en'],
  ['?locale=* (every translation, each once)', { query: '*' }, '*'],
];

/** Accept-Language headers that are not valid (RFC 9110 §12.5.4): treated as absent. */
const MALFORMED = ['@@@', ';;;', 'de;q=abc', 'de;q=1.5', 'de;q=-1', 'de-', '-de', 'de_CH', 'de;q', '=de', 'd e', `${'x'.repeat(300)}`];

describeEachDatabase('locale negotiation of lists', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off', ...LOCALE_ENV }, timeout: 60_000 });
  const http = () => request(app.server);
  let editor: string;

  beforeAll(async () => {
    const user = await createUser(app);
    await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'editor' }).expect(200);
    editor = await tokenFor(app, { email: user.email, password: user.password });
  }, 60_000);

  const newWriter = async (): Promise<Writer> => {
    const user = await createUser(app);
    return { id: user.id, token: user.token };
  };

  describe('one post per group, in the chosen locale, else its fallbacks, else DEFAULT_LOCALE, else any visible one', () => {
    let writer: Writer;
    let groups: Group[];

    beforeAll(async () => {
      writer = await newWriter();
      groups = [];
      for (const [name, shape] of SHAPES) {
        groups.push(await writeGroup(app, writer, name, shape));
        // Distinct first publications, so that the order of the groups is known.
        await sleep(5);
      }
    }, 60_000);

    for (const [name, asking, chosen] of CASES) {
      for (const door of DOORS) {
        it(`${name}: ${door.name}`, async () => {
          await expectDoor(app, door, writer.id, groups, asking, chosen);
        });
      }
    }

    for (const header of MALFORMED) {
      it(`a malformed Accept-Language (${header.length > 20 ? `${header.slice(0, 8)}… (${header.length} characters)` : JSON.stringify(header)}) is treated as absent (DEFAULT_LOCALE), never 400 or 500, on every list`, async () => {
        for (const door of DOORS) await expectDoor(app, door, writer.id, groups, { header }, 'en');
      });
    }

    it('an unsupported ?locale= is 400 naming locale on every REST list; GraphQL posts(locale:) BAD_USER_INPUT', async () => {
      for (const locale of ['xx', 'it', 'de_DE', 'de-XX', 'en,de']) {
        for (const path of [`/posts?authorId=${writer.id}`, `/users/${writer.id}/posts?limit=5`]) {
          const refused = await http().get(`${path}${path.includes('?') ? '&' : '?'}locale=${encodeURIComponent(locale)}`);
          expectProblem(refused, 400, 'BAD_USER_INPUT');
          expect(errorFields(refused), `${path} locale=${locale}`).toContain('locale');
        }
        const feed = await http().get(`/feed?authorId=${writer.id}&locale=${encodeURIComponent(locale)}`);
        expect(feed.status, `/feed locale=${locale}: ${feed.text.slice(0, 200)}`).toBe(400);
        expect(feed.text, `/feed locale=${locale}`).toContain('locale');
        const result = await graphql(app, `{ posts(authorId: ${writer.id}, locale: ${JSON.stringify(locale)}) { nodes { id } } }`);
        expectError(result, 'BAD_USER_INPUT', ['posts']);
      }
    });

    it('GET /posts/{id} is always that post, in its own locale, whatever Accept-Language says', async () => {
      const german = groups.find((group) => group.name === 'en+de')!.members.find((member) => member.locale === 'de')!;
      const response = await http().get(`/posts/${german.id}`).set('Accept-Language', 'fr, en;q=0.5').expect(200);
      expect(response.body.id).toBe(german.id);
      expect(response.headers['content-language']).toBe('de');
    });

    it('the HAL, XML and HTML lists negotiate alike', async () => {
      const path = `/posts?authorId=${writer.id}&limit=100`;
      const hal = await http().get(path).set('Accept', 'application/hal+json').set('Accept-Language', 'de-CH').expect(200);
      expectNegotiated((JSON.parse(hal.text) as { _embedded: { posts: { id: number }[] } })._embedded.posts.map((post) => post.id), groups, 'de-CH', 'HAL', { ordered: true });
      expect(hal.headers['content-language']).toBe('de-CH');
      const xml = await http().get(`${path}&locale=fr`).set('Accept', 'application/xml').expect(200);
      const xmlIds = parseXml(xml.text).children.map((child) => Number(xmlFields(child).fields.id));
      expectNegotiated(xmlIds, groups, 'fr', 'XML', { ordered: true });
      expect(xml.headers['content-language']).toBe('fr');
      const atom = await http().get(path).set('Accept', 'application/atom+xml').set('Accept-Language', 'de').expect(200);
      const atomIds = [...atom.text.matchAll(/<id>tag:[^<]*:post:(\d+)<\/id>/g)].map((match) => Number(match[1]));
      expectNegotiated(atomIds, groups, 'de', 'Atom of GET /posts', { ordered: true });
      expect(atom.headers['content-language']).toBe('de');
      expect(varyOf(atom)).toEqual(expect.arrayContaining(['accept', 'accept-language']));
    });
  });

  it('a group keeps the place of its first published translation: publishing another one later does not move it', async () => {
    const writer = await newWriter();
    const a = await writeGroup(app, writer, 'A', [['en', 'published']]);
    await sleep(30);
    const b = await writeGroup(app, writer, 'B', [['en', 'published']]);
    await sleep(30);
    const translation = await http().post('/posts').set(bearer(writer.token)).send({ title: 'A auf Deutsch', body: 'Der Text', locale: 'de', status: 'draft', translationOf: { postId: a.members[0].id } }).expect(201);
    const german: Member = { id: translation.body.id as number, locale: 'de', status: 'draft', publishedAt: null, title: 'A auf Deutsch' };
    a.members.push(german);
    await sleep(30);
    await publish(app, writer, german);
    // The premise: A's German post was published after B, B after A's English one.
    expect(Date.parse(german.publishedAt!)).toBeGreaterThan(Date.parse(b.members[0].publishedAt!));
    expect(Date.parse(b.members[0].publishedAt!)).toBeGreaterThan(Date.parse(a.members[0].publishedAt!));

    for (const door of DOORS) {
      expect((await door.read(app, writer.id, { query: 'de' })).ids, `${door.name}, de: B (newer group) then A's German post`).toEqual([b.members[0].id, german.id]);
      expect((await door.read(app, writer.id, { header: 'de' })).ids, `${door.name}, Accept-Language: de`).toEqual([b.members[0].id, german.id]);
      expect((await door.read(app, writer.id, { query: 'en' })).ids, `${door.name}, en`).toEqual([b.members[0].id, a.members[0].id]);
    }
    const oldestFirst = await http().get(`/posts?authorId=${writer.id}&locale=de&sort=publishedAt`).expect(200);
    expect((oldestFirst.body as { id: number }[]).map((post) => post.id), 'sort=publishedAt, de').toEqual([german.id, b.members[0].id]);
    const ascending = expectData(await graphql(app, `{ posts(authorId: ${writer.id}, locale: "de", orderBy: PUBLISHED_AT_ASC) { nodes { id } } }`)).posts.nodes as { id: number }[];
    expect(ascending.map((node) => node.id), 'GraphQL PUBLISHED_AT_ASC, de').toEqual([german.id, b.members[0].id]);
  });

  describe('paging across 200 groups (Accept-Language: de-CH, limit 7): no group repeated, none lost, each in its expected post', () => {
    let writer: Writer;
    const groups: Group[] = [];
    /** Ten shapes, twenty groups each: some with only en, en+de, de only, fr+de-CH, drafts among the translations. */
    const PAGING_SHAPES: [string, Status][][] = [
      [['en', 'published']],
      [['en', 'published'], ['de', 'published']],
      [['de', 'published']],
      [['fr', 'published'], ['de-CH', 'published']],
      [['en', 'published'], ['de', 'draft']],
      [['fr', 'published'], ['de-CH', 'draft']],
      [['de', 'published'], ['de-CH', 'published'], ['en', 'published']],
      [['en', 'draft'], ['fr', 'published']],
      [['de-CH', 'draft']],
      [['fr', 'published'], ['en', 'published'], ['de', 'draft']],
    ];

    beforeAll(async () => {
      writer = await newWriter();
      const total = 200;
      const batch = 10;
      for (let start = 0; start < total; start += batch) {
        const written = await Promise.all(
          Array.from({ length: batch }, (_unused, offset) => {
            const index = start + offset;
            return writeGroup(app, writer, `g${index}`, PAGING_SHAPES[index % PAGING_SHAPES.length]);
          }),
        );
        groups.push(...written);
      }
    }, 120_000);

    /** Follows Link rel="next" from `first`, the same Accept-Language on every page; each page says Content-Language (but `*`'s). */
    async function walk(first: string, accept: string, idsOf: (response: Response) => number[], language = 'de-CH', contentLanguage: string | null = 'de-CH'): Promise<number[]> {
      const ids: number[] = [];
      let next: string | null = first;
      let pages = 0;
      while (next !== null) {
        const response = await http().get(next).set('Accept', accept).set('Accept-Language', language);
        expect(response.status, `${next}: ${response.text.slice(0, 200)}`).toBe(200);
        if (contentLanguage !== null) expect(response.headers['content-language'], next).toBe(contentLanguage);
        const page = idsOf(response);
        expect(page.length, `${next}: at most 7`).toBeLessThanOrEqual(7);
        ids.push(...page);
        // A feed's links are absolute (PUBLIC_BASE_URL): follow their path.
        const link = nextLink(response);
        next = link === null ? null : link.replace(/^https?:\/\/[^/]+/, '');
        pages += 1;
        expect(pages, 'pages').toBeLessThan(100);
      }
      return ids;
    }

    const jsonIds = (response: Response) => (response.body as { id: number }[]).map((post) => post.id);

    it('GET /posts?authorId=&limit=7', async () => {
      expectNegotiated(await walk(`/posts?authorId=${writer.id}&limit=7`, 'application/json', jsonIds), groups, 'de-CH', 'GET /posts pages', { ordered: true });
    });

    it('GET /posts?authorId=&limit=7&locale=de-CH (the locale in the query, kept by the next link over another Accept-Language)', async () => {
      expectNegotiated(await walk(`/posts?authorId=${writer.id}&limit=7&locale=de-CH`, 'application/json', jsonIds, 'fr'), groups, 'de-CH', 'GET /posts?locale=de-CH pages', { ordered: true });
    });

    it('GET /users/{id}/posts?limit=7', async () => {
      expectNegotiated(await walk(`/users/${writer.id}/posts?limit=7`, 'application/json', jsonIds), groups, 'de-CH', 'GET /users/{id}/posts pages', { ordered: true });
    });

    it('GET /feed?authorId=&limit=7 (JSON Feed)', async () => {
      expectNegotiated(await walk(`/feed?authorId=${writer.id}&limit=7`, 'application/feed+json', feedIds), groups, 'de-CH', 'GET /feed pages', { ordered: true });
    });

    it('GraphQL posts(first: 7, after:, locale: "de-CH"), and totalCount counts the groups', async () => {
      const ids: number[] = [];
      let after: string | null = null;
      for (let page = 0; page < 60; page++) {
        const result = await graphql(app, 'query($w: Int!, $after: String) { posts(authorId: $w, first: 7, after: $after, locale: "de-CH") { totalCount nodes { id } pageInfo { endCursor hasNextPage } } }', { w: writer.id, after });
        const { posts } = expectData(result);
        expect(posts.totalCount, 'totalCount: the groups with a published post').toBe(groups.filter((group) => published(group).length > 0).length);
        ids.push(...(posts.nodes as { id: number }[]).map((node) => node.id));
        if (!posts.pageInfo.hasNextPage) break;
        after = posts.pageInfo.endCursor as string;
      }
      expectNegotiated(ids, groups, 'de-CH', 'GraphQL pages', { ordered: true });
    });

    it('?locale=* pages through every published translation once', async () => {
      expectNegotiated(await walk(`/posts?authorId=${writer.id}&limit=7&locale=*`, 'application/json', jsonIds, 'de-CH', null), groups, '*', 'GET /posts?locale=* pages');
    });
  });

  describe('drafts never leak: a group with its en post published and its de post a draft', () => {
    let writer: Writer;
    let group: Group;
    let english: Member;
    let draft: Member;
    const mark = `Entwurf${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      writer = await newWriter();
      group = await writeGroup(app, writer, 'leak', [['en', 'published']]);
      english = group.members[0];
      const response = await http().post('/posts').set(bearer(writer.token)).send({ title: `Geheim ${mark}`, body: `Noch nicht ${mark}`, locale: 'de', status: 'draft', translationOf: { postId: english.id } }).expect(201);
      draft = { id: response.body.id as number, locale: 'de', status: 'draft', publishedAt: null, title: `Geheim ${mark}` };
      group.members.push(draft);
    });

    const readers = () => ({ anonymous: undefined, bob: app.tokens.bob, author: writer.token, editor, admin: app.tokens.admin });

    it('the public lists in de show the en post, never the draft, whoever asks', async () => {
      for (const [name, token] of Object.entries(readers())) {
        for (const door of DOORS) {
          for (const asking of [{ query: 'de' }, { header: 'de' }, { header: 'de-CH' }]) {
            const listing = await door.read(app, writer.id, asking, token);
            expect(listing.ids, `${name}, ${door.name} ${JSON.stringify(asking)}`).toEqual([english.id]);
            if (listing.totalCount !== undefined) expect(listing.totalCount, `${name}, ${door.name}: totalCount`).toBe(1);
            if (listing.response) expect(listing.response.text, `${name}, ${door.name}: the draft's text`).not.toContain(mark);
          }
        }
      }
    });

    it("?locale=* lists the en post alone; the draft's author sees the draft with ?status=draft (also with ?locale=de)", async () => {
      const all = await http().get(`/posts?authorId=${writer.id}&locale=*`).expect(200);
      expect((all.body as { id: number }[]).map((post) => post.id)).toEqual([english.id]);
      expect(all.text).not.toContain(mark);
      for (const path of ['/posts?status=draft&limit=100', '/posts?status=draft&locale=de&limit=100', `/users/${writer.id}/posts?status=draft`, `/users/${writer.id}/posts?status=draft&locale=de`]) {
        const drafts = await http().get(path).set(bearer(writer.token)).set('Accept-Language', 'de').expect(200);
        expect((drafts.body as { id: number }[]).map((post) => post.id), `the author: ${path}`).toContain(draft.id);
        const bobs = await http().get(path.startsWith('/users') ? path : `${path}&authorId=${writer.id}`).set(bearer(app.tokens.bob)).set('Accept-Language', 'de');
        if (bobs.status === 200) {
          expect((bobs.body as { id: number }[]).map((post) => post.id), `BOB: ${path}`).not.toContain(draft.id);
          expect(bobs.text, `BOB: ${path}`).not.toContain(mark);
        } else {
          expect([403, 404], `BOB: ${path}`).toContain(bobs.status);
        }
      }
      const graphDrafts = expectData(await graphql(app, '{ posts(status: DRAFT, first: 100, locale: "de") { nodes { id } } }', undefined, { token: writer.token })).posts.nodes as { id: number }[];
      expect(graphDrafts.map((node) => node.id), 'GraphQL posts(status: DRAFT, locale: "de"), the author').toContain(draft.id);
    });

    it("the published post's _links.translations and GraphQL translations name the draft to its author and editors only", async () => {
      const seesDraft = (name: string) => ['author', 'editor', 'admin'].includes(name);
      for (const [name, token] of Object.entries(readers())) {
        const as = (test: request.Test) => (token ? test.set(bearer(token)) : test);
        const expected = seesDraft(name) ? [{ href: `/posts/${draft.id}`, hreflang: 'de' }] : undefined;
        const item = await as(http().get(`/posts/${english.id}`)).expect(200);
        expect(item.body._links.translations, `${name}: GET /posts/{id}`).toEqual(expected);
        const list = await as(http().get(`/posts?authorId=${writer.id}&locale=de`)).expect(200);
        const listed = (list.body as { id: number; _links: { translations?: unknown } }[]).find((post) => post.id === english.id);
        expect(listed?._links.translations, `${name}: GET /posts?locale=de`).toEqual(expected);
        if (!seesDraft(name)) {
          expect(item.text, name).not.toContain(`/posts/${draft.id}"`);
          expect(list.text, name).not.toContain(`/posts/${draft.id}"`);
        }
        const result = await graphql(app, `{ posts(authorId: ${writer.id}, locale: "de") { nodes { id translations { id locale } } } }`, undefined, token ? { token } : {});
        const nodes = expectData(result).posts.nodes as { id: number; translations: { id: number }[] }[];
        expect(nodes.map((node) => node.id), name).toEqual([english.id]);
        expect(nodes[0].translations.map((translation) => translation.id), `${name}: GraphQL translations`).toEqual(seesDraft(name) ? [draft.id] : []);
        if (!seesDraft(name)) expect(result.response.text, name).not.toContain(mark);
      }
    });

    it('once the draft is published, the de lists show it instead (still one post for the group)', async () => {
      const writer2 = await newWriter();
      const second = await writeGroup(app, writer2, 'later', [['en', 'published'], ['de', 'draft']]);
      for (const door of DOORS) expect((await door.read(app, writer2.id, { query: 'de' })).ids, door.name).toEqual([second.members[0].id]);
      await publish(app, writer2, second.members[1]);
      for (const door of DOORS) expect((await door.read(app, writer2.id, { query: 'de' })).ids, door.name).toEqual([second.members[1].id]);
      for (const door of DOORS) expect((await door.read(app, writer2.id, { query: 'en' })).ids, door.name).toEqual([second.members[0].id]);
    });
  });

  it('GraphQL posts totalCount counts groups, with and without a writer, and every translation with locale "*"', async () => {
    const writer = await newWriter();
    const groups: Group[] = [];
    for (const [name, shape] of SHAPES) groups.push(await writeGroup(app, writer, `count ${name}`, shape));
    const shown = groups.filter((group) => published(group).length > 0).length;
    for (const locale of ['en', 'de', 'de-CH', 'fr']) {
      const { posts } = expectData(await graphql(app, `{ posts(authorId: ${writer.id}, first: 3, locale: "${locale}") { totalCount nodes { id } } }`));
      expect(posts.totalCount, locale).toBe(shown);
      expect(posts.nodes).toHaveLength(3);
    }
    const every = expectData(await graphql(app, `{ posts(authorId: ${writer.id}, first: 3, locale: "*") { totalCount } }`)).posts.totalCount as number;
    expect(every).toBe(groups.reduce((sum, group) => sum + published(group).length, 0));
    // The whole public list: the number of nodes it pages through.
    const whole = async (locale: string) => {
      let after: string | null = null;
      let count = 0;
      let total = -1;
      for (let page = 0; page < 100; page++) {
        const result = await graphql(app, 'query($after: String, $l: String) { posts(first: 100, after: $after, locale: $l) { totalCount nodes { id } pageInfo { endCursor hasNextPage } } }', { after, l: locale });
        const { posts } = expectData(result);
        total = posts.totalCount as number;
        count += (posts.nodes as unknown[]).length;
        if (!posts.pageInfo.hasNextPage) break;
        after = posts.pageInfo.endCursor as string;
      }
      return { count, total };
    };
    for (const locale of ['de-CH', '*']) {
      const { count, total } = await whole(locale);
      expect(total, `the public list in ${locale}: totalCount is what it pages through`).toBe(count);
    }
  });
});

describeEachDatabase('locale negotiation and the response cache', (kind) => {
  const app = useApp(kind, { env: LOCALE_ENV, timeout: 60_000 });
  const http = () => request(app.server);

  it('the same URL in de, then fr, then de: each answer in its own language (Content-Language, body), also from the cache', async () => {
    const user = await createUser(app);
    const writer = { id: user.id, token: user.token };
    const groups = [
      await writeGroup(app, writer, 'c1', [['en', 'published']]),
      await writeGroup(app, writer, 'c2', [['en', 'published'], ['de', 'published']]),
      await writeGroup(app, writer, 'c3', [['en', 'published'], ['fr', 'published']]),
    ];
    for (const path of [`/posts?authorId=${writer.id}`, `/users/${writer.id}/posts`, `/feed?authorId=${writer.id}`]) {
      const accept = path.startsWith('/feed') ? 'application/feed+json' : 'application/json';
      const ids = (response: Response) => (accept === 'application/json' ? (response.body as { id: number }[]).map((post) => post.id) : feedIds(response));
      const read = async (language: string) => {
        const response = await http().get(path).set('Accept', accept).set('Accept-Language', language).expect(200);
        return response;
      };
      const bodies = new Map<string, string>();
      for (const language of ['de', 'de', 'fr', 'fr', 'de', 'en', 'de-CH', 'fr']) {
        const response = await read(language);
        const chosen = language;
        expect(response.headers['content-language'], `${path} ${language} (${response.headers['cache-status'] as string})`).toBe(chosen);
        expectNegotiated(ids(response), groups, chosen, `${path} ${language}`, { ordered: true });
        if (bodies.has(language)) expect(response.text, `${path} ${language}: the same answer again`).toBe(bodies.get(language));
        bodies.set(language, response.text);
      }
      expect(bodies.get('de'), path).not.toBe(bodies.get('fr'));
    }
    // GraphQL alike, by Accept-Language and by locale:.
    for (const language of ['de', 'fr', 'de']) {
      const viaHeader = expectData(await graphql(app, `{ posts(authorId: ${writer.id}) { nodes { id } } }`, undefined, { headers: { 'Accept-Language': language } })).posts.nodes as { id: number }[];
      expectNegotiated(viaHeader.map((node) => node.id), groups, language, `GraphQL, Accept-Language: ${language}`, { ordered: true });
      const viaArgument = expectData(await graphql(app, `{ posts(authorId: ${writer.id}, locale: "${language}") { nodes { id } } }`)).posts.nodes as { id: number }[];
      expectNegotiated(viaArgument.map((node) => node.id), groups, language, `GraphQL, locale: ${language}`, { ordered: true });
    }
  });

  it('a cached list in de shows a de translation published after it was cached', async () => {
    const user = await createUser(app);
    const writer = { id: user.id, token: user.token };
    const group = await writeGroup(app, writer, 'fresh', [['en', 'published'], ['de', 'draft']]);
    const read = async () => ((await http().get(`/posts?authorId=${writer.id}`).set('Accept-Language', 'de').expect(200)).body as { id: number }[]).map((post) => post.id);
    expect(await read()).toEqual([group.members[0].id]);
    expect(await read()).toEqual([group.members[0].id]);
    await publish(app, writer, group.members[1]);
    expect(await read()).toEqual([group.members[1].id]);
  });
});

const missing = [!TEST_DATABASE_URL && 'TEST_DATABASE_URL', !TEST_REDIS_URL && 'TEST_REDIS_URL'].filter(Boolean);
const scaleOut = missing.length === 0;

(scaleOut ? describe : describe.skip)(
  `locale negotiation and the response cache on two instances (PostgreSQL + Redis)${scaleOut ? '' : ` (skipped: ${missing.join(' and ')} not set)`}`,
  () => {
    let database: TestDatabase;
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const env = { ...LOCALE_ENV, REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: `blog-test-locales-${process.pid}-${randomBytes(4).toString('hex')}:` };
      a = await startTestApp('postgres', { database, env });
      b = await startTestApp('postgres', { database, env });
    }, 60_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
    });

    it('one URL, de and fr, read on both instances in turn: never the other language', async () => {
      const user = await createUser(a);
      const writer = { id: user.id, token: user.token };
      const groups = [
        await writeGroup(a, writer, 's1', [['en', 'published'], ['de', 'published'], ['fr', 'published']]),
        await writeGroup(a, writer, 's2', [['en', 'published'], ['de', 'published']]),
        await writeGroup(a, writer, 's3', [['fr', 'published']]),
      ];
      const path = `/posts?authorId=${writer.id}`;
      const texts = new Map<string, Set<string>>([['de', new Set()], ['fr', new Set()]]);
      for (const [instance, language] of [[a, 'de'], [b, 'fr'], [a, 'fr'], [b, 'de'], [a, 'de'], [b, 'fr'], [b, 'de'], [a, 'fr']] as const) {
        const response = await request(instance.server).get(path).set('Accept-Language', language).expect(200);
        const where = `${instance === a ? 'A' : 'B'} ${language} (${response.headers['cache-status'] as string})`;
        expect(response.headers['content-language'], where).toBe(language);
        expectNegotiated((response.body as { id: number }[]).map((post) => post.id), groups, language, where, { ordered: true });
        texts.get(language)!.add(response.text);
      }
      for (const [language, seen] of texts) expect(seen.size, `${language}: one answer on both instances`).toBe(1);
      expect([...texts.get('de')!][0]).not.toBe([...texts.get('fr')!][0]);
    });
  },
);

describeEachDatabase('locale negotiation: SQL statements', (kind) => {
  const single = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, timeout: 60_000 });
  const multi = useApp(kind, { env: { RESPONSE_CACHE: 'off', ...LOCALE_ENV }, timeout: 60_000 });

  beforeAll(async () => {
    // Translations of the demo posts, some drafts, so that there is something to choose between.
    const first = (await request(multi.server).get('/posts?limit=5').expect(200)).body as { id: number }[];
    for (const [index, post] of first.entries()) {
      await request(multi.server).post('/posts').set(bearer(multi.tokens.admin)).send({ title: `Übersetzung ${index}`, body: 'Text', locale: 'de', status: index % 2 === 0 ? 'published' : 'draft', translationOf: { postId: post.id } }).expect(201);
      if (index < 3) await request(multi.server).post('/posts').set(bearer(multi.tokens.admin)).send({ title: `Traduction ${index}`, body: 'Texte', locale: 'fr', translationOf: { postId: post.id } }).expect(201);
    }
  }, 60_000);

  const count = (app: TestApp, path: string, headers: Record<string, string> = {}) =>
    fewestStatements(app, async () => {
      const response = await request(app.server).get(path).set(headers);
      expect(response.status, response.text.slice(0, 200)).toBe(200);
    });

  it('a list with locales costs at most one statement more than the same list on a single-locale app', async () => {
    const authorOf = async (app: TestApp) => ((await request(app.server).get('/posts?limit=1').expect(200)).body as { authorId: number }[])[0].authorId;
    const [singleAuthor, multiAuthor] = [await authorOf(single), await authorOf(multi)];
    const lists: [string, string][] = [
      ['/posts', '/posts'],
      ['/posts?limit=20', '/posts?limit=20&locale=de'],
      [`/users/${singleAuthor}/posts`, `/users/${multiAuthor}/posts`],
      ['/feed', '/feed'],
    ];
    for (const [plain, negotiated] of lists) {
      const without = await count(single, plain);
      for (const headers of [{ 'Accept-Language': 'de-CH' }, { 'Accept-Language': 'fr;q=0.9, en;q=0.8' }, {}] as Record<string, string>[]) {
        const withLocales = await count(multi, negotiated, headers);
        console.log(`[${kind}] ${plain}: ${without} statements on one locale; ${negotiated} ${JSON.stringify(headers)}: ${withLocales}`);
        expect(withLocales, `${negotiated} ${JSON.stringify(headers)} vs ${plain} on one locale (${without})`).toBeLessThanOrEqual(without + 1);
      }
    }
    const graphWithout = await fewestStatements(single, () => graphql(single, '{ posts(first: 20) { nodes { id title locale } } }'));
    const graphWith = await fewestStatements(multi, () => graphql(multi, '{ posts(first: 20, locale: "de-CH") { nodes { id title locale } } }'));
    console.log(`[${kind}] GraphQL posts(first: 20): ${graphWithout} on one locale; with locale "de-CH": ${graphWith}`);
    expect(graphWith).toBeLessThanOrEqual(graphWithout + 1);
  });
});
