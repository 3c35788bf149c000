import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { createPost } from './support/resources.js';
import { describeEachDatabase, startTestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { applySearchLanguage } from '../src/database/search-language.js';
import { PostFinder, type PostListScope, type PostPage } from '../src/posts/post-finder.service.js';

const FIELDS = { q: 'q', sort: 'sort', cursor: 'cursor' };
/** A Swiss reader's language chain with SUPPORTED_LOCALES=en,de,de-CH,fr and LOCALE_FALLBACKS=de-CH:de. */
const SWISS = ['de-CH', 'de', 'en'];

/**
 * Search per language (CONTRACT §15, third bullet): each post is indexed in its own locale's
 * language (PostgreSQL: the configuration of the locale's primary subtag, `simple` when there is
 * none; SQLite: Porter stems for English posts, plain words for the others), and a search reads
 * its query in each language of the reader's chain (PostFinding.languages; DEFAULT_LOCALE when
 * none is given, as `GET /posts?q=` does until the lists negotiate a locale).
 */
/** The public list's scope with a search read in `languages` (every post its own item); none: DEFAULT_LOCALE's. */
const inLanguages = (languages?: readonly string[]): PostListScope => (languages ? { languages: { locale: languages[0], chain: languages, perGroup: false } } : {});

describeEachDatabase('search per language', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off', SUPPORTED_LOCALES: 'en,de,de-CH,fr', LOCALE_FALLBACKS: 'de-CH:de' }, timeout: 60_000 });
  const http = () => request(app.server);
  let address = 0;

  /** The public posts found for `q` read in `languages`, with their rank and snippet, and how many the count says. */
  async function search(q: string, languages?: readonly string[]): Promise<{ ids: number[]; page: PostPage; count: number }> {
    const finder = app.app.get(PostFinder);
    address += 1;
    const scope = inLanguages(languages);
    const page = await finder.find(scope, { q }, { limit: 50 }, FIELDS, `192.0.2.${address % 250}`);
    const count = await finder.countFound(scope, { q });
    return { ids: page.items.map((post) => post.id), page, count };
  }

  /** The ids `GET /posts?q=` finds (the default chain: DEFAULT_LOCALE). */
  const found = async (q: string) => ((await http().get(`/posts?q=${encodeURIComponent(q)}&limit=50`).expect(200)).body as { id: number }[]).map((post) => post.id);

  let german: number;
  let english: number;
  let french: number;

  beforeAll(async () => {
    german = (await createPost(app, app.tokens.alice, { locale: 'de', title: 'Die Häuser der Stadt', body: 'Wir testen das Streaming in den Straßen' })).id;
    english = (await createPost(app, app.tokens.alice, { locale: 'en', title: 'Running late', body: 'She keeps running for the bus' })).id;
    french = (await createPost(app, app.tokens.alice, { locale: 'fr', title: 'Les chevaux', body: 'Les chevaux mangent dans le pré' })).id;
  }, 60_000);

  afterAll(async () => {
    // Whatever the tests wrote, SQLite's FTS5 tables hold exactly what their posts say (an
    // external-content table's integrity check compares the index with the rows).
    if (kind === 'sqlite') {
      const source = app.app.get(DataSource);
      for (const table of ['posts_fts', 'posts_fts_plain']) await source.query(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`);
    }
  });

  it('an English post is found by its stem, through GET /posts and through a chain that has English', async () => {
    expect(await found('run')).toContain(english);
    const swiss = await search('run', SWISS);
    expect(swiss.ids).toContain(english);
    expect(swiss.count).toBe(swiss.ids.length);
    const result = swiss.page.search!.get(english)!;
    expect(result.rank).toBeGreaterThan(0);
    expect(result.snippet).toMatch(/running/i);
  });

  it('a German post is stemmed in German on PostgreSQL and read as plain words on SQLite, never with English stems', async () => {
    // `Häusern` is a form of `Haus` in German, not in English: only a chain with German finds it.
    const swiss = await search('Häusern', SWISS);
    expect(swiss.ids).toEqual(kind === 'postgres' ? [german] : []);
    expect((await search('Haus', ['de'])).ids).toEqual(kind === 'postgres' ? [german] : []);
    expect((await search('Häusern', ['en'])).ids).toEqual([]);
    // The word as written is found on both, with its rank and snippet.
    const exact = await search('Häuser', SWISS);
    expect(exact.ids).toEqual([german]);
    expect(exact.count).toBe(1);
    expect(exact.page.search!.get(german)!.rank).toBeGreaterThan(0);
    expect(exact.page.search!.get(german)!.snippet).toContain('Häuser');
    // English stems are not applied to a German post (before, every post was Porter-stemmed: `stream` found `Streaming`).
    expect((await search('Streaming', SWISS)).ids).toEqual([german]);
    expect((await search('stream', SWISS)).ids).toEqual([]);
    // A reader whose chain is English alone reads `Häuser` as an English word (PostgreSQL), or in the English posts (SQLite's Porter table): no German post has it.
    expect(await found('Häuser')).toEqual([]);
  });

  it('a French post: French stems on PostgreSQL, plain words on SQLite', async () => {
    expect((await search('cheval', ['fr'])).ids).toEqual(kind === 'postgres' ? [french] : []);
    expect((await search('chevaux', ['fr'])).ids).toEqual([french]);
    expect((await search('chevaux', ['fr'])).page.search!.get(french)!.snippet).toContain('chevaux');
  });

  it('one search over several languages ranks and cuts snippets for the posts of each', async () => {
    const mixed = await search('bus', ['de', 'en']);
    expect(mixed.ids).toEqual([english]);
    const german2 = (await createPost(app, app.tokens.alice, { locale: 'de', title: 'Der Bus', body: 'Ein Bus fährt in die Stadt' })).id;
    const buses = await search('bus', ['de', 'en']);
    expect(new Set(buses.ids)).toEqual(new Set([english, german2]));
    expect(buses.count).toBe(2);
    for (const id of [english, german2]) {
      expect(buses.page.search!.get(id)!.rank).toBeGreaterThan(0);
      expect(buses.page.search!.get(id)!.snippet).toMatch(/bus/i);
    }
    // The chain's order decides nothing about which posts match.
    expect(new Set((await search('bus', ['en', 'de-CH'])).ids)).toEqual(new Set([english, german2]));
  });

  it('a change of locale re-indexes the post in its new language', async () => {
    const post = (await createPost(app, app.tokens.alice, { locale: 'en', title: 'Wandering gardens', body: 'Gardens wandered by paths' })).id;
    expect((await search('wander', ['en'])).ids).toEqual([post]);
    await http().patch(`/posts/${post}`).set(bearer(app.tokens.alice)).send({ locale: 'de' }).expect(200);
    // Now a German post: no English stem finds it, its words do.
    expect((await search('wander', SWISS)).ids).toEqual([]);
    expect((await search('wandering', ['de'])).ids).toEqual([post]);
    await http().patch(`/posts/${post}`).set(bearer(app.tokens.alice)).send({ locale: 'en' }).expect(200);
    expect((await search('wander', ['en'])).ids).toEqual([post]);
    // A title change alone re-indexes it in its language too.
    await http().patch(`/posts/${post}`).set(bearer(app.tokens.alice)).send({ title: 'Wanderers', body: 'Paths' }).expect(200);
    expect((await search('gardens', SWISS)).ids).toEqual([]);
    expect((await search('wanderer', ['en'])).ids).toEqual([post]);
  });

  it('deleting a post removes it from the index of its language', async () => {
    const post = (await createPost(app, app.tokens.alice, { locale: 'de', title: 'Zwetschgenkuchen', body: 'Ein Rezept für Zwetschgenkuchen' })).id;
    expect((await search('Zwetschgenkuchen', ['de'])).ids).toEqual([post]);
    await http().delete(`/posts/${post}`).set(bearer(app.tokens.alice)).expect(204);
    await http().delete(`/posts/${post}`).set(bearer(app.tokens.alice)).expect(204);
    await http().get(`/posts/${post}`).set(bearer(app.tokens.alice)).expect(404);
    const source = app.app.get(DataSource);
    const indexed =
      kind === 'postgres'
        ? await source.query(`SELECT id FROM posts WHERE search @@ websearch_to_tsquery('german', 'Zwetschgenkuchen')`)
        : await source.query(`SELECT rowid FROM posts_fts_plain WHERE posts_fts_plain MATCH 'Zwetschgenkuchen'`);
    expect(indexed).toEqual([]);
  });

  if (kind === 'postgres') {
    it("PostgreSQL: a locale's configuration is its primary subtag's, `simple` when PostgreSQL has none", async () => {
      const source = app.app.get(DataSource);
      const [row] = (await source.query(
        `SELECT search_configuration('de-CH')::text AS swiss, search_configuration('FR') AS french, search_configuration('nb') AS bokmal, search_configuration('ja') AS japanese, search_configuration('en-GB') AS british`,
      )) as Record<string, string>[];
      expect(row).toEqual({ swiss: 'german', french: 'french', bokmal: 'norwegian', japanese: 'simple', british: 'english' });
    });

    it('PostgreSQL: a search over several languages is still served by idx_posts_search', async () => {
      const source = app.app.get(DataSource);
      // Enough posts (none holding the words searched) that reading them all costs more than probing the index, as on a real blog.
      const [{ id: author }] = (await source.query(`SELECT id FROM users ORDER BY id LIMIT 1`)) as { id: number }[];
      await source.query(
        `INSERT INTO posts (title, body, author_id, status, published_at, created_at, updated_at, version, locale)
          SELECT 'Filler ' || g, 'Nothing to see in filler number ' || g, $1, 'published', now(), now(), now(), 1, CASE WHEN g % 2 = 0 THEN 'de' ELSE 'en' END FROM generate_series(1, 20000) g`,
        [author],
      );
      // VACUUM also moves the new rows from the GIN index's pending list into the index, as autovacuum does.
      await source.query('VACUUM (ANALYZE) posts');
      const recorded: { query: string; parameters: unknown[] }[] = [];
      const logQuery = source.logger.logQuery.bind(source.logger);
      source.logger.logQuery = (query, parameters, runner) => {
        if (/search_configuration/.test(query)) recorded.push({ query, parameters: Array.isArray(parameters) ? parameters : [] });
        return logQuery(query, parameters, runner);
      };
      try {
        expect((await search('Häuser bus', SWISS)).ids).toEqual([]);
      } finally {
        source.logger.logQuery = logQuery;
      }
      // The page and the count.
      expect(recorded.length).toBe(2);
      for (const statement of recorded) {
        // Two languages (de, en) read the query: two tsqueries ORed into the one the index is probed with.
        expect(statement.parameters.filter((value) => value === 'de' || value === 'en').sort()).toEqual(['de', 'en']);
        const plan = ((await source.query(`EXPLAIN ${statement.query}`, statement.parameters)) as { 'QUERY PLAN': string }[]).map((line) => line['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Bitmap Index Scan on idx_posts_search/);
        expect(plan).not.toMatch(/Seq Scan on posts\b/);
      }
    });
  }
});

describeEachDatabase('SEARCH_LANGUAGE beside locales', (kind) => {
  it("names the configuration of DEFAULT_LOCALE's language only; start-up rebuilds the index only when that changes", async () => {
    const app = await startTestApp(kind, { env: { SUPPORTED_LOCALES: 'en,fr', SEARCH_LANGUAGE: 'german', RESPONSE_CACHE: 'off' } });
    try {
      const token = await tokenFor(app, ALICE);
      const english = (await createPost(app, token, { title: 'Die Häuser', body: 'Wir laufen' })).id;
      const french = (await createPost(app, token, { locale: 'fr', title: 'Les chevaux', body: 'Au pré' })).id;
      const finder = app.app.get(PostFinder);
      const ids = async (q: string, languages: readonly string[]) => (await finder.find(inLanguages(languages), { q }, { limit: 50 }, FIELDS, '192.0.2.1')).items.map((post) => post.id);
      // The `en` posts are read as German on PostgreSQL (as every post was before locales); SQLite has Porter stems for them whatever the setting.
      expect(await ids('Haus', ['en'])).toEqual(kind === 'postgres' ? [english] : []);
      expect(await ids('Häuser', ['en'])).toEqual([english]);
      // Other languages keep their own configuration.
      expect(await ids('cheval', ['fr'])).toEqual(kind === 'postgres' ? [french] : []);
      const source = app.app.get(DataSource);
      const settings = { searchLanguage: 'german', defaultLocale: 'en' };
      expect(await applySearchLanguage(source, settings)).toBe(false);
      if (kind === 'postgres') {
        expect(await applySearchLanguage(source, { defaultLocale: 'en' })).toBe(true);
        expect(await ids('Haus', ['en'])).toEqual([]);
        expect(await applySearchLanguage(source, { defaultLocale: 'en' })).toBe(false);
        // Naming the configuration a language has anyway changes nothing.
        expect(await applySearchLanguage(source, { searchLanguage: 'english', defaultLocale: 'en' })).toBe(false);
        await expect(applySearchLanguage(source, { searchLanguage: 'klingon', defaultLocale: 'en' })).rejects.toThrow(/SEARCH_LANGUAGE: "klingon"/);
      }
    } finally {
      await app.close();
    }
  });
});
