import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { expectData, expectError, graphql, metricValue } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createPost, createUser, nextLink, parseXml, xmlFields } from './support/resources.js';
import { LiveSubscription, listen, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { slugify } from '../src/tags/slug.js';

const TAG_KEYS = ['_links', 'createdAt', 'id', 'name', 'postCount', 'slug', 'updatedAt'];

/** Tags (CONTRACT §8): the resource in every format, its rights, slugs, counts and order; posts' tags on REST and GraphQL. */
describeEachDatabase('tags', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, signIn: ['admin', 'alice'], timeout: 60_000 });
  let editor: string;
  let moderator: string;
  const http = () => request(app.server);
  /** A name unique to this run: each database's suite starts from the demo data. */
  let sequence = 0;
  const unique = (name: string) => `${name} ${kind} ${++sequence}`;

  async function withRole(role: string): Promise<string> {
    const user = await createUser(app);
    expect((await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role })).status).toBe(200);
    return tokenFor(app, { email: user.email, password: user.password });
  }

  async function createTag(name: string, token = editor): Promise<Record<string, unknown>> {
    const response = await http().post('/tags').set(bearer(token)).send({ name });
    expect(response.status, response.text).toBe(201);
    return response.body as Record<string, unknown>;
  }

  async function statementsOf(run: () => Promise<unknown>): Promise<number> {
    const counts: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await metricValue(app, 'db_queries_total');
      await run();
      counts.push((await metricValue(app, 'db_queries_total')) - before);
    }
    return Math.min(...counts);
  }

  beforeAll(async () => {
    editor = await withRole('editor');
    moderator = await withRole('moderator');
  }, 60_000);

  describe('the resource', () => {
    it('POST /tags derives the slug, answers 201 with Location and the tag', async () => {
      const name = `Release Notes! ${kind}`;
      const response = await http().post('/tags').set(bearer(editor)).send({ name });
      expect(response.status, response.text).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(TAG_KEYS);
      expect(response.body).toMatchObject({ name, slug: `release-notes-${kind}`, postCount: 0 });
      expect(response.headers.location).toBe(`/tags/${response.body.id}`);
      expect(response.body._links).toEqual({ self: { href: `/tags/${response.body.id}` }, posts: { href: `/posts?tag=release-notes-${kind}` } });
    });

    it('slugs: runs of other characters are one dash, trimmed; unicode and punctuation too', async () => {
      const cases: [string, string][] = [
        [`  --Hello,   World!!-- ${kind}a`, `hello-world-${kind}a`],
        [`Café Crème ${kind}b`, `caf-cr-me-${kind}b`],
        [`C++ & C# ${kind}c`, `c-c-${kind}c`],
        [`日本 ${kind}d 2026`, `${kind}d-2026`],
      ];
      for (const [name, slug] of cases) expect((await createTag(name)).slug).toBe(slug);
    });

    it('a name without a-z0-9 is 400 naming name; a bad body is 400 naming the field, never 500', async () => {
      for (const name of ['!!!', '日本語', '   ', '']) {
        const response = await http().post('/tags').set(bearer(editor)).send({ name });
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toEqual(['name']);
      }
      for (const body of [{}, { name: 12 }, { name: null }, { name: 'x'.repeat(51) }, { name: ['a'] }]) {
        const response = await http().post('/tags').set(bearer(editor)).send(body);
        expectProblem(response, 400);
        expect(errorFields(response)).toContain('name');
      }
      const unknown = await http().post('/tags').set(bearer(editor)).send({ name: 'ok', slug: 'mine' });
      expectProblem(unknown, 400);
      expect(errorFields(unknown)).toContain('slug');
      expectProblem(await http().get('/tags/abc'), 400);
      expectProblem(await http().get('/tags?limit=0'), 400);
      const cursor = await http().get('/tags?cursor=nonsense');
      expectProblem(cursor, 400);
      expect(errorFields(cursor)).toEqual(['cursor']);
    });

    it('a taken slug is 409 CONFLICT, on POST and on PATCH', async () => {
      const first = await createTag(`Taken ${kind}`);
      expectProblem(await http().post('/tags').set(bearer(editor)).send({ name: `taken  ${kind.toUpperCase()}` }), 409, 'CONFLICT');
      const other = await createTag(`Other ${kind}`);
      expectProblem(await http().patch(`/tags/${other.id}`).set(bearer(editor)).send({ name: `TAKEN ${kind}!` }), 409, 'CONFLICT');
      expect((await http().get(`/tags/${first.id}`).expect(200)).body.name).toBe(`Taken ${kind}`);
    });

    it('rights: anonymous 401, authors and moderators 403, editors and admins may', async () => {
      expectProblem(await http().post('/tags').send({ name: 'x' }), 401, 'UNAUTHENTICATED');
      expectProblem(await http().post('/tags').set(bearer(app.tokens.alice)).send({ name: 'x' }), 403, 'FORBIDDEN');
      expectProblem(await http().post('/tags').set(bearer(moderator)).send({ name: 'x' }), 403, 'FORBIDDEN');
      const tag = await createTag(unique('Rights'), app.tokens.admin);
      expectProblem(await http().patch(`/tags/${tag.id}`).send({ name: 'y' }), 401);
      expectProblem(await http().patch(`/tags/${tag.id}`).set(bearer(app.tokens.alice)).send({ name: 'y' }), 403, 'FORBIDDEN');
      expectProblem(await http().delete(`/tags/${tag.id}`).set(bearer(moderator)), 403, 'FORBIDDEN');
      expectProblem(await http().delete(`/tags/${tag.id}`), 401);
      expect((await http().patch(`/tags/${tag.id}`).set(bearer(editor)).send({ name: unique('Renamed') })).status).toBe(200);
      await http().delete(`/tags/${tag.id}`).set(bearer(app.tokens.admin)).expect(204);
      expectProblem(await http().get(`/tags/${tag.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().delete(`/tags/${tag.id}`).set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().patch(`/tags/${tag.id}`).set(bearer(app.tokens.admin)).send({ name: 'gone' }), 404, 'NOT_FOUND');
    });

    it('GET /tags/{id} in JSON, HAL, XML and HTML, with an ETag; PATCH with If-Match re-derives the slug', async () => {
      const tag = await createTag(`Formats & <More> ${kind}`);
      const slug = `formats-more-${kind}`;
      const json = await http().get(`/tags/${tag.id}`).expect(200);
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.body).toEqual(tag);
      const etag = json.headers.etag as string;
      expect(etag).toBeTruthy();
      await http().get(`/tags/${tag.id}`).set('If-None-Match', etag).expect(304);
      const hal = await http().get(`/tags/${tag.id}`).set('Accept', 'application/hal+json').expect(200);
      expect(hal.body._links.posts.href).toBe(`/posts?tag=${slug}`);
      const xml = await http().get(`/tags/${tag.id}`).set('Accept', 'application/xml').expect(200);
      const root = parseXml(xml.text);
      expect(root.name).toBe('tag');
      const { fields, links } = xmlFields(root);
      expect(fields).toMatchObject({ id: String(tag.id), name: `Formats & <More> ${kind}`, slug, postCount: '0' });
      expect(links).toEqual({ self: `/tags/${tag.id}`, posts: `/posts?tag=${slug}` });
      const html = await http().get(`/tags/${tag.id}`).set('Accept', 'text/html').expect(200);
      expect(html.text).toContain('Formats &amp; &lt;More&gt;');
      expect(html.text).toContain(`href="/posts?tag=${slug}"`);

      expectProblem(await http().patch(`/tags/${tag.id}`).set(bearer(editor)).set('If-Match', '"999"').send({ name: 'Stale' }), 412);
      const changed = await http().patch(`/tags/${tag.id}`).set(bearer(editor)).set('If-Match', etag).send({ name: `  Fresh Name ${kind} ` });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ id: tag.id, name: `Fresh Name ${kind}`, slug: `fresh-name-${kind}`, postCount: 0 });
      expect(changed.headers.etag).not.toBe(etag);
      expectProblem(await http().patch(`/tags/${tag.id}`).set(bearer(editor)).set('If-Match', etag).send({ name: 'Again' }), 412);
      expectProblem(await http().patch(`/tags/${tag.id}`).set(bearer(editor)).send({}), 400);
    });

    it('GET /tags?slug= finds one (a list of it alone) or none', async () => {
      const tag = await createTag(`Findable ${kind}`);
      const found = await http().get(`/tags?slug=findable-${kind}`).expect(200);
      expect(found.body).toEqual([tag]);
      expect((await http().get('/tags?slug=no-such-tag-anywhere').expect(200)).body).toEqual([]);
    });
  });

  describe('counts and order', () => {
    it('postCount counts public posts only: a draft is not counted until it is published', async () => {
      const name = unique('Counted');
      const published = await createPost(app, app.tokens.alice, { tags: [name] });
      const slug = published.tags[0];
      const draft = await createPost(app, app.tokens.alice, { tags: [slug], status: 'draft' });
      const [tag] = (await http().get(`/tags?slug=${slug}`).expect(200)).body;
      expect(tag.postCount).toBe(1);
      await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
      expect((await http().get(`/tags/${tag.id}`).expect(200)).body.postCount).toBe(2);
      await http().delete(`/posts/${published.id}`).set(bearer(app.tokens.alice)).expect(204);
      expect((await http().get(`/tags/${tag.id}`).expect(200)).body.postCount).toBe(1);
      const data = expectData(await graphql(app, 'query($s: String!) { tag(slug: $s) { postCount posts { id } } }', { s: slug }));
      expect(data.tag).toEqual({ postCount: 1, posts: [{ id: draft.id }] });
    });

    it('postCount follows every write (the database keeps it): untag, trash, restore, delete for good, a writer deleted; it always equals a count of the public posts', async () => {
      const writer = await createUser(app);
      const [a, b] = [unique('Kept A'), unique('Kept B')];
      const first = await createPost(app, writer.token, { tags: [a, b] });
      const second = await createPost(app, writer.token, { tags: [a] });
      const third = await createPost(app, app.tokens.alice, { tags: [a, b] });
      const [slugA, slugB] = [slugify(a), slugify(b)];
      const data = app.app.get(DataSource);
      const count = async (slug: string) => {
        const [tag] = (await http().get(`/tags?slug=${slug}`).expect(200)).body as { postCount: number }[];
        // What a count of the public posts that carry it says at this moment.
        const [row] = (await data.query(
          `SELECT COUNT(*) AS n FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN tags g ON g.id = pt.tag_id WHERE g.slug = '${slug}' AND p.status = 'published'`,
        )) as { n: number | string }[];
        expect(tag.postCount, `${slug}: stored count and a real count`).toBe(Number(row.n));
        return tag.postCount;
      };
      expect([await count(slugA), await count(slugB)]).toEqual([3, 2]);
      // Untagged by a PATCH that replaces the set.
      await http().patch(`/posts/${first.id}`).set(bearer(writer.token)).send({ tags: [a] }).expect(200);
      expect([await count(slugA), await count(slugB)]).toEqual([3, 1]);
      // Trashed (not public), restored, deleted for good.
      await http().delete(`/posts/${second.id}`).set(bearer(writer.token)).expect(204);
      expect(await count(slugA)).toBe(2);
      await http().patch(`/posts/${second.id}`).set(bearer(writer.token)).send({ status: 'published' }).expect(200);
      expect(await count(slugA)).toBe(3);
      await http().delete(`/posts/${third.id}`).set(bearer(app.tokens.alice)).expect(204);
      await http().delete(`/posts/${third.id}`).set(bearer(app.tokens.alice)).expect(204);
      expect([await count(slugA), await count(slugB)]).toEqual([2, 0]);
      // Their writer deleted: their posts go, and with them the counts.
      await http().delete(`/users/${writer.id}`).set(bearer(app.tokens.admin)).expect(204);
      expect([await count(slugA), await count(slugB)]).toEqual([0, 0]);
    });

    it('GET /tags: most used first, then by id; keyset paging walks every tag once; every format', async () => {
      const popular = unique('Popular');
      const middling = unique('Middling');
      for (let index = 0; index < 3; index++) await createPost(app, app.tokens.alice, { tags: [popular, ...(index < 2 ? [middling] : [])] });
      const seen: Record<string, unknown>[] = [];
      let next: string | null = '/tags?limit=3';
      while (next) {
        const page = await http().get(next).expect(200);
        seen.push(...(page.body as Record<string, unknown>[]));
        next = nextLink(page);
        if (next) expect(next).toMatch(/^\/tags\?limit=3&cursor=/);
      }
      const ids = seen.map((tag) => tag.id);
      expect(new Set(ids).size).toBe(ids.length);
      const all = (await http().get('/tags?limit=100').expect(200)).body as Record<string, unknown>[];
      expect(ids).toEqual(all.map((tag) => tag.id));
      const order = seen.map((tag) => [tag.postCount as number, tag.id as number]);
      const sorted = [...order].sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      expect(order).toEqual(sorted);
      const position = (name: string) => seen.findIndex((tag) => tag.name === name);
      expect(position(popular)).toBeLessThan(position(middling));

      const hal = await http().get('/tags?limit=2').set('Accept', 'application/hal+json').expect(200);
      expect(hal.body._links.self.href).toBeTruthy();
      expect(hal.body._links.next.href).toMatch(/^\/tags\?/);
      expect(hal.body._embedded.tags).toHaveLength(2);
      expect(hal.body._embedded.tags[0]._links.posts.href).toMatch(/^\/posts\?tag=/);
      const xml = parseXml((await http().get('/tags?limit=2').set('Accept', 'application/xml').expect(200)).text);
      expect(xml.name).toBe('tags');
      expect(xml.children.map((child) => child.name)).toEqual(['tag', 'tag']);
      const html = await http().get('/tags?limit=2').set('Accept', 'text/html').expect(200);
      expect(html.text).toContain('rel="next"');
      expect(html.text).toContain('/posts?tag=');
    });
  });

  describe('posts carry tags', () => {
    it('POST /posts with tags: new ones created, existing matched by slug, duplicates collapsed; every format shows them', async () => {
      const existing = await createTag(unique('Existing'));
      const fresh = unique('Brand New');
      const post = await createPost(app, app.tokens.alice, { tags: [fresh, String(existing.slug).toUpperCase(), `${fresh}!!`] });
      const freshSlug = fresh.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      expect(post.tags).toEqual([existing.slug, freshSlug].sort());
      const created = (await http().get(`/tags?slug=${freshSlug}`).expect(200)).body;
      expect(created).toMatchObject([{ name: fresh, slug: freshSlug, postCount: 1 }]);
      expect((await http().get(`/tags/${existing.id}`).expect(200)).body.name).toBe(existing.name);

      const json = await http().get(`/posts/${post.id}`).expect(200);
      expect(json.body.tags).toEqual(post.tags);
      const hal = await http().get(`/posts/${post.id}`).set('Accept', 'application/hal+json').expect(200);
      expect(hal.body.tags).toEqual(post.tags);
      const xml = parseXml((await http().get(`/posts/${post.id}`).set('Accept', 'application/xml').expect(200)).text);
      const tags = xml.children.find((child) => child.name === 'tags');
      expect(tags?.children.map((child) => [child.name, child.text])).toEqual(post.tags.map((slug) => ['tag', slug]));
      const html = await http().get(`/posts/${post.id}`).set('Accept', 'text/html').expect(200);
      for (const slug of post.tags) expect(html.text).toContain(`href="/posts?tag=${slug}"`);
      const list = await http().get(`/users/${post.authorId}/posts?limit=100`).expect(200);
      expect(list.body.find((item: { id: number }) => item.id === post.id).tags).toEqual(post.tags);
      const front = await http().get('/posts?limit=100').expect(200);
      expect(front.body.find((item: { id: number }) => item.id === post.id).tags).toEqual(post.tags);
      const listXml = parseXml((await http().get('/posts?limit=5').set('Accept', 'application/xml').expect(200)).text);
      expect(listXml.children.every((child) => child.children.some((field) => field.name === 'tags'))).toBe(true);
      const listHtml = await http().get('/posts?limit=100').set('Accept', 'text/html').expect(200);
      expect(listHtml.text).toContain(`href="/posts?tag=${freshSlug}"`);
      const untagged = await createPost(app, app.tokens.alice);
      expect(untagged.tags).toEqual([]);
      expect((await http().get(`/posts/${untagged.id}`).expect(200)).body.tags).toEqual([]);
    });

    it('PATCH /posts with tags replaces the set and bumps the version; without tags keeps them', async () => {
      const post = await createPost(app, app.tokens.alice, { tags: [unique('Keep'), unique('Drop')] });
      const first = await http().get(`/posts/${post.id}`).expect(200);
      const other = unique('Other');
      const changed = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', first.headers.etag as string).send({ tags: [post.tags[1], other] });
      expect(changed.status, changed.text).toBe(200);
      const otherSlug = other.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      expect(changed.body.tags).toEqual([post.tags[1], otherSlug].sort());
      expect(changed.headers.etag).not.toBe(first.headers.etag);
      const retitled = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Retitled' }).expect(200);
      expect(retitled.body.tags).toEqual(changed.body.tags);
      const cleared = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ tags: [] }).expect(200);
      expect(cleared.body.tags).toEqual([]);
      expect((await http().get(`/posts/${post.id}`).expect(200)).body.tags).toEqual([]);
      const revisions = await http().get(`/posts/${post.id}/revisions`).set(bearer(app.tokens.alice)).expect(200);
      expect(revisions.body).toHaveLength(2);
    });

    it('more than 10 different tags is 400 naming tags (nothing written); 10 with duplicates is fine; bad entries are 400', async () => {
      const names = Array.from({ length: 11 }, (_, index) => `${kind} eleven ${sequence} ${index}`);
      const tooMany = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Too many', body: 'b', tags: names });
      expectProblem(tooMany, 400, 'BAD_USER_INPUT');
      expect(errorFields(tooMany)).toEqual(['tags']);
      expect((await http().get(`/tags?slug=${kind}-eleven-${sequence}-0`).expect(200)).body).toEqual([]);
      const ten = await createPost(app, app.tokens.alice, { tags: [...names.slice(0, 10), names[0].toUpperCase()] });
      expect(ten.tags).toHaveLength(10);
      expectProblem(await http().patch(`/posts/${ten.id}`).set(bearer(app.tokens.alice)).send({ tags: names }), 400);
      for (const tags of ['news', [1], [null], [''], ['x'.repeat(51)], ['!!!'], { a: 1 }]) {
        const response = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Bad tags', body: 'b', tags });
        expectProblem(response, 400);
        expect(errorFields(response)).toEqual(['tags']);
      }
    });

    it('two posts naming the same new tag at once both get it: one tag, counted twice', async () => {
      const name = unique('Simultaneous');
      const [first, second] = await Promise.all([createPost(app, app.tokens.alice, { tags: [name] }), createPost(app, editor, { tags: [name] })]);
      expect(first.tags).toEqual(second.tags);
      const found = (await http().get(`/tags?slug=${first.tags[0]}`).expect(200)).body;
      expect(found).toMatchObject([{ name, postCount: 2 }]);
    });

    it('deleting a tag removes it from its posts', async () => {
      const keep = unique('Stays');
      const post = await createPost(app, app.tokens.alice, { tags: [unique('Goes'), keep] });
      const [gone] = (await http().get(`/tags?slug=${post.tags.find((slug) => slug.includes('goes'))}`).expect(200)).body;
      await http().delete(`/tags/${gone.id}`).set(bearer(editor)).expect(204);
      expect((await http().get(`/posts/${post.id}`).expect(200)).body.tags).toEqual(post.tags.filter((slug) => slug !== gone.slug));
    });

    it('GET /posts and GET /posts/{id} read the tags in the post statement itself (one statement each)', async () => {
      const post = await createPost(app, app.tokens.alice, { tags: [unique('Statement')] });
      expect(await statementsOf(() => http().get(`/posts/${post.id}`).expect(200))).toBe(1);
      expect(await statementsOf(() => http().get('/posts?limit=20').expect(200))).toBe(1);
    });
  });

  describe('GraphQL', () => {
    it('Post.tags is one statement for any number of posts; Tag.postCount and Tag.posts', async () => {
      const shared = unique('Shared');
      for (let index = 0; index < 4; index++) await createPost(app, app.tokens.alice, { tags: [shared, unique('Own')] });
      const query = '{ posts(first: 20) { nodes { id tags { slug name postCount } } } }';
      const without = await statementsOf(() => graphql(app, '{ posts(first: 20) { nodes { id } } }'));
      const withTags = await statementsOf(() => graphql(app, query));
      expect(withTags - without).toBe(1);
      const data = expectData(await graphql(app, query));
      const tagged = data.posts.nodes.filter((node: { tags: { name: string }[] }) => node.tags.some((tag) => tag.name === shared));
      expect(tagged).toHaveLength(4);
      for (const node of tagged) {
        const slugs = node.tags.map((tag: { slug: string }) => tag.slug);
        expect(slugs).toEqual([...slugs].sort());
        expect(node.tags.find((tag: { name: string }) => tag.name === shared).postCount).toBe(4);
      }
      const sharedSlug = tagged[0].tags.find((tag: { name: string }) => tag.name === shared).slug;
      const byTag = expectData(await graphql(app, 'query($s: String!) { tag(slug: $s) { id name postCount posts(first: 3) { id tags { slug } } } }', { s: sharedSlug }));
      expect(byTag.tag.postCount).toBe(4);
      expect(byTag.tag.posts).toHaveLength(3);
      expect(byTag.tag.posts.map((post: { id: number }) => post.id)).toEqual(tagged.slice(0, 3).map((node: { id: number }) => node.id));
      const byId = expectData(await graphql(app, 'query($id: Int!) { tag(id: $id) { slug } }', { id: byTag.tag.id }));
      expect(byId.tag.slug).toBe(sharedSlug);
      expect(expectData(await graphql(app, '{ tag(slug: "no-such-tag-here") { id } }')).tag).toBeNull();
      expect(expectData(await graphql(app, '{ tag(id: 999999) { id } }')).tag).toBeNull();
      expectError(await graphql(app, '{ tag { id } }'), 'BAD_USER_INPUT', ['tag']);
      expectError(await graphql(app, `{ tag(id: ${byTag.tag.id}, slug: "x") { id } }`), 'BAD_USER_INPUT', ['tag']);
    });

    it('tags(first, after) pages most used first like REST', async () => {
      const rest = (await http().get('/tags?limit=100').expect(200)).body.map((tag: { id: number }) => tag.id);
      const ids: number[] = [];
      let after: string | null = null;
      do {
        const page = expectData(await graphql(app, 'query($after: String) { tags(first: 4, after: $after) { nodes { id } pageInfo { hasNextPage hasPreviousPage endCursor } } }', { after }));
        expect(page.tags.pageInfo.hasPreviousPage).toBe(after !== null);
        ids.push(...page.tags.nodes.map((node: { id: number }) => node.id));
        after = page.tags.pageInfo.hasNextPage ? page.tags.pageInfo.endCursor : null;
      } while (after);
      expect(ids).toEqual(rest);
      expectError(await graphql(app, '{ tags(after: "nonsense") { nodes { id } } }'), 'BAD_USER_INPUT', ['tags']);
    });

    it('TagConnection.totalCount counts the tags the reader sees, as the list shows them: a draft-only tag for its author and admins, not for others', async () => {
      const restCount = async (token?: string) => {
        let count = 0;
        let url: string | null = '/tags?limit=100';
        while (url) {
          const call = http().get(url);
          const response: request.Response = await (token ? call.set(bearer(token)) : call).expect(200);
          count += (response.body as unknown[]).length;
          url = nextLink(response);
        }
        return count;
      };
      const total = async (token?: string) => expectData(await graphql(app, '{ tags(first: 1) { totalCount nodes { id } } }', undefined, { token })).tags.totalCount as number;
      const bob = await createUser(app);
      const before = { anonymous: await total(), alice: await total(app.tokens.alice), bob: await total(bob.token), admin: await total(app.tokens.admin) };
      await createPost(app, app.tokens.alice, { status: 'draft', tags: [unique('Counted Draft Tag')] });
      await createTag(unique('Counted Public Tag'));
      const after = { anonymous: await total(), alice: await total(app.tokens.alice), bob: await total(bob.token), admin: await total(app.tokens.admin) };
      expect(after).toEqual({ anonymous: before.anonymous + 1, alice: before.alice + 2, bob: before.bob + 1, admin: before.admin + 2 });
      expect(after.anonymous).toBe(await restCount());
      expect(after.alice).toBe(await restCount(app.tokens.alice));
      expect(after.bob).toBe(await restCount(bob.token));
      expect(after.admin).toBe(await restCount(app.tokens.admin));
    });

    it('createTag, updateTag, deleteTag: rights and errors as REST; createPost and updatePost take tags', async () => {
      const name = unique('Graph Tag');
      const create = 'mutation($name: String!) { createTag(input: { name: $name }) { id name slug postCount } }';
      expectError(await graphql(app, create, { name }), 'UNAUTHENTICATED', ['createTag']);
      expectError(await graphql(app, create, { name }, { token: app.tokens.alice }), 'FORBIDDEN', ['createTag']);
      expectError(await graphql(app, create, { name: '!!' }, { token: editor }), 'BAD_USER_INPUT', ['createTag']);
      const tag = expectData(await graphql(app, create, { name }, { token: editor })).createTag;
      expect(tag).toMatchObject({ name, postCount: 0 });
      expectError(await graphql(app, create, { name: name.toUpperCase() }, { token: editor }), 'CONFLICT', ['createTag']);
      const update = 'mutation($id: Int!, $name: String!) { updateTag(id: $id, input: { name: $name }) { slug } }';
      expectError(await graphql(app, update, { id: tag.id, name: 'x' }, { token: moderator }), 'FORBIDDEN', ['updateTag']);
      expectError(await graphql(app, update, { id: 999999, name: 'x' }, { token: app.tokens.admin }), 'NOT_FOUND', ['updateTag']);
      const renamed = unique('Graph Renamed');
      expect(expectData(await graphql(app, update, { id: tag.id, name: renamed }, { token: app.tokens.admin })).updateTag.slug).toBe(renamed.toLowerCase().replace(/[^a-z0-9]+/g, '-'));

      const createPostQuery = 'mutation($tags: [String!]) { createPost(input: { title: "T", body: "B", tags: $tags }) { id tags { id slug } } }';
      const post = expectData(await graphql(app, createPostQuery, { tags: [renamed, 'Graph Fresh ' + kind] }, { token: app.tokens.alice })).createPost;
      expect(post.tags.map((t: { id: number }) => t.id)).toContain(tag.id);
      const eleven = Array.from({ length: 11 }, (_, index) => `g${index}`);
      const tooMany = expectError(await graphql(app, createPostQuery, { tags: eleven }, { token: app.tokens.alice }), 'BAD_USER_INPUT', ['createPost']);
      expect(JSON.stringify(tooMany)).toContain('tags');
      const updatePost = 'mutation($id: Int!, $tags: [String!]) { updatePost(id: $id, input: { tags: $tags }) { tags { slug } } }';
      expect(expectData(await graphql(app, updatePost, { id: post.id, tags: [] }, { token: app.tokens.alice })).updatePost.tags).toEqual([]);

      const del = 'mutation($id: Int!) { deleteTag(id: $id) }';
      expectError(await graphql(app, del, { id: tag.id }, { token: app.tokens.alice }), 'FORBIDDEN', ['deleteTag']);
      expect(expectData(await graphql(app, del, { id: tag.id }, { token: editor })).deleteTag).toBe(tag.id);
      expectError(await graphql(app, del, { id: tag.id }, { token: editor }), 'NOT_FOUND', ['deleteTag']);
    });
  });

  describe('events', () => {
    let ws: string | undefined;
    const wsUrl = async () => (ws ??= (await listen(app)).ws);
    /** The tag events of the feed about one tag (PostgreSQL shows an event once every older transaction has ended). */
    async function feedOf(tagId: number, count: number): Promise<Record<string, unknown>[]> {
      return until(`${count} events of tag ${tagId}`, async () => {
        const events: Record<string, unknown>[] = [];
        let url: string | null = '/events?limit=100&types=TAG_CREATED,TAG_UPDATED,TAG_DELETED';
        while (url) {
          const response: request.Response = await http().get(url).expect(200);
          events.push(...(response.body as Record<string, unknown>[]));
          url = nextLink(response);
        }
        const mine = events.filter((event) => event.tagId === tagId);
        return mine.length >= count && mine;
      });
    }

    it('a tag\'s writes publish TAG_CREATED, TAG_UPDATED and TAG_DELETED to everyone: the feed, the events subscription with Event.tag', async () => {
      const name = unique('Eventful');
      const tag = await createTag(name);
      const id = tag.id as number;
      const renamed = unique('Eventful Renamed');
      await http().patch(`/tags/${id}`).set(bearer(editor)).send({ name: renamed }).expect(200);
      await http().delete(`/tags/${id}`).set(bearer(editor)).expect(204);
      const events = await feedOf(id, 3);
      expect(events.map((event) => event.type)).toEqual(['TAG_CREATED', 'TAG_UPDATED', 'TAG_DELETED']);
      expect(events[0].resource).toMatchObject({ id, name, slug: tag.slug });
      expect(events[1].resource).toMatchObject({ id, name: renamed });
      expect(events[2].resource).toBeUndefined();

      const first = (await http().get('/events?limit=1').expect(200)).body[0].cursor as string;
      const socket = wsClient(await wsUrl());
      try {
        const subscription = new LiveSubscription(
          socket.client,
          'subscription($after: String, $tagId: Int) { events(after: $after, types: [TAG_CREATED, TAG_UPDATED, TAG_DELETED], tagId: $tagId) { type tagId tag { id name slug } } }',
          { after: first, tagId: id },
        );
        const received = await subscription.received(3);
        expect(received).toEqual([
          { type: 'TAG_CREATED', tagId: id, tag: { id, name, slug: tag.slug } },
          { type: 'TAG_UPDATED', tagId: id, tag: expect.objectContaining({ id, name: renamed }) },
          { type: 'TAG_DELETED', tagId: id, tag: null },
        ]);
        subscription.dispose();
      } finally {
        await socket.dispose();
      }
    });

    it('a tag event has no author: REST items leave authorId out, GraphQL\'s Event.authorId (a nullable Int) is null', async () => {
      const earlier = await createTag(unique('Before Authorless'));
      const tag = await createTag(unique('Authorless'));
      const [created] = await feedOf(tag.id as number, 1);
      expect(created).not.toHaveProperty('authorId');
      expect(Object.keys(created).sort()).toEqual(['cursor', 'occurredAt', 'resource', 'tagId', 'type']);
      const xml = await http().get(`/events/${created.cursor as string}`).set('Accept', 'application/xml').expect(200);
      expect(parseXml(xml.text).children.map((child) => child.name)).not.toContain('authorId');
      const type = expectData(await graphql(app, '{ __type(name: "Event") { fields { name type { kind name } } } }')).__type as { fields: { name: string; type: { kind: string; name: string | null } }[] };
      expect(type.fields.find((field) => field.name === 'authorId')?.type).toEqual({ kind: 'SCALAR', name: 'Int' });
      // Replayed from the event before it.
      const before = (await feedOf(earlier.id as number, 1))[0].cursor as string;
      const socket = wsClient(await wsUrl());
      try {
        const subscription = new LiveSubscription(socket.client, 'subscription($after: String, $tagId: Int) { events(after: $after, types: [TAG_CREATED], tagId: $tagId) { type tagId authorId } }', { after: before, tagId: tag.id });
        expect(await subscription.received(1)).toEqual([{ type: 'TAG_CREATED', tagId: tag.id, authorId: null }]);
        subscription.dispose();
      } finally {
        await socket.dispose();
      }
    });

    it('a tag made by naming it on a post has its TAG_CREATED too', async () => {
      const name = unique('Made By Post');
      const post = await createPost(app, app.tokens.alice, { tags: [name] });
      const [tag] = (await http().get(`/tags?slug=${post.tags[0]}`).expect(200)).body;
      const [created] = await feedOf(tag.id as number, 1);
      expect(created).toMatchObject({ type: 'TAG_CREATED', tagId: tag.id, resource: { id: tag.id, name, slug: post.tags[0] } });
    });

    it('the tagCreated, tagUpdated and tagDeleted subscriptions', async () => {
      const socket = wsClient(await wsUrl());
      try {
        const created = new LiveSubscription(socket.client, 'subscription { tagCreated { id name postCount } }');
        const deleted = new LiveSubscription(socket.client, 'subscription { tagDeleted }');
        await until('both subscribed', async () => {
          // A tag made until the subscription hears one: it may not be listening yet when the first is made.
          if (created.results.length > 0) return true;
          await createTag(unique('Heard'));
          return false;
        });
        const [tag] = await created.received(1);
        expect(tag.postCount).toBe(0);
        await http().delete(`/tags/${tag.id as number}`).set(bearer(editor)).expect(204);
        expect(await deleted.received(1)).toContain(tag.id);
        created.dispose();
        deleted.dispose();
      } finally {
        await socket.dispose();
      }
    });
  });
});
