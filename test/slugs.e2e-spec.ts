import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { slugify } from '../src/posts/post-slugs.service.js';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createPost, type PostBody } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Slugs (CONTRACT §13): made from the title or given, unique in one namespace with the former
 * slugs (under concurrent writes too), 409 when taken, 400 when malformed, and found again by
 * `GET /posts?slug=` and GraphQL `post(slug:)` under the read policy.
 */

const SLUG_QUERY = 'query($slug: String) { post(slug: $slug) { id slug title status } }';

describe('slugify', () => {
  it.each([
    ['Hello, World!', 'hello-world'],
    ['Crème brûlée à la Øresund — Łódź', 'creme-brulee-a-la-oresund-lodz'],
    ['Straße & Maß', 'strasse-mass'],
    ['  --Leading and trailing--  ', 'leading-and-trailing'],
    ['ÆSIR Œuvre Þing đak', 'aesir-oeuvre-thing-dak'],
    ['日本語だけ', ''],
    ['!!!', ''],
    ['A'.repeat(130), 'a'.repeat(120)],
  ])('%j → %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('cuts a long title at a word, within 120 characters', () => {
    const slug = slugify(`${'word '.repeat(40)}end`);
    expect(slug.length).toBeLessThanOrEqual(120);
    expect(slug).toMatch(/^word(-word)*$/);
  });
});

