import { extractFromJson, extractFromXml } from '@extractus/feed-extractor';
import Parser from 'rss-parser';
import request, { type Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { ATOM_TYPE, expectValidAtom, expectWellFormed, FEED_TYPES, JSON_FEED_TYPE, RSS_TYPE } from './support/feeds.js';
import { useApp } from './support/fixture.js';
import { expectProblem } from './support/problems.js';
import { createPost as createPostBody, nextLink, type PostBody } from './support/resources.js';
import { describeEachDatabase, type TestApp } from './support/test-app.js';

/**
 * GET /feed and the feed types of GET /posts and GET /users/{id}/posts (CONTRACT §13): Atom 1.0
 * valid against RFC 4287's RELAX NG schema, RSS 2.0 and JSON Feed 1.1 read by common parsers,
 * absolute links from PUBLIC_BASE_URL / PUBLIC_POST_URL, stable entry ids, public posts only,
 * conditional requests, paging by Link rel="next", and the response cache.
 */

const BASE = 'https://blog.example.com';
const ENV = { PUBLIC_BASE_URL: BASE, PUBLIC_POST_URL: '{base}/{yyyy}/{mm}/{slug}' };
const rss = new Parser({ customFields: { item: [['dc:creator', 'creator'], ['atom:updated', 'updated']] } });

/** A post as GET /posts/{id} shows it, with the §13 fields a feed reads. */
type FeedPost = PostBody & { slug: string; bodyHtml: string; publishedAt: string | null };
const createPost = async (app: TestApp, token: string, fields: Record<string, unknown> = {}) => (await createPostBody(app, token, fields)) as FeedPost;

let sequence = 0;
const unique = (what: string) => `${what}-${process.pid}-${++sequence}`;

/** The post's public address under ENV's PUBLIC_POST_URL. */
const postUrl = (post: FeedPost) => {
  const published = new Date(post.publishedAt ?? post.createdAt);
  return `${BASE}/${published.getUTCFullYear()}/${String(published.getUTCMonth() + 1).padStart(2, '0')}/${post.slug}`;
};
const entryIdOf = (post: Pick<PostBody, 'id' | 'createdAt'>) => `tag:blog.example.com,${post.createdAt.slice(0, 10)}:post:${post.id}`;

describeEachDatabase('feeds', (kind) => {
  const app = useApp(kind, { env: ENV, signIn: ['admin', 'alice', 'bob'] });
  const http = () => request(app.server);
  const feed = (path: string, accept?: string, headers: Record<string, string> = {}) => {
    const call = http().get(path).set(headers);
    return accept === undefined ? call : call.set('Accept', accept);
  };

  describe('Atom', () => {
    it('is the default (no Accept, */*, application/atom+xml) and validates against RFC 4287', async () => {
      const tag = unique('atom');
      const post = await createPost(app, app.tokens.alice, { title: unique('Atom post'), tags: [tag], excerpt: 'The summary' });
      for (const accept of [undefined, '*/*', 'application/atom+xml', 'application/*']) {
        const response = await feed('/feed', accept).expect(200);
        expect(response.headers['content-type'], String(accept)).toBe(ATOM_TYPE);
        expect(String(response.headers.vary)).toMatch(/accept/i);
      }
      const response = await feed('/feed').expect(200);
      await expectValidAtom(response.text);
      const parsed = await rss.parseString(response.text);
      expect(parsed.feedUrl).toBe(`${BASE}/feed`);
      expect(parsed.link).toBe(`${BASE}/`);
      const entry = parsed.items.find((item) => item.title === post.title);
      expect(entry).toMatchObject({ id: entryIdOf(post), link: postUrl(post), author: 'Alice Author', summary: 'The summary' });
      expect(entry?.isoDate).toBe(new Date(post.updatedAt).toISOString());
      expect(entry?.content).toContain(`Body of post`);
      expect(response.text).toContain(`<category term="${tag}"/>`);
      expect(response.text).toContain(`<published>${new Date(post.publishedAt!).toISOString()}</published>`);
      const extracted = extractFromXml(response.text);
      expect(extracted.entries?.find((item) => item.title === post.title)).toMatchObject({ id: entryIdOf(post), link: postUrl(post) });
    });

    it('says when it was updated (its newest entry), in <updated> and Last-Modified', async () => {
      const post = await createPost(app, app.tokens.bob);
      const response = await feed('/feed').expect(200);
      const updated = new Date(post.updatedAt);
      expect(response.text).toContain(`<updated>${updated.toISOString()}</updated>`);
      expect(response.headers['last-modified']).toBe(updated.toUTCString());
    });
  });

  describe('RSS 2.0 and JSON Feed 1.1', () => {
    it('RSS: items with guid (the stable id), link, pubDate, creator, categories, description and content', async () => {
      const tag = unique('rss');
      const post = await createPost(app, app.tokens.bob, { title: unique('RSS post'), tags: [tag] });
      const response = await feed('/feed', 'application/rss+xml').expect(200);
      expect(response.headers['content-type']).toBe(RSS_TYPE);
      await expectWellFormed(response.text);
      const parsed = await rss.parseString(response.text);
      expect(parsed.link).toBe(`${BASE}/`);
      const item = parsed.items.find((entry) => entry.title === post.title);
      expect(item).toMatchObject({ guid: entryIdOf(post), link: postUrl(post), creator: 'Bob Writer', categories: [tag] });
      // RFC 822 dates carry whole seconds.
      expect(item?.isoDate).toBe(new Date(Math.floor(Date.parse(post.publishedAt!) / 1000) * 1000).toISOString());
      expect(item?.content).toContain('Body of post');
      expect(response.text).toContain(`<atom:link rel="self" type="application/rss+xml" href="${BASE}/feed"/>`);
      const extracted = extractFromXml(response.text);
      expect(extracted.entries?.find((entry) => entry.title === post.title)).toMatchObject({ id: entryIdOf(post), link: postUrl(post) });
    });

    it('JSON Feed: version 1.1, items with id, url, dates, authors, tags, summary and content_html', async () => {
      const tag = unique('json');
      const post = await createPost(app, app.tokens.alice, { title: unique('JSON post'), tags: [tag], excerpt: 'Short' });
      const response = await feed('/feed', 'application/feed+json').expect(200);
      expect(response.headers['content-type']).toBe(JSON_FEED_TYPE);
      const body = JSON.parse(response.text);
      expect(body).toMatchObject({ version: 'https://jsonfeed.org/version/1.1', home_page_url: `${BASE}/`, feed_url: `${BASE}/feed` });
      const item = body.items.find((entry: { title: string }) => entry.title === post.title);
      expect(item).toEqual({
        id: entryIdOf(post),
        url: postUrl(post),
        title: post.title,
        summary: 'Short',
        content_html: post.bodyHtml,
        date_published: new Date(post.publishedAt!).toISOString(),
        date_modified: new Date(post.updatedAt).toISOString(),
        authors: [{ name: 'Alice Author' }],
        tags: [tag],
      });
      const extracted = extractFromJson(response.text);
      expect(extracted.entries?.find((entry) => entry.title === post.title)).toMatchObject({ id: entryIdOf(post), link: postUrl(post) });
    });
  });

  describe('public posts only', () => {
    it('drafts, scheduled and trashed posts are in no feed, whoever asks (an admin token too), on every door', async () => {
      const mark = unique('hidden');
      await createPost(app, app.tokens.alice, { title: `${mark} draft`, status: 'draft' });
      await createPost(app, app.tokens.alice, { title: `${mark} scheduled`, status: 'scheduled', publishAt: new Date(Date.now() + 3_600_000).toISOString() });
      const trashed = await createPost(app, app.tokens.alice, { title: `${mark} trashed` });
      await http().delete(`/posts/${trashed.id}`).set(bearer(app.tokens.alice)).expect(204);
      const control = await createPost(app, app.tokens.alice, { title: `${mark} published` });
      for (const [accept] of FEED_TYPES) {
        for (const path of ['/feed?limit=100', '/posts?limit=100', `/users/${control.authorId}/posts?limit=100`]) {
          for (const headers of [{}, bearer(app.tokens.admin), bearer(app.tokens.alice)]) {
            const response = await feed(path, accept, headers).expect(200);
            expect(response.text, `${path} ${accept}`).toContain(`${mark} published`);
            for (const state of ['draft', 'scheduled', 'trashed']) expect(response.text, `${path} ${accept}`).not.toContain(`${mark} ${state}`);
          }
        }
      }
    });

    it('a non-public status in a feed type is 400 naming status (feeds are public), before any sign-in check', async () => {
      for (const [accept] of FEED_TYPES) {
        for (const path of ['/posts?status=draft', '/posts?status=trashed', '/users/2/posts?status=scheduled']) {
          const problem = expectProblem(await feed(path, accept, bearer(app.tokens.admin)), 400);
          expect(problem.errors?.map((error) => error.field), `${path} ${accept}`).toEqual(['status']);
          expectProblem(await feed(path, accept), 400);
        }
        await feed('/posts?status=published', accept).expect(200);
      }
      // Without a feed type, the same list is what it always was.
      await feed('/posts?status=draft', 'application/json', bearer(app.tokens.admin)).expect(200);
    });
  });

  describe('requests', () => {
    it('limit outside 1-100 or not a number: 400 naming limit', async () => {
      for (const limit of ['0', '101', 'abc', '-1', '1.5']) {
        const problem = expectProblem(await feed(`/feed?limit=${limit}`), 400);
        expect(problem.errors?.map((error) => error.field), limit).toContain('limit');
      }
      await feed('/feed?limit=1').expect(200);
      await feed('/feed?limit=100').expect(200);
    });

    it('406 for a type it does not serve, listing the feed types; GET /posts/{id} is no feed', async () => {
      for (const accept of ['text/csv', 'application/json', 'image/png']) {
        const problem = expectProblem(await feed('/feed', accept), 406);
        expect(problem.detail, accept).toContain('application/atom+xml, application/rss+xml, application/feed+json');
      }
      for (const [accept] of FEED_TYPES) {
        expectProblem(await feed('/posts/1', accept), 406);
        expectProblem(await feed('/users/2', accept), 406);
      }
      // A list's own default stays JSON.
      expect((await feed('/posts', '*/*').expect(200)).headers['content-type']).toMatch(/^application\/json/);
    });

    it('bad filters and cursors are 400 naming them', async () => {
      expect(expectProblem(await feed('/feed?authorId=x'), 400).errors?.map((error) => error.field)).toContain('authorId');
      expect(expectProblem(await feed('/feed?tag=Not%20A%20Slug'), 400).errors?.map((error) => error.field)).toContain('tag');
      expect(expectProblem(await feed('/feed?cursor=nonsense'), 400).errors?.map((error) => error.field)).toContain('cursor');
      expect(expectProblem(await feed('/feed?tag=a&cursor=nonsense'), 400).errors?.map((error) => error.field)).toContain('cursor');
      expectProblem(await feed('/feed?status=draft'), 400);
    });

    it('tag and authorId filter the feed as they do GET /posts', async () => {
      const tag = unique('only');
      const other = unique('other');
      const tagged = await createPost(app, app.tokens.bob, { title: unique('Tagged'), tags: [tag, other] });
      await createPost(app, app.tokens.alice, { title: unique('Untagged') });
      const both = JSON.parse((await feed(`/feed?tag=${tag}&tag=${other}`, 'application/feed+json').expect(200)).text);
      expect(both.items.map((item: { title: string }) => item.title)).toEqual([tagged.title]);
      const none = JSON.parse((await feed(`/feed?tag=${tag}&tag=${unique('missing')}`, 'application/feed+json').expect(200)).text);
      expect(none.items).toEqual([]);
      const byBob = JSON.parse((await feed(`/feed?authorId=${tagged.authorId}&limit=100`, 'application/feed+json').expect(200)).text);
      expect(byBob.items.length).toBeGreaterThan(0);
      expect(byBob.items.every((item: { authors: { name: string }[] }) => item.authors[0].name === 'Bob Writer')).toBe(true);
      // The feed's id drops only the cursor: each filtered feed is a feed of its own.
      expect(byBob.feed_url).toBe(`${BASE}/feed?authorId=${tagged.authorId}&limit=100`);
    });

    it('an empty feed is still valid Atom, updated at the epoch (a stable ETag)', async () => {
      const response = await feed(`/feed?tag=${unique('empty')}`).expect(200);
      await expectValidAtom(response.text);
      expect(response.text).toContain('<updated>1970-01-01T00:00:00.000Z</updated>');
      expect(response.headers.link).toBeUndefined();
    });
  });

  describe('paging (RFC 5005)', () => {
    async function walk(first: string, accept: string): Promise<{ ids: string[]; pages: Response[] }> {
      const ids: string[] = [];
      const pages: Response[] = [];
      let path: string | null = first;
      while (path) {
        const response = await feed(path, accept).expect(200);
        pages.push(response);
        if (accept === 'application/feed+json') {
          const body = JSON.parse(response.text);
          ids.push(...body.items.map((item: { id: string }) => item.id));
          const next = nextLink(response);
          expect(body.next_url ?? null).toBe(next);
        } else {
          const parsed = await rss.parseString(response.text);
          ids.push(...parsed.items.map((item) => String((item as { id?: string }).id ?? item.guid)));
          const next = nextLink(response);
          if (next) expect(response.text).toContain(`rel="next" type="${accept}" href="${next.replaceAll('&', '&amp;')}"`);
        }
        const next = nextLink(response);
        if (next) expect(next.startsWith(`${BASE}/`)).toBe(true);
        path = next ? next.slice(BASE.length) : null;
        expect(pages.length).toBeLessThan(200);
      }
      return { ids, pages };
    }

    it('Link rel="next" (and the feed\'s own next link) walks every public post once, in every type, with and without a tag', async () => {
      const tag = unique('paged');
      for (let index = 0; index < 5; index++) await createPost(app, app.tokens.alice, { title: unique('Paged'), tags: [tag] });
      const all = JSON.parse((await feed('/feed?limit=100', 'application/feed+json').expect(200)).text).items.map((item: { id: string }) => item.id);
      for (const [accept] of FEED_TYPES) {
        const { ids, pages } = await walk('/feed?limit=2', accept);
        expect(new Set(ids).size, accept).toBe(ids.length);
        expect(ids, accept).toEqual(all);
        expect(pages.length).toBeGreaterThan(1);
        const tagged = await walk(`/feed?limit=2&tag=${tag}`, accept);
        expect(tagged.ids.length, accept).toBe(5);
        expect(new Set(tagged.ids).size).toBe(5);
        expect(tagged.pages.length).toBe(3);
      }
    });

    it('GET /posts and /users/{id}/posts page their feeds the same way', async () => {
      const alice = (await createPost(app, app.tokens.alice)).authorId;
      for (const path of ['/posts?limit=3', `/users/${alice}/posts?limit=3`]) {
        const { ids } = await walk(path, 'application/atom+xml');
        const json = await walk(path, 'application/feed+json');
        expect(ids).toEqual(json.ids);
        expect(new Set(ids).size).toBe(ids.length);
      }
    });
  });

  describe('GET /posts and GET /users/{id}/posts as feeds', () => {
    it('serve each feed type when Accept asks, with the same entries as GET /feed', async () => {
      const post = await createPost(app, app.tokens.bob, { title: unique('Listed') });
      for (const [accept, contentType] of FEED_TYPES) {
        for (const path of ['/posts', `/users/${post.authorId}/posts`, `/posts?tag=${unique('none')}`, `/posts?q=${encodeURIComponent(post.title)}`]) {
          const response = await feed(path, accept).expect(200);
          expect(response.headers['content-type'], `${path} ${accept}`).toBe(contentType);
          if (accept === 'application/atom+xml') await expectValidAtom(response.text);
          if (accept === 'application/rss+xml') await expectWellFormed(response.text);
          if (!path.includes('tag=')) expect(response.text, `${path} ${accept}`).toContain(entryIdOf(post));
        }
      }
      const fromFeed = await feed('/feed', 'application/atom+xml').expect(200);
      const fromPosts = await feed('/posts', 'application/atom+xml').expect(200);
      // The same entries; only the feed's own id and links differ.
      const entries = (xml: string) => xml.slice(xml.indexOf('<entry>'));
      expect(entries(fromPosts.text)).toBe(entries(fromFeed.text));
      expect(fromPosts.text).toContain(`<id>${BASE}/posts</id>`);
    });

    it('a user who does not exist: 404, as for the other types', async () => {
      expectProblem(await feed('/users/999999/posts', 'application/atom+xml'), 404);
    });
  });

  describe('stable ids', () => {
    it('an entry keeps its id when the title and slug change; its link follows the slug', async () => {
      const post = await createPost(app, app.tokens.alice, { title: unique('Before') });
      const title = unique('After');
      const changed = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title, slug: unique('moved') }).expect(200);
      const body = JSON.parse((await feed('/feed?limit=100', 'application/feed+json').expect(200)).text);
      const item = body.items.find((entry: { id: string }) => entry.id === entryIdOf(post));
      expect(item).toMatchObject({ title, url: postUrl(changed.body as FeedPost) });
      expect(item.url).not.toBe(postUrl(post));
    });
  });

  describe('conditional requests', () => {
    it('ETag (a digest) and Last-Modified: 304 for If-None-Match, or If-Modified-Since at or after Last-Modified', async () => {
      await createPost(app, app.tokens.alice);
      for (const [accept] of FEED_TYPES) {
        // Signed in: past the response cache, rendered afresh each time.
        for (const headers of [{}, bearer(app.tokens.bob)]) {
          const first = await feed('/feed', accept, headers).expect(200);
          const { etag } = first.headers;
          const lastModified = first.headers['last-modified'] as string;
          expect(etag).toMatch(/^"h[\w-]+"$/);
          expect((await feed('/feed', accept, headers).expect(200)).headers.etag).toBe(etag);
          const notModified = await feed('/feed', accept, { ...headers, 'If-None-Match': etag }).expect(304);
          expect(notModified.text ?? '').toBe('');
          expect(notModified.headers.etag).toBe(etag);
          await feed('/feed', accept, { ...headers, 'If-None-Match': '"other"' }).expect(200);
          await feed('/feed', accept, { ...headers, 'If-Modified-Since': lastModified }).expect(304);
          await feed('/feed', accept, { ...headers, 'If-Modified-Since': new Date(Date.parse(lastModified) + 60_000).toUTCString() }).expect(304);
          await feed('/feed', accept, { ...headers, 'If-Modified-Since': new Date(Date.parse(lastModified) - 1000).toUTCString() }).expect(200);
          await feed('/feed', accept, { ...headers, 'If-Modified-Since': 'not a date' }).expect(200);
          // If-None-Match decides when both are sent.
          await feed('/feed', accept, { ...headers, 'If-None-Match': '"other"', 'If-Modified-Since': lastModified }).expect(200);
        }
      }
      // Each type has its own tag.
      const tags = await Promise.all(FEED_TYPES.map(async ([accept]) => (await feed('/feed', accept)).headers.etag));
      expect(new Set(tags).size).toBe(3);
    });
  });

  describe('hostile text', () => {
    it('titles and bodies with ]]>, <, &, quotes and markup keep every feed valid, the text as written', async () => {
      const mark = unique('hostile');
      const title = `${mark} ]]> <b>&amp; & "quoted" 'single' &#60; end`;
      const body = `<p>]]&gt; <script>alert(1)</script> & <![CDATA[ x ]]> ]]> text</p>`;
      await createPost(app, app.tokens.alice, { title, body, bodyFormat: 'html', excerpt: `${mark} ]]> & <i>` });
      const atom = await feed('/feed').expect(200);
      await expectValidAtom(atom.text);
      const rssResponse = await feed('/feed', 'application/rss+xml').expect(200);
      await expectWellFormed(rssResponse.text);
      for (const text of [atom.text, rssResponse.text]) {
        const items = (await rss.parseString(text)).items;
        const item = items.find((entry) => entry.title === title);
        expect(item, text.slice(0, 500)).toBeDefined();
        expect(item?.content).not.toContain('<script>');
      }
      const json = JSON.parse((await feed('/feed', 'application/feed+json').expect(200)).text);
      expect(json.items.find((item: { title: string }) => item.title === title)).toMatchObject({ summary: `${mark} ]]> & <i>` });
    });

    it('control characters never reach a feed: every door refuses them (the renderer drops them besides: feed.renderer.spec.ts)', async () => {
      const response = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Bell \u0001', body: 'x' });
      expectProblem(response, 400);
    });
  });
});

