import request from 'supertest';
import { expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectValidSitemap } from './support/feeds.js';
import { useApp } from './support/fixture.js';
import { expectProblem } from './support/problems.js';
import { createPost } from './support/resources.js';
import { describeEachDatabase, type TestApp } from './support/test-app.js';

/**
 * GET /sitemap.xml, /sitemaps/{n} and /robots.txt (CONTRACT §13): sitemaps.org 0.9 documents
 * valid against its XSDs, public posts (PUBLIC_POST_URL) and tags only, an index past
 * SITEMAP_MAX_URLS whose pages list every URL once, cached and conditional.
 */

const BASE = 'https://blog.example.com';
const XML_TYPE = 'application/xml; charset=utf-8';

let sequence = 0;
const unique = (what: string) => `${what}-${process.pid}-${++sequence}`;

/** The `<loc>`s of a sitemap (or of an index), in order, unescaped. */
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1].replaceAll('&amp;', '&'));
/** `<loc>` → `<lastmod>` of a urlset. */
const lastmods = (xml: string) => new Map([...xml.matchAll(/<url><loc>([^<]*)<\/loc>(?:<lastmod>([^<]*)<\/lastmod>)?<\/url>/g)].map((match) => [match[1].replaceAll('&amp;', '&'), match[2]]));

/** Every URL the sitemap lists: of /sitemap.xml, or of each of its index's pages (each validated). */
async function everyUrl(app: TestApp): Promise<{ urls: string[]; pages: string[][] }> {
  const root = await request(app.server).get('/sitemap.xml').expect(200);
  if (!root.text.includes('<sitemapindex')) {
    await expectValidSitemap(root.text, 'sitemap.xsd');
    return { urls: locs(root.text), pages: [locs(root.text)] };
  }
  await expectValidSitemap(root.text, 'siteindex.xsd');
  const pages: string[][] = [];
  for (const loc of locs(root.text)) {
    expect(loc.startsWith(`${BASE}/sitemaps/`)).toBe(true);
    const page = await request(app.server).get(loc.slice(BASE.length)).expect(200);
    expect(page.headers['content-type']).toBe(XML_TYPE);
    await expectValidSitemap(page.text, 'sitemap.xsd');
    pages.push(locs(page.text));
  }
  return { urls: pages.flat(), pages };
}

describeEachDatabase('sitemap', (kind) => {
  const app = useApp(kind, { env: { PUBLIC_BASE_URL: BASE, PUBLIC_POST_URL: '{base}/p/{slug}' }, signIn: ['alice', 'admin'] });
  const http = () => request(app.server);

  it('lists the home page, every public post with its lastmod, and every tag a public post carries; valid per sitemap.xsd', async () => {
    const tag = unique('mapped');
    const post = await createPost(app, app.tokens.alice, { title: unique('Mapped'), tags: [tag] });
    const response = await http().get('/sitemap.xml').expect(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    await expectValidSitemap(response.text, 'sitemap.xsd');
    const urls = lastmods(response.text);
    const slug = ((await http().get(`/posts/${post.id}`).expect(200)).body as { slug: string }).slug;
    expect(urls.get(`${BASE}/p/${slug}`)).toBe(new Date(post.updatedAt).toISOString());
    expect(urls.get(`${BASE}/posts?tag=${tag}`)).toBe(new Date(post.updatedAt).toISOString());
    expect(locs(response.text)[0]).toBe(`${BASE}/`);
    // One supported locale: no translations, so neither alternates nor their namespace.
    expect(response.text).not.toContain('xhtml');
    // Every public post, once.
    const all = (await http().get('/posts?limit=100').expect(200)).body as { slug: string }[];
    for (const { slug: each } of all) expect(urls.has(`${BASE}/p/${each}`), each).toBe(true);
    expect(new Set(locs(response.text)).size).toBe(locs(response.text).length);
  });

  it('drafts, scheduled and trashed posts are absent, and a tag only they carry', async () => {
    const tag = unique('hidden-tag');
    const slugs: string[] = [];
    for (const fields of [{ status: 'draft' }, { status: 'scheduled', publishAt: new Date(Date.now() + 3_600_000).toISOString() }, {}]) {
      const post = await createPost(app, app.tokens.alice, { title: unique('Hidden'), tags: [tag], ...fields });
      slugs.push(((await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200)).body as { slug: string }).slug);
      if (!('status' in fields)) await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
    }
    for (const headers of [{}, bearer(app.tokens.admin)]) {
      const xml = (await http().get('/sitemap.xml').set(headers).expect(200)).text;
      for (const slug of slugs) expect(xml).not.toContain(`/p/${slug}<`);
      expect(xml).not.toContain(`tag=${tag}<`);
    }
  });

  it('ETag and Last-Modified (the newest lastmod): 304 for If-None-Match and If-Modified-Since; dropped when a post changes', async () => {
    const first = await http().get('/sitemap.xml').expect(200);
    const { etag } = first.headers;
    expect(etag).toMatch(/^"h[\w-]+"$/);
    expect(first.headers['last-modified']).toBeDefined();
    const hit = await http().get('/sitemap.xml').expect(200);
    expect(hit.headers['cache-status']).toBe('blog; hit');
    await http().get('/sitemap.xml').set('If-None-Match', etag).expect(304);
    await http().get('/sitemap.xml').set('If-Modified-Since', first.headers['last-modified']).expect(304);
    await http().get('/sitemap.xml').set('If-None-Match', etag).set(bearer(app.tokens.alice)).expect(304);
    const post = await createPost(app, app.tokens.alice, { title: unique('Fresh') });
    const after = await http().get('/sitemap.xml').expect(200);
    expect(after.headers['cache-status']).toBe('blog; fwd=miss');
    expect(after.headers.etag).not.toBe(etag);
    expect(after.text).toContain(`${BASE}/p/${((await http().get(`/posts/${post.id}`)).body as { slug: string }).slug}<`);
    await http().get('/sitemap.xml').set('If-None-Match', etag).expect(200);
  });

  it('whatever Accept says, the sitemap is XML (no negotiation)', async () => {
    for (const accept of ['text/html', 'application/json', 'text/csv']) {
      expect((await http().get('/sitemap.xml').set('Accept', accept).expect(200)).headers['content-type'], accept).toBe(XML_TYPE);
    }
  });

  it('/sitemaps/1 while /sitemap.xml is no index: the same urlset; past it 404; a malformed n: 400', async () => {
    const whole = await http().get('/sitemap.xml').expect(200);
    const first = await http().get('/sitemaps/1').expect(200);
    expect(first.text).toBe(whole.text);
    expect(first.headers['content-type']).toBe(XML_TYPE);
    expectProblem(await http().get('/sitemaps/2'), 404);
    for (const n of ['0', '-1', 'abc', '1.5', '99999999999']) expectProblem(await http().get(`/sitemaps/${n}`), 400);
  });

  it('robots.txt allows everything and names the absolute sitemap', async () => {
    const response = await http().get('/robots.txt').expect(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.text).toBe(`User-agent: *\nAllow: /\nSitemap: ${BASE}/sitemap.xml\n`);
    await http().get('/robots.txt').set('If-None-Match', response.headers.etag).expect(304);
  });
});