describeEachDatabase('slugs', (kind) => {
  const app = useApp(kind, { signIn: ['admin', 'alice', 'bob', 'editor'] });
  const http = () => app.http();
  const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const bySlug = async (slug: string, token?: string) => {
    const call = http().get(`/posts?slug=${encodeURIComponent(slug)}`);
    if (token) call.set(bearer(token));
    const response = await call.expect(200);
    return response.body as PostBody[];
  };

  describe('made from the title', () => {
    it('folds diacritics and punctuation, and numbers the same title -2, -3', async () => {
      const title = `Crème Brûlée ${unique()} à la Straße!`;
      const first = await createPost(app, app.tokens.alice, { title });
      const second = await createPost(app, app.tokens.bob, { title });
      const third = await createPost(app, app.tokens.alice, { title, status: 'draft' });
      expect(first.slug).toBe(slugify(title));
      expect(first.slug).toMatch(/^creme-brulee-[a-z0-9]+-a-la-strasse$/);
      expect(second.slug).toBe(`${first.slug}-2`);
      expect(third.slug).toBe(`${first.slug}-3`);
    });

    it('a title with nothing a slug can keep gives post-{id}', async () => {
      const post = await createPost(app, app.tokens.alice, { title: '日本語 !!!' });
      expect(post.slug).toBe(`post-${post.id}`);
      expect((await http().get(`/posts/${post.id}`).expect(200)).body.slug).toBe(`post-${post.id}`);
      expect((await bySlug(`post-${post.id}`)).map((found) => found.id)).toEqual([post.id]);
    });

    it('a long title keeps its numbered slugs within 120 characters', async () => {
      const title = `${unique()} ${'longword '.repeat(20)}`.slice(0, 200);
      const slugs = [];
      for (let n = 0; n < 3; n += 1) slugs.push((await createPost(app, app.tokens.alice, { title })).slug);
      for (const slug of slugs) expect(slug.length).toBeLessThanOrEqual(120);
      expect(new Set(slugs).size).toBe(3);
      expect(slugs[1]).toMatch(/-2$/);
      expect(slugs[2]).toMatch(/-3$/);
    });

    it('stays unique under 20 concurrent creates of the same title (REST and GraphQL)', async () => {
      const title = `Race ${unique()}`;
      const base = slugify(title);
      const creates = Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0
          ? http().post('/posts').set(bearer(app.tokens.alice)).send({ title, body: 'b' })
          : graphql(app, 'mutation($title: String!) { createPost(input: { title: $title, body: "b" }) { id slug } }', { title }, { token: app.tokens.bob }),
      );
      const results = await Promise.all(creates);
      const slugs = results.map((result) => {
        if ('body' in result && 'data' in (result.body as object)) return expectData(result as Awaited<ReturnType<typeof graphql>>).createPost.slug as string;
        expect((result as { status: number }).status, (result as { text: string }).text).toBe(201);
        return (result as { body: PostBody }).body.slug as string;
      });
      expect([...slugs].sort()).toEqual([base, ...Array.from({ length: 19 }, (_, index) => `${base}-${index + 2}`)].sort());
      // Each post is found by its own slug.
      const found = await Promise.all(slugs.map(async (slug) => (await bySlug(slug))[0]?.slug));
      expect(found).toEqual(slugs);
    });
  });

  describe('given', () => {
    it('is kept as given, and 409 CONFLICT naming slug when another post has it (POST and PATCH, REST and GraphQL)', async () => {
      const slug = `given-${unique()}`;
      const post = await createPost(app, app.tokens.alice, { slug, title: 'Anything' });
      expect(post.slug).toBe(slug);
      const conflict = expectProblem(await http().post('/posts').set(bearer(app.tokens.bob)).send({ title: 'Other', body: 'b', slug }), 409, 'CONFLICT');
      expect(conflict.errors?.map((error) => error.field)).toEqual(['slug']);
      const other = await createPost(app, app.tokens.bob);
      expectProblem(await http().patch(`/posts/${other.id}`).set(bearer(app.tokens.bob)).send({ slug }), 409, 'CONFLICT');
      expectError(await graphql(app, 'mutation($slug: String) { createPost(input: { title: "t", body: "b", slug: $slug }) { id } }', { slug }, { token: app.tokens.bob }), 'CONFLICT', ['createPost']);
      expectError(await graphql(app, `mutation($slug: String) { updatePost(id: ${other.id}, input: { slug: $slug }) { id } }`, { slug }, { token: app.tokens.bob }), 'CONFLICT', ['updatePost']);
      // Nothing was written by the refused writes.
      expect((await http().get(`/posts/${other.id}`).expect(200)).body.slug).toBe(other.slug);
      expect((await bySlug(slug)).map((found) => found.id)).toEqual([post.id]);
    });

    it('400 naming slug when malformed', async () => {
      const post = await createPost(app, app.tokens.alice);
      for (const slug of ['Hello', 'a--b', '-a', 'a-', 'a b', 'ü', '', 'a'.repeat(121), 42, 'a_b', 'a/b']) {
        const created = expectProblem(await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: 'b', slug }), 400, 'BAD_USER_INPUT');
        expect(created.errors?.map((error) => error.field), JSON.stringify(slug)).toContain('slug');
        const patched = expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ slug }), 400, 'BAD_USER_INPUT');
        expect(patched.errors?.map((error) => error.field)).toContain('slug');
      }
      expect((await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: 'b', slug: 'a'.repeat(120) })).status).toBe(201);
    });
  });

  describe('former slugs', () => {
    it('a changed slug leaves the old one finding the post, which carries the new one; a title change keeps the slug', async () => {
      const post = await createPost(app, app.tokens.alice, { title: `Old title ${unique()}` });
      const old = post.slug as string;
      const renamed = (await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'A new title' }).expect(200)).body as PostBody;
      expect(renamed.slug).toBe(old);
      const fresh = `fresh-${unique()}`;
      const changed = (await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ slug: fresh }).expect(200)).body as PostBody;
      expect(changed.slug).toBe(fresh);
      for (const slug of [old, fresh]) {
        const found = await bySlug(slug);
        expect(found.map((item) => [item.id, item.slug])).toEqual([[post.id, fresh]]);
        const data = expectData(await graphql(app, SLUG_QUERY, { slug }));
        expect(data.post).toMatchObject({ id: post.id, slug: fresh });
      }
      // The former slug is still its: another post cannot take it; the post itself can take it back.
      const other = await createPost(app, app.tokens.bob);
      expectProblem(await http().patch(`/posts/${other.id}`).set(bearer(app.tokens.bob)).send({ slug: old }), 409, 'CONFLICT');
      expectProblem(await http().post('/posts').set(bearer(app.tokens.bob)).send({ title: 't', body: 'b', slug: old }), 409, 'CONFLICT');
      const back = (await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ slug: old }).expect(200)).body as PostBody;
      expect(back.slug).toBe(old);
      expect((await bySlug(fresh)).map((item) => item.slug)).toEqual([old]);
      // A derived slug never takes a former one.
      const sameTitle = await createPost(app, app.tokens.bob, { title: fresh });
      expect(sameTitle.slug).toBe(`${fresh}-2`);
    });

    it('a slug change is a POST_UPDATED with the new slug', async () => {
      const post = await createPost(app, app.tokens.alice);
      const slug = `evented-${unique()}`;
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ slug }).expect(200);
      const events = (await http().get('/events?limit=100').set(bearer(app.tokens.admin)).expect(200)).body as { type: string; postId: number; resource?: { slug?: string } }[];
      const updated = events.filter((event) => event.type === 'POST_UPDATED' && event.postId === post.id);
      expect(updated.map((event) => event.resource?.slug)).toContain(slug);
    });
  });

  describe('lookups under the read policy', () => {
    it('GET /posts?slug= and post(slug:) show a draft to its author, editors and admins only', async () => {
      const draft = await createPost(app, app.tokens.alice, { status: 'draft', title: `Secret draft ${unique()}` });
      const slug = draft.slug as string;
      expect(await bySlug(slug)).toEqual([]);
      expect(await bySlug(slug, app.tokens.bob)).toEqual([]);
      for (const token of [app.tokens.alice, app.tokens.editor, app.tokens.admin]) expect((await bySlug(slug, token)).map((post) => post.id)).toEqual([draft.id]);
      expect(expectData(await graphql(app, SLUG_QUERY, { slug })).post).toBeNull();
      expect(expectData(await graphql(app, SLUG_QUERY, { slug }, { token: app.tokens.bob })).post).toBeNull();
      expect(expectData(await graphql(app, SLUG_QUERY, { slug }, { token: app.tokens.alice })).post).toMatchObject({ id: draft.id, status: 'DRAFT' });
    });

    it('an unknown slug: an empty list and null', async () => {
      expect(await bySlug(`nobody-${unique()}`)).toEqual([]);
      expect(expectData(await graphql(app, SLUG_QUERY, { slug: `nobody-${unique()}` })).post).toBeNull();
    });

    it('the answer comes in every format', async () => {
      const post = await createPost(app, app.tokens.alice);
      const slug = post.slug as string;
      const hal = await http().get(`/posts?slug=${slug}`).set('accept', 'application/hal+json').expect(200);
      expect(hal.body._embedded.posts.map((item: PostBody) => item.id)).toEqual([post.id]);
      const xml = await http().get(`/posts?slug=${slug}`).set('accept', 'application/xml').expect(200);
      expect(xml.text).toContain(`<slug>${slug}</slug>`);
      const html = await http().get(`/posts?slug=${slug}`).set('accept', 'text/html').expect(200);
      expect(html.text).toContain(`/posts/${post.id}`);
    });

    it('400: a malformed slug, slug with another filter; GraphQL: not exactly one of id and slug', async () => {
      for (const query of ['slug=Not%20A%20Slug', `slug=${'a'.repeat(121)}`, 'slug=a&slug=b', 'slug=a&tag=x', 'slug=a&status=draft', 'slug=a&q=word', 'slug=a&authorId=1']) {
        const problem = expectProblem(await http().get(`/posts?${query}`).set(bearer(app.tokens.alice)), 400, 'BAD_USER_INPUT');
        expect(problem.errors?.map((error) => error.field), query).toContain('slug');
      }
      expect((await http().get('/posts?slug=a&limit=5')).status).toBe(200);
      expectError(await graphql(app, '{ post { id } }'), 'BAD_USER_INPUT', ['post']);
      expectError(await graphql(app, '{ post(id: 1, slug: "a") { id } }'), 'BAD_USER_INPUT', ['post']);
      expectError(await graphql(app, '{ post(slug: "Not A Slug") { id } }'), 'BAD_USER_INPUT', ['post']);
      expect(expectData(await graphql(app, 'query($id: Int!) { post(id: $id) { id } }', { id: 1 })).post).toMatchObject({ id: 1 });
    });

    it('an anonymous lookup that found nothing is not kept once a post takes the slug', async () => {
      const slug = `later-${unique()}`;
      expect(await bySlug(slug)).toEqual([]);
      expect(await bySlug(slug)).toEqual([]);
      const post = await createPost(app, app.tokens.alice, { slug });
      expect((await bySlug(slug)).map((found) => found.id)).toEqual([post.id]);
    });
  });

  it('slugs are indexed: the post_slugs primary key, and posts.slug', async () => {
    const db = app.app.get(DataSource);
    if (kind === 'postgres') {
      const indexes = await db.query<{ indexdef: string }[]>("SELECT indexdef FROM pg_indexes WHERE tablename IN ('posts', 'post_slugs')");
      const defs = indexes.map((row) => row.indexdef);
      expect(defs.some((def) => /UNIQUE INDEX .* ON public\.post_slugs USING btree \(slug\)/.test(def)), defs.join('\n')).toBe(true);
      expect(defs.some((def) => /ON public\.posts USING btree \(slug\)/.test(def)), defs.join('\n')).toBe(true);
    } else {
      const plan = await db.query<{ detail: string }[]>("EXPLAIN QUERY PLAN SELECT post_id FROM post_slugs WHERE slug = 'x'");
      expect(plan.map((row) => row.detail).join(' ')).toMatch(/USING (PRIMARY KEY|INDEX sqlite_autoindex_post_slugs_1|COVERING INDEX)/);
      const indexes = await db.query<{ name: string }[]>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts'");
      expect(indexes.map((row) => row.name)).toContain('idx_posts_slug');
    }
  });
});
