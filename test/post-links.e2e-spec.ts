import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { createPost, createUser, parseXml, type XmlElement } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

type Link = { href: string; name?: string };
type Links = Record<string, Link | Link[]>;

/** The `<link>` children of a resource element, in order, as [rel, href, name]. */
const xmlLinks = (element: XmlElement) =>
  element.children.filter((child) => child.name === 'link').map((child) => [child.attributes.rel, child.attributes.href, child.attributes.name]);

/** The links an HTML page lists (its "Links" nav), as [rel, href]. */
const htmlLinks = (html: string) => {
  const nav = /<nav class="links"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
  return [...nav.matchAll(/<a rel="([^"]+)" href="([^"]+)"/g)].map((match) => [match[1], match[2]]);
};

/**
 * A post's links (CONTRACT §18): `revisions` for those who may read them (the rule of GET
 * /posts/{id}/revisions: its author, editors and admins), in every format and on every door that
 * shows a post; its tags as links to /tags/{id} (HAL `_links.tags`, XML `<link rel="tag">`), which
 * the reader can follow.
 */
describeEachDatabase('a post\'s links', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, timeout: 60_000 });
  let editor: string;
  const http = () => request(app.server);
  let sequence = 0;
  const unique = (name: string) => `${name} ${kind} ${++sequence}`;

  beforeAll(async () => {
    const user = await createUser(app);
    await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'editor' }).expect(200);
    editor = await tokenFor(app, { email: user.email, password: user.password });
  }, 60_000);

  /** The ids of tags by slug, as the tag list shows them to this reader. */
  async function tagId(slug: string, token?: string): Promise<number> {
    const call = http().get(`/tags?slug=${slug}`);
    const [tag] = (await (token ? call.set(bearer(token)) : call).expect(200)).body as { id: number }[];
    return tag.id;
  }

  describe('revisions', () => {
    it('the author, an editor and an admin get _links.revisions (JSON, HAL, XML, HTML), and it leads to the revisions', async () => {
      const post = await createPost(app, app.tokens.alice);
      const href = `/posts/${post.id}/revisions`;
      expect((post._links as Links).revisions).toEqual({ href });
      for (const token of [app.tokens.alice, editor, app.tokens.admin]) {
        const json = await http().get(`/posts/${post.id}`).set(bearer(token)).expect(200);
        expect(json.body._links.revisions).toEqual({ href });
        const hal = await http().get(`/posts/${post.id}`).set(bearer(token)).set('Accept', 'application/hal+json').expect(200);
        expect(hal.body._links.revisions).toEqual({ href });
        const xml = await http().get(`/posts/${post.id}`).set(bearer(token)).set('Accept', 'application/xml').expect(200);
        expect(xmlLinks(parseXml(xml.text))).toContainEqual(['revisions', href, undefined]);
        const html = await http().get(`/posts/${post.id}`).set(bearer(token)).set('Accept', 'text/html').expect(200);
        expect(htmlLinks(html.text)).toContainEqual(['revisions', href]);
        const revisions = await http().get(json.body._links.revisions.href).set(bearer(token)).expect(200);
        expect(revisions.body).toHaveLength(1);
      }
      const changed = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Changed' }).expect(200);
      expect(changed.body._links.revisions).toEqual({ href });
    });

    it('anonymous readers and other authors get no revisions link (the revisions are 404 to them), on one post and in every list', async () => {
      const post = await createPost(app, app.tokens.alice, { title: unique('Not for Bob') });
      for (const token of [undefined, app.tokens.bob]) {
        const as = (call: request.Test) => (token ? call.set(bearer(token)) : call);
        const json = await as(http().get(`/posts/${post.id}`)).expect(200);
        expect(json.body._links).not.toHaveProperty('revisions');
        const hal = await as(http().get(`/posts/${post.id}`).set('Accept', 'application/hal+json')).expect(200);
        expect(hal.body._links).not.toHaveProperty('revisions');
        const xml = await as(http().get(`/posts/${post.id}`).set('Accept', 'application/xml')).expect(200);
        expect(xmlLinks(parseXml(xml.text)).map(([rel]) => rel)).not.toContain('revisions');
        const html = await as(http().get(`/posts/${post.id}`).set('Accept', 'text/html')).expect(200);
        expect(htmlLinks(html.text).map(([rel]) => rel)).not.toContain('revisions');
        await as(http().get(`/posts/${post.id}/revisions`)).expect(404);
        for (const list of ['/posts?limit=100', `/users/${post.authorId}/posts?limit=100`, `/posts?q=${encodeURIComponent('"Not for Bob"')}`]) {
          const items = (await as(http().get(list)).expect(200)).body as { id: number; _links: Links }[];
          expect(items.map((item) => item.id), list).toContain(post.id);
          expect(items.find((item) => item.id === post.id)?._links, list).not.toHaveProperty('revisions');
          if (!token) for (const item of items) expect(item._links, `${list}: ${item.id}`).not.toHaveProperty('revisions');
        }
      }
      // In a list the author sees, their own posts carry the link and others' do not.
      const bobId = (await createPost(app, app.tokens.bob)).authorId;
      const mine = (await http().get('/posts?limit=100').set(bearer(app.tokens.bob)).expect(200)).body as { authorId: number; _links: Links }[];
      expect(mine.map((item) => item.authorId)).toContain(bobId);
      for (const item of mine) expect('revisions' in item._links, `post by ${item.authorId}`).toBe(item.authorId === bobId);
    });

    it('a read-only API key is anonymous to the rule: no revisions link', async () => {
      const post = await createPost(app, app.tokens.alice);
      const key = async (scopes: string[]) => {
        const response = await http().post(`/users/${post.authorId}/api-keys`).set(bearer(app.tokens.alice)).send({ name: unique('key'), scopes });
        expect(response.status, response.text).toBe(201);
        return (response.body as { key: string }).key;
      };
      const read = await http().get(`/posts/${post.id}`).set(bearer(await key(['read']))).expect(200);
      expect(read.body._links).not.toHaveProperty('revisions');
      const write = await http().get(`/posts/${post.id}`).set(bearer(await key(['read', 'write']))).expect(200);
      expect(write.body._links.revisions).toEqual({ href: `/posts/${post.id}/revisions` });
    });
  });

  describe('tags', () => {
    it('a post links each of its tags to /tags/{id}, named by slug: JSON and HAL _links.tags, XML <link rel="tag">, HTML; GET, POST, PATCH and lists alike', async () => {
      const first = unique('Linked One');
      const second = unique('Linked Two');
      const created = await createPost(app, app.tokens.alice, { tags: [second, first] });
      const slugs = created.tags;
      const expected = await Promise.all(slugs.map(async (slug) => ({ href: `/tags/${await tagId(slug)}`, name: slug })));
      expect((created._links as Links).tags).toEqual(expected);
      const json = await http().get(`/posts/${created.id}`).expect(200);
      expect(json.body._links.tags).toEqual(expected);
      const hal = await http().get(`/posts/${created.id}`).set('Accept', 'application/hal+json').expect(200);
      expect(hal.body._links.tags).toEqual(expected);
      const xml = await http().get(`/posts/${created.id}`).set('Accept', 'application/xml').expect(200);
      expect(xmlLinks(parseXml(xml.text)).filter(([rel]) => rel === 'tag')).toEqual(expected.map((link) => ['tag', link.href, link.name]));
      const html = await http().get(`/posts/${created.id}`).set('Accept', 'text/html').expect(200);
      expect(htmlLinks(html.text).filter(([rel]) => rel === 'tag')).toEqual(expected.map((link) => ['tag', link.href]));
      const listed = ((await http().get(`/posts?tag=${slugs[0]}`).expect(200)).body as { id: number; _links: Links }[]).find((item) => item.id === created.id);
      expect(listed?._links.tags).toEqual(expected);
      const embedded = (await http().get(`/posts?tag=${slugs[0]}`).set('Accept', 'application/hal+json').expect(200)).body._embedded.posts as { id: number; _links: Links }[];
      expect(embedded.find((item) => item.id === created.id)?._links.tags).toEqual(expected);
      // Each link leads to its tag.
      for (const link of expected) expect((await http().get(link.href).expect(200)).body.slug).toBe(link.name);

      // PATCH: the new set; without tags the same set; no tags: no tag links.
      const third = unique('Linked Three');
      const patched = await http().patch(`/posts/${created.id}`).set(bearer(app.tokens.alice)).send({ tags: [third] }).expect(200);
      const thirdSlug = (patched.body.tags as string[])[0];
      expect(patched.body._links.tags).toEqual([{ href: `/tags/${await tagId(thirdSlug)}`, name: thirdSlug }]);
      const retitled = await http().patch(`/posts/${created.id}`).set(bearer(app.tokens.alice)).send({ title: 'Retitled' }).expect(200);
      expect(retitled.body._links.tags).toEqual(patched.body._links.tags);
      const untagged = await http().patch(`/posts/${created.id}`).set(bearer(app.tokens.alice)).send({ tags: [] }).expect(200);
      expect(untagged.body._links).not.toHaveProperty('tags');
      expect(xmlLinks(parseXml((await http().get(`/posts/${created.id}`).set('Accept', 'application/xml').expect(200)).text)).map(([rel]) => rel)).not.toContain('tag');
    });

    it('a tag only a draft carries: its author gets the link and may follow it; nobody else sees the post, nor the tag', async () => {
      const name = unique('Draft Linked');
      const draft = await createPost(app, app.tokens.alice, { status: 'draft', tags: [name] });
      const [link] = (draft._links as Links).tags as Link[];
      expect(link).toEqual({ href: expect.stringMatching(/^\/tags\/\d+$/), name: draft.tags[0] });
      const json = await http().get(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(json.body._links.tags).toEqual([link]);
      await http().get(link.href).set(bearer(app.tokens.alice)).expect(200);
      await http().get(`/posts/${draft.id}`).expect(404);
      await http().get(`/posts/${draft.id}`).set(bearer(app.tokens.bob)).expect(404);
      await http().get(link.href).expect(404);
      await http().get(link.href).set(bearer(app.tokens.bob)).expect(404);
      // No public list carries the draft, so no public representation names its tag.
      const everything = JSON.stringify((await http().get('/posts?limit=100').expect(200)).body);
      expect(everything).not.toContain(`"${link.href}"`);
    });

    it('the OpenAPI document declares both rels of a post: revisions (optional) and tags (an optional array of named links)', async () => {
      const document = (await http().get('/docs-json').expect(200)).body as { components: { schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown>; required: string[] }> }> } };
      const links = document.components.schemas.Post.properties._links;
      expect(links.properties.revisions).toEqual({ type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false });
      expect(links.properties.tags).toEqual({
        type: 'array',
        items: { type: 'object', properties: { href: { type: 'string' }, name: { type: 'string' } }, required: ['href', 'name'], additionalProperties: false },
      });
      expect(links.required).not.toContain('revisions');
      expect(links.required).not.toContain('tags');
    });
  });
});