describeEachDatabase('sitemap index (SITEMAP_MAX_URLS=3)', (kind) => {
  const app = useApp(kind, { env: { PUBLIC_BASE_URL: BASE, SITEMAP_MAX_URLS: '3' }, signIn: ['alice'] });
  const http = () => request(app.server);

  it('past the limit, an index (valid per siteindex.xsd) of pages of at most 3 URLs that together list every public URL once', async () => {
    const tags = [unique('one'), unique('two')];
    for (let index = 0; index < 6; index++) await createPost(app, app.tokens.alice, { tags: [tags[index % 2]] });
    await createPost(app, app.tokens.alice, { status: 'draft', tags: [unique('draft-only')] });
    const { urls, pages } = await everyUrl(app);
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(3);
    expect(pages.slice(0, -1).every((page) => page.length === 3)).toBe(true);
    expect(new Set(urls).size).toBe(urls.length);
    const posts = (await http().get('/posts?limit=100').expect(200)).body as { id: number }[];
    const tagCount = ((await http().get('/tags?limit=100').expect(200)).body as { postCount: number }[]).filter((tag) => tag.postCount > 0).length;
    expect(urls.length).toBe(1 + posts.length + tagCount);
    for (const { id } of posts) expect(urls, String(id)).toContain(`${BASE}/posts/${id}`);
    for (const tag of tags) expect(urls).toContain(`${BASE}/posts?tag=${tag}`);
  });

  it('past the last page: 404', async () => {
    const index = (await http().get('/sitemap.xml').expect(200)).text;
    const count = locs(index).length;
    await http().get(`/sitemaps/${count}`).expect(200);
    expectProblem(await http().get(`/sitemaps/${count + 1}`), 404);
  });
});

/** Each `<url>` of a urlset: its `<loc>` and its `xhtml:link` alternates as [hreflang, href], unescaped. */
const urlEntries = (xml: string) =>
  new Map(
    [...xml.matchAll(/<url>([\s\S]*?)<\/url>/g)].map(([, inner]) => [
      /<loc>([^<]*)<\/loc>/.exec(inner)![1].replaceAll('&amp;', '&'),
      [...inner.matchAll(/<xhtml:link rel="alternate" hreflang="([^"]*)" href="([^"]*)"\s*\/>/g)].map((match) => [match[1], match[2].replaceAll('&amp;', '&')]),
    ]),
  );