describe('feeds through the response cache [sqlite]', () => {
  const app = useApp('sqlite', { env: { ...ENV, RESPONSE_CACHE: 'memory' }, signIn: ['alice'] });
  const http = () => request(app.server);

  it('a kept feed is answered from memory, still honouring If-None-Match and If-Modified-Since', async () => {
    await createPost(app, app.tokens.alice);
    for (const [accept, contentType] of FEED_TYPES) {
      const miss = await http().get('/feed').set('Accept', accept).expect(200);
      expect(miss.headers['cache-status']).toBe('blog; fwd=miss');
      const hit = await http().get('/feed').set('Accept', accept).expect(200);
      expect(hit.headers['cache-status']).toBe('blog; hit');
      expect(hit.headers['content-type']).toBe(contentType);
      expect(hit.text).toBe(miss.text);
      expect(hit.headers.etag).toBe(miss.headers.etag);
      expect(hit.headers['last-modified']).toBe(miss.headers['last-modified']);
      const byTag = await http().get('/feed').set('Accept', accept).set('If-None-Match', miss.headers.etag).expect(304);
      expect(byTag.headers['cache-status']).toBe('blog; hit');
      const byDate = await http().get('/feed').set('Accept', accept).set('If-Modified-Since', miss.headers['last-modified']).expect(304);
      expect(byDate.headers['cache-status']).toBe('blog; hit');
      await http().get('/feed').set('Accept', accept).set('If-None-Match', '"stale"').expect(200);
    }
    // The paging Link is kept with the document.
    const first = await http().get('/feed?limit=1').expect(200);
    const again = await http().get('/feed?limit=1').expect(200);
    expect(again.headers['cache-status']).toBe('blog; hit');
    expect(again.headers.link).toBe(first.headers.link);
    expect(again.headers.link).toMatch(/^<https:\/\/blog\.example\.com\/feed\?limit=1&cursor=[^>]+>; rel="next"$/);
  });

  it('a kept feed is dropped when a post is published or edited', async () => {
    const draft = await createPost(app, app.tokens.alice, { title: unique('Soon'), status: 'draft' });
    for (const path of ['/feed', '/posts']) {
      await http().get(path).set('Accept', 'application/atom+xml').expect(200);
      expect((await http().get(path).set('Accept', 'application/atom+xml').expect(200)).headers['cache-status']).toBe('blog; hit');
    }
    await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
    for (const path of ['/feed', '/posts']) {
      const published = await http().get(path).set('Accept', 'application/atom+xml').expect(200);
      expect(published.headers['cache-status'], path).toBe('blog; fwd=miss');
      expect(published.text, path).toContain(draft.title);
    }
    const title = unique('Edited');
    await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ title }).expect(200);
    const edited = await http().get('/feed').set('Accept', 'application/atom+xml').expect(200);
    expect(edited.headers['cache-status']).toBe('blog; fwd=miss');
    expect(edited.text).toContain(title);
    expect(edited.text).not.toContain(draft.title);
  });

  it('a signed-in request is not cached (and still sees only public posts)', async () => {
    const response = await http().get('/feed').set(bearer(app.tokens.alice)).expect(200);
    expect(response.headers['cache-status']).toBe('blog; fwd=uncacheable');
  });
});

describeEachDatabase('feeds: their language (SUPPORTED_LOCALES=en,de, DEFAULT_LOCALE=de)', (kind) => {
  const app = useApp(kind, { env: { ...ENV, SUPPORTED_LOCALES: 'en,de', DEFAULT_LOCALE: 'de' }, signIn: ['alice'] });

  it('every feed door states DEFAULT_LOCALE: Atom xml:lang on <feed> (still valid), RSS <language>, JSON Feed language', async () => {
    const post = await createPost(app, app.tokens.alice, { title: unique('Sprache') });
    for (const path of ['/feed', '/posts', `/users/${post.authorId}/posts`]) {
      const atom = await request(app.server).get(path).set('Accept', 'application/atom+xml').expect(200);
      await expectValidAtom(atom.text);
      expect(atom.text, path).toMatch(/<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom" xml:lang="de">/);
      const channel = await rss.parseString((await request(app.server).get(path).set('Accept', 'application/rss+xml').expect(200)).text);
      expect(channel.language, path).toBe('de');
      const json = JSON.parse((await request(app.server).get(path).set('Accept', 'application/feed+json').expect(200)).text) as { language?: string };
      expect(json.language, path).toBe('de');
    }
  });
});
