import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { expectData, expectError, fewestStatements, graphql } from './support/graphql-client.js';
import { expectProblem, errorFields } from './support/problems.js';
import { createPost, createUser, expectPost, parseXml, type XmlElement } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

type Translation = { href: string; hreflang: string };

/** The `<link rel="alternate">` children of a resource element, as [hreflang, href]. */
const xmlAlternates = (element: XmlElement) =>
  element.children.filter((child) => child.name === 'link' && child.attributes.rel === 'alternate').map((child) => [child.attributes.hreflang, child.attributes.href]);

/** The `<link rel="alternate" hreflang>` of an HTML page's head, as [hreflang, href]. */
const htmlAlternates = (html: string) => {
  const head = /<head>[\s\S]*?<\/head>/.exec(html)?.[0] ?? '';
  return [...head.matchAll(/<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">/g)].map((match) => [match[1], match[2]]);
};

/**
 * Languages, part 1 (CONTRACT §15, first bullet): a post's locale, translations made with
 * translationOf (one per locale and group, 409 otherwise; 404 alike for a missing and an
 * invisible original), and the other visible posts of a group on every door: GraphQL
 * `translations` (batched), JSON/HAL `_links.translations`, XML and HTML alternates.
 */
describeEachDatabase('translations', (kind) => {
  const app = useApp(kind, {
    env: { RESPONSE_CACHE: 'off', SUPPORTED_LOCALES: 'en,de,de-CH,fr', LOCALE_FALLBACKS: 'de-CH:de', PUBLIC_BASE_URL: 'https://api.example.com', PUBLIC_POST_URL: 'https://www.example.com/{locale}/{slug}' },
    timeout: 60_000,
  });
  const http = () => request(app.server);
  let editor: string;

  beforeAll(async () => {
    const user = await createUser(app);
    await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'editor' }).expect(200);
    editor = await tokenFor(app, { email: user.email, password: user.password });
  }, 60_000);

  const translate = (token: string, postId: number, fields: Record<string, unknown>) =>
    http().post('/posts').set(bearer(token)).send({ title: `Translation ${String(fields.locale)}`, body: 'Übersetzt', translationOf: { postId }, ...fields });

  it('a post is in DEFAULT_LOCALE unless it says otherwise; a locale is taken in any case and kept canonical', async () => {
    const plain = await createPost(app, app.tokens.alice);
    expectPost(plain as unknown as Record<string, unknown>, { locale: 'en' });
    const swiss = await createPost(app, app.tokens.alice, { locale: 'DE-ch' });
    expect(swiss.locale).toBe('de-CH');
    const read = await http().get(`/posts/${swiss.id}`).expect(200);
    expect(read.body.locale).toBe('de-CH');
    expect(read.headers['content-language']).toBe('de-CH');
    const page = await http().get(`/posts/${swiss.id}`).set('Accept', 'text/html').expect(200);
    expect(page.text).toMatch(/<html lang="de-CH">/);
  });

  it('an unsupported locale is 400 naming locale on POST and PATCH; GraphQL BAD_USER_INPUT', async () => {
    for (const locale of ['it', 'xx-YY', 'not a tag', '']) {
      const refused = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'T', body: 'B', locale });
      expectProblem(refused, 400, 'BAD_USER_INPUT');
      expect(errorFields(refused)).toContain('locale');
    }
    const post = await createPost(app, app.tokens.alice);
    const patched = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ locale: 'it' });
    expectProblem(patched, 400);
    expect(errorFields(patched)).toContain('locale');
    const result = await graphql(app, 'mutation { createPost(input: { title: "T", body: "B", locale: "it" }) { id } }', undefined, { token: app.tokens.alice });
    expectError(result, 'BAD_USER_INPUT', ['createPost']);
  });

  it('translationOf makes a translation: its own post (status, slug, revisions, comments), one per locale and group (409)', async () => {
    const original = await createPost(app, app.tokens.alice, { title: 'Hello world' });
    const german = await translate(app.tokens.alice, original.id, { locale: 'de', title: 'Hallo Welt', status: 'draft' }).expect(201);
    expectPost(german.body, { locale: 'de', slug: 'hallo-welt' });
    expect(german.body.status).toBe('draft');
    expect(german.body.id).not.toBe(original.id);
    // Its own revisions and comments.
    await http().get(`/posts/${german.body.id as number}/revisions`).set(bearer(app.tokens.alice)).expect(200);
    await http().patch(`/posts/${german.body.id as number}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
    await http().post(`/posts/${german.body.id as number}/comments`).set(bearer(app.tokens.bob)).send({ body: 'Gut' }).expect(201);
    // Another German one of the group, through the original or through the translation: 409.
    expectProblem(await translate(app.tokens.alice, original.id, { locale: 'de' }), 409, 'CONFLICT');
    expectProblem(await translate(app.tokens.alice, german.body.id as number, { locale: 'de' }), 409, 'CONFLICT');
    // The original's own locale: 409 too.
    expectProblem(await translate(app.tokens.alice, german.body.id as number, { locale: 'en' }), 409, 'CONFLICT');
    // Through the translation, into a new locale: the same group.
    const french = await translate(app.tokens.bob, german.body.id as number, { locale: 'fr' }).expect(201);
    const links = (await http().get(`/posts/${original.id}`).expect(200)).body._links.translations as Translation[];
    expect(links).toEqual([
      { href: `/posts/${german.body.id as number}`, hreflang: 'de' },
      { href: `/posts/${french.body.id as number}`, hreflang: 'fr' },
    ]);
  });

  it('a demo post (seeded) stands in its own group: translating it into its own locale is 409, into another links both', async () => {
    expectProblem(await translate(app.tokens.alice, 1, { locale: 'en' }), 409, 'CONFLICT');
    const german = (await translate(app.tokens.alice, 1, { locale: 'de' }).expect(201)).body;
    expect((await http().get('/posts/1').expect(200)).body._links.translations).toEqual([{ href: `/posts/${german.id as number}`, hreflang: 'de' }]);
    expect((await http().get(`/posts/${german.id as number}`).expect(200)).body._links.translations).toEqual([{ href: '/posts/1', hreflang: 'en' }]);
  });

  it("PUBLIC_POST_URL's {locale} is each post's own: in the sitemap, the feed and the canonical link", async () => {
    const original = await createPost(app, app.tokens.alice, { title: 'Where it lives' });
    const french = (await translate(app.tokens.alice, original.id, { locale: 'fr', title: 'Où il vit' }).expect(201)).body;
    const sitemap = await http().get('/sitemap.xml').expect(200);
    expect(sitemap.text).toContain('<loc>https://www.example.com/en/where-it-lives</loc>');
    expect(sitemap.text).toContain(`<loc>https://www.example.com/fr/${french.slug as string}</loc>`);
    // A feed shows each group once, in the language asked for.
    const feed = await http().get('/feed?limit=5&locale=fr').expect(200);
    expect(feed.text).toContain(`https://www.example.com/fr/${french.slug as string}`);
    expect(feed.text).not.toContain('https://www.example.com/en/where-it-lives');
    const page = await http().get(`/posts/${french.id as number}`).set('Accept', 'text/html').expect(200);
    expect(page.text).toContain(`<link rel="canonical" href="https://www.example.com/fr/${french.slug as string}">`);
  });

  it('its ETag follows the translations it shows: a new one makes an old copy stale; If-Match takes either tag', async () => {
    const original = await createPost(app, app.tokens.alice);
    const first = await http().get(`/posts/${original.id}`).expect(200);
    expect(first.headers.etag).toBe('"1"');
    await http().get(`/posts/${original.id}`).set('If-None-Match', first.headers.etag as string).expect(304);
    await translate(app.tokens.alice, original.id, { locale: 'de' }).expect(201);
    const second = await http().get(`/posts/${original.id}`).set('If-None-Match', first.headers.etag as string).expect(200);
    expect(second.headers.etag).toMatch(/^"1-t[A-Za-z0-9_-]+"$/);
    await http().get(`/posts/${original.id}`).set('If-None-Match', second.headers.etag as string).expect(304);
    // A reader who is shown other translations gets another tag.
    await translate(app.tokens.alice, original.id, { locale: 'fr', status: 'draft' }).expect(201);
    const authors = await http().get(`/posts/${original.id}`).set(bearer(app.tokens.alice)).expect(200);
    expect(authors.headers.etag).not.toBe(second.headers.etag);
    const hal = await http().get(`/posts/${original.id}`).set('Accept', 'application/hal+json').expect(200);
    expect(hal.headers.etag).toMatch(/^"1-hal-t[A-Za-z0-9_-]+"$/);
    await http().patch(`/posts/${original.id}`).set(bearer(app.tokens.alice)).set('If-Match', second.headers.etag as string).send({ title: 'Changed' }).expect(200);
    await http().patch(`/posts/${original.id}`).set(bearer(app.tokens.alice)).set('If-Match', second.headers.etag as string).send({ title: 'Again' }).expect(412);
  });

  it('the answers to POST and PATCH carry the translations the writer may see', async () => {
    const original = await createPost(app, app.tokens.alice, { title: 'Answered' });
    const created = await translate(app.tokens.alice, original.id, { locale: 'fr' }).expect(201);
    expect(created.body._links.translations).toEqual([{ href: `/posts/${original.id}`, hreflang: 'en' }]);
    const draft = (await translate(app.tokens.alice, original.id, { locale: 'de', status: 'draft' }).expect(201)).body;
    const patched = await http().patch(`/posts/${original.id}`).set(bearer(app.tokens.alice)).send({ title: 'Answered again' }).expect(200);
    expect(patched.body._links.translations).toEqual([
      { href: `/posts/${draft.id as number}`, hreflang: 'de' },
      { href: `/posts/${created.body.id as number}`, hreflang: 'fr' },
    ]);
    // An editor's PATCH of the draft: shown the published ones; a post alone in its group has none.
    const edited = await http().patch(`/posts/${draft.id as number}`).set(bearer(editor)).send({ title: 'Redigiert' }).expect(200);
    expect(edited.body._links.translations.map((link: Translation) => link.hreflang)).toEqual(['en', 'fr']);
    const alone = await http().patch(`/posts/${(await createPost(app, app.tokens.alice)).id}`).set(bearer(app.tokens.alice)).send({ title: 'Alone' }).expect(200);
    expect(alone.body._links.translations).toBeUndefined();
  });

  it('two translations into one locale at once: one is made, the other is 409 (the unique index)', async () => {
    const original = await createPost(app, app.tokens.alice);
    const answers = await Promise.all([0, 1, 2].map(() => translate(app.tokens.alice, original.id, { locale: 'fr' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
  });

  it('a PATCH of locale to one its group has is 409; to a free one it moves', async () => {
    const original = await createPost(app, app.tokens.alice);
    const german = (await translate(app.tokens.alice, original.id, { locale: 'de' }).expect(201)).body;
    expectProblem(await http().patch(`/posts/${german.id as number}`).set(bearer(app.tokens.alice)).send({ locale: 'en' }), 409, 'CONFLICT');
    const moved = await http().patch(`/posts/${german.id as number}`).set(bearer(app.tokens.alice)).send({ locale: 'de-ch' }).expect(200);
    expect(moved.body.locale).toBe('de-CH');
    const result = await graphql(app, `mutation { updatePost(id: ${german.id as number}, input: { locale: "en" }) { id } }`, undefined, { token: app.tokens.alice });
    expectError(result, 'CONFLICT', ['updatePost']);
  });

  it('translationOf a missing post and one the writer may not see: the same 404; a bare id on REST is 400', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
    const missing = await translate(app.tokens.bob, 999_999, { locale: 'de' });
    const hidden = await translate(app.tokens.bob, draft.id, { locale: 'de' });
    const missingBody = expectProblem(missing, 404, 'NOT_FOUND');
    const hiddenBody = expectProblem(hidden, 404, 'NOT_FOUND');
    const strip = (body: { detail: string; instance: string }) => ({ ...body, detail: body.detail.replace(/\d+/g, 'N'), instance: undefined });
    expect(strip(hiddenBody)).toEqual(strip(missingBody));
    // GraphQL alike.
    for (const id of [999_999, draft.id]) {
      const result = await graphql(app, `mutation { createPost(input: { title: "T", body: "B", locale: "de", translationOf: ${id} }) { id } }`, undefined, { token: app.tokens.bob });
      expectError(result, 'NOT_FOUND', ['createPost']);
    }
    // Its author and an editor may translate it.
    await translate(app.tokens.alice, draft.id, { locale: 'de' }).expect(201);
    await translate(editor, draft.id, { locale: 'fr' }).expect(201);
    const bare = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'T', body: 'B', locale: 'de-CH', translationOf: draft.id });
    expectProblem(bare, 400);
    expect(errorFields(bare)).toContain('translationOf');
    for (const bad of [{ postId: 'x' }, { postId: 1, extra: 1 }, {}, null, [1]]) {
      const refused = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'T', body: 'B', locale: 'de-CH', translationOf: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
    }
  });

  describe('a draft translation of a published post', () => {
    let original: number;
    let draft: number;
    let published: number;

    beforeAll(async () => {
      original = (await createPost(app, app.tokens.alice, { title: 'Public original' })).id;
      draft = (await translate(app.tokens.alice, original, { locale: 'de', status: 'draft' }).expect(201)).body.id as number;
      published = (await translate(app.tokens.alice, original, { locale: 'fr' }).expect(201)).body.id as number;
    });

    const readers = () => ({ anonymous: undefined, bob: app.tokens.bob, alice: app.tokens.alice, editor, admin: app.tokens.admin });
    const seesDraft = (name: string) => ['alice', 'editor', 'admin'].includes(name);

    it('shows in _links.translations (JSON, HAL), XML and HTML alternates to its author and editors only', async () => {
      for (const [name, token] of Object.entries(readers())) {
        const as = (test: request.Test) => (token ? test.set(bearer(token)) : test);
        const expected: Translation[] = [
          ...(seesDraft(name) ? [{ href: `/posts/${draft}`, hreflang: 'de' }] : []),
          { href: `/posts/${published}`, hreflang: 'fr' },
        ];
        const json = await as(http().get(`/posts/${original}`)).expect(200);
        expect(json.body._links.translations, name).toEqual(expected);
        const hal = await as(http().get(`/posts/${original}`).set('Accept', 'application/hal+json')).expect(200);
        expect(hal.body._links.translations, name).toEqual(expected);
        const xml = await as(http().get(`/posts/${original}`).set('Accept', 'application/xml')).expect(200);
        expect(xmlAlternates(parseXml(xml.text)), name).toEqual(expected.map((link) => [link.hreflang, link.href]));
        const html = await as(http().get(`/posts/${original}`).set('Accept', 'text/html')).expect(200);
        expect(html.text).toMatch(/<html lang="en">/);
        expect(htmlAlternates(html.text).map(([lang, href]) => [lang, new URL(href).pathname]), name).toEqual(expected.map((link) => [link.hreflang, link.href]));
        // In lists too.
        const list = await as(http().get(`/users/${json.body.authorId as number}/posts?limit=100`)).expect(200);
        const listed = (list.body as { id: number; _links: { translations?: Translation[] } }[]).find((post) => post.id === original);
        expect(listed?._links.translations, name).toEqual(expected);
        // The French one links the original, and the draft for those who see it.
        const french = await as(http().get(`/posts/${published}`)).expect(200);
        expect(french.headers['content-language']).toBe('fr');
        expect(french.body._links.translations.map((link: Translation) => link.hreflang), name).toEqual(seesDraft(name) ? ['de', 'en'] : ['en']);
      }
    });

    it('shows in GraphQL Post.translations to its author and editors only', async () => {
      for (const [name, token] of Object.entries(readers())) {
        const result = await graphql(app, `{ post(id: ${original}) { locale translations { id locale status } } }`, undefined, token ? { token } : {});
        const { post } = expectData(result);
        expect(post.locale).toBe('en');
        expect(post.translations, name).toEqual([
          ...(seesDraft(name) ? [{ id: draft, locale: 'de', status: 'DRAFT' }] : []),
          { id: published, locale: 'fr', status: 'PUBLISHED' },
        ]);
      }
    });
  });

  it('Post.translations is batched: one statement for the translations of every post of a page', async () => {
    const token = app.tokens.bob;
    for (let index = 0; index < 5; index++) {
      const post = await createPost(app, token);
      await translate(token, post.id, { locale: 'de' }).expect(201);
      await translate(token, post.id, { locale: 'fr' }).expect(201);
    }
    const page = (extra: string) => `{ posts(first: 10) { nodes { id locale ${extra} } } }`;
    const without = await fewestStatements(app, () => graphql(app, page('')));
    const withTranslations = await fewestStatements(app, () => graphql(app, page('translations { id locale title }')));
    const nodes = expectData(await graphql(app, page('translations { id locale }'))).posts.nodes as { id: number; translations: { locale: string }[] }[];
    expect(nodes.filter((node) => node.translations.length === 2).length).toBeGreaterThan(3);
    console.log(`[${kind}] posts(first: 10): ${without} statements; with translations: ${withTranslations}`);
    expect(withTranslations).toBe(without + 1);
    // Deeper: the translations' translations come from the same loader, one more tick.
    const deeper = await fewestStatements(app, () => graphql(app, page('translations { id translations { id } }')));
    expect(deeper).toBe(without + 2);
  });
});

describeEachDatabase('translations and the response cache', (kind) => {
  const app = useApp(kind, { env: { SUPPORTED_LOCALES: 'en,de,fr' }, timeout: 60_000 });
  const http = () => request(app.server);

  it('a cached post shows a translation made, published or deleted after it was cached', async () => {
    const original = await createPost(app, app.tokens.alice);
    const links = async () => ((await http().get(`/posts/${original.id}`).expect(200)).body._links.translations as Translation[] | undefined)?.map((link) => link.hreflang) ?? [];
    expect(await links()).toEqual([]);
    expect(await links()).toEqual([]);
    const german = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Neu', body: 'b', locale: 'de', translationOf: { postId: original.id } }).expect(201)).body;
    expect(await links()).toEqual(['de']);
    const french = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Nouveau', body: 'b', locale: 'fr', status: 'draft', translationOf: { postId: original.id } }).expect(201)).body;
    expect(await links()).toEqual(['de']);
    await http().patch(`/posts/${french.id as number}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
    expect(await links()).toEqual(['de', 'fr']);
    await http().delete(`/posts/${german.id as number}`).set(bearer(app.tokens.alice)).expect(204);
    expect(await links()).toEqual(['fr']);
  });
});