describeEachDatabase('sitemap alternates (SUPPORTED_LOCALES=en,de,de-CH,fr)', (kind) => {
  const app = useApp(kind, {
    env: { PUBLIC_BASE_URL: BASE, PUBLIC_POST_URL: '{base}/{locale}/{slug}', SUPPORTED_LOCALES: 'en,de,de-CH,fr', SITEMAP_MAX_URLS: '50000' },
    signIn: ['alice'],
  });
  const http = () => request(app.server);
  const translate = (postId: number, fields: Record<string, unknown>) => createPost(app, app.tokens.alice, { translationOf: { postId }, ...fields });
  const address = (post: { locale: string; slug: string }) => `${BASE}/${post.locale}/${post.slug}`;

  it('each public translation is a <url> with an xhtml:link to every public translation of its group, itself included; never a draft', async () => {
    const english = await createPost(app, app.tokens.alice, { title: unique('Morning'), locale: 'en' });
    const german = await translate(english.id, { title: unique('Morgen'), locale: 'de' });
    const french = await translate(english.id, { title: unique('Matin'), locale: 'fr', status: 'draft' });
    const xml = (await http().get('/sitemap.xml').expect(200)).text;
    await expectValidSitemap(xml, 'sitemap-xhtml.xsd');
    expect(xml).toMatch(/^<\?xml[^>]*\?><urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9" xmlns:xhtml="http:\/\/www\.w3\.org\/1999\/xhtml">/);
    const urls = urlEntries(xml);
    const both = [
      ['de', address(german)],
      ['en', address(english)],
    ];
    expect(urls.get(address(english))).toEqual(both);
    expect(urls.get(address(german))).toEqual(both);
    expect(xml).not.toContain(french.slug);
    expect(xml).not.toContain('hreflang="fr"');
  });

  it('a post alone in its group (or whose translations are drafts) carries no xhtml:link', async () => {
    const lone = await createPost(app, app.tokens.alice, { title: unique('Alone') });
    await translate(lone.id, { title: unique('Allein'), locale: 'de', status: 'draft' });
    const urls = urlEntries((await http().get('/sitemap.xml').expect(200)).text);
    expect(urls.get(address(lone))).toEqual([]);
  });

  it('a translation published later shows in the cached sitemap, and alternates follow a post to another page of the index', async () => {
    const english = await createPost(app, app.tokens.alice, { title: unique('Evening'), locale: 'en' });
    const swiss = await translate(english.id, { title: unique('Abig'), locale: 'de-CH', status: 'draft' });
    const before = await http().get('/sitemap.xml').expect(200);
    expect(urlEntries(before.text).get(address(english))).toEqual([]);
    expect((await http().get('/sitemap.xml').expect(200)).headers['cache-status']).toBe('blog; hit');
    await http().patch(`/posts/${swiss.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
    const after = await http().get('/sitemap.xml').expect(200);
    const both = [
      ['de-CH', address(swiss)],
      ['en', address(english)],
    ];
    expect(urlEntries(after.text).get(address(english))).toEqual(both);
    expect(urlEntries(after.text).get(address(swiss))).toEqual(both);
  });
});

describeEachDatabase('sitemap alternates across index pages (SITEMAP_MAX_URLS=2)', (kind) => {
  const app = useApp(kind, {
    env: { PUBLIC_BASE_URL: BASE, PUBLIC_POST_URL: '{base}/{locale}/{slug}', SUPPORTED_LOCALES: 'en,de', SITEMAP_MAX_URLS: '2' },
    signIn: ['alice'],
  });
  const http = () => request(app.server);

  it('every page lists the whole group of each of its posts, those on other pages too; each page valid', async () => {
    const english = await createPost(app, app.tokens.alice, { title: unique('Split'), locale: 'en' });
    // Posts in between, so the two translations fall on different pages of two URLs.
    for (let index = 0; index < 3; index++) await createPost(app, app.tokens.alice);
    const german = await createPost(app, app.tokens.alice, { title: unique('Geteilt'), locale: 'de', translationOf: { postId: english.id } });
    const index = (await http().get('/sitemap.xml').expect(200)).text;
    const found = new Map<string, { page: string; alternates: string[][] }>();
    for (const loc of locs(index)) {
      const page = (await http().get(loc.slice(BASE.length)).expect(200)).text;
      await expectValidSitemap(page, 'sitemap-xhtml.xsd');
      for (const [url, alternates] of urlEntries(page)) found.set(url, { page: loc, alternates });
    }
    const both = [
      ['de', `${BASE}/de/${german.slug}`],
      ['en', `${BASE}/en/${english.slug}`],
    ];
    const first = found.get(`${BASE}/en/${english.slug}`)!;
    const second = found.get(`${BASE}/de/${german.slug}`)!;
    expect(first.page).not.toBe(second.page);
    expect(first.alternates).toEqual(both);
    expect(second.alternates).toEqual(both);
  });
});
