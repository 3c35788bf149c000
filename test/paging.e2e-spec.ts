import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, nextLink, parseXml, xmlFields } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const LISTS = ['/posts', '/posts/1/comments', '/users', '/users/2/posts'];
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describeEachDatabase('paging', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);

  /** Every id of a list, following Link rel="next" from `first`. */
  async function walk(first: string, accept = 'application/json'): Promise<{ ids: number[]; pages: number }> {
    const ids: number[] = [];
    let next: string | null = first;
    let pages = 0;
    while (next !== null) {
      const response = await http().get(next).set('Accept', accept).expect(200);
      pages += 1;
      if (accept === 'application/xml') {
        ids.push(...parseXml(response.text).children.map((child) => Number(xmlFields(child).fields.id)));
      } else if (accept === 'application/hal+json') {
        // A HAL collection: the items under `_embedded`, and `next` agreeing with the Link header.
        const hal = JSON.parse(response.text) as { _links: { next?: { href: string } }; _embedded: Record<string, { id: number }[]> };
        ids.push(...Object.values(hal._embedded)[0].map((item) => item.id));
        expect(hal._links.next?.href ?? null).toBe(nextLink(response));
      } else {
        ids.push(...(response.body as { id: number }[]).map((item) => item.id));
      }
      next = nextLink(response);
      expect(pages).toBeLessThan(200);
    }
    return { ids, pages };
  }

  describe('limit and cursor', () => {
    it('400 for a limit outside 1-100 or not an integer, on every list', async () => {
      for (const path of LISTS) {
        for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '1e1', '20abc', '99999999999']) {
          const response = await http().get(`${path}?limit=${limit}`);
          expect(response.status, `${path}?limit=${limit}`).toBe(400);
          const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(problem.errors?.map((error) => error.field)).toEqual(['limit']);
        }
        expectProblem(await http().get(`${path}?limit=1&limit=2`), 400, 'BAD_USER_INPUT');
      }
    });

    it('accepts limit 1 and 100', async () => {
      const one = await http().get('/posts?limit=1').expect(200);
      expect(one.body).toHaveLength(1);
      const hundred = await http().get('/posts?limit=100').expect(200);
      expect(hundred.body.length).toBeGreaterThanOrEqual(5);
      expect(nextLink(hundred)).toBeNull();
    });

    it('400 for a cursor this service did not issue', async () => {
      const bad = [
        'garbage',
        'v1:3',
        cursorOf('v1:0'),
        cursorOf('v1:-3'),
        cursorOf('v2:3'),
        cursorOf('v1:abc'),
        cursorOf('v1:99999999999'),
        `${cursorOf('v1:3')}=`,
        'a'.repeat(65),
        '',
      ];
      for (const path of LISTS) {
        for (const cursor of bad) {
          const response = await http().get(`${path}?cursor=${encodeURIComponent(cursor)}`);
          expect(response.status, `${path} cursor ${cursor}`).toBe(400);
          expectProblem(response, 400, 'BAD_USER_INPUT');
        }
        expectProblem(await http().get(`${path}?cursor=a&cursor=b`), 400, 'BAD_USER_INPUT');
      }
    });

    it('400 for unknown query parameters and a bad authorId', async () => {
      expectProblem(await http().get('/posts?orderBy=title'), 400, 'BAD_USER_INPUT');
      for (const authorId of ['abc', '0', '-2', '1.5']) {
        const response = await http().get(`/posts?authorId=${authorId}`);
        expect(response.status, authorId).toBe(400);
        expect(expectProblem(response, 400, 'BAD_USER_INPUT').errors?.map((error) => error.field)).toEqual(['authorId']);
      }
      expect((await http().get('/posts?authorId=999999').expect(200)).body).toEqual([]);
    });
  });

  describe('Link rel="next"', () => {
    it('is present exactly when more items exist', async () => {
      const all = (await http().get('/posts?limit=100').expect(200)).body as { id: number }[];
      const total = all.length;
      const exact = await http().get(`/posts?limit=${total}`).expect(200);
      expect(exact.body).toHaveLength(total);
      expect(exact.headers.link).toBeUndefined();

      const short = await http().get(`/posts?limit=${total - 1}`).expect(200);
      expect(short.body.map((post: { id: number }) => post.id)).toEqual(all.slice(0, total - 1).map((post) => post.id));
      const next = nextLink(short);
      expect(next).toMatch(new RegExp(`^/posts\\?limit=${total - 1}&cursor=[A-Za-z0-9_-]+$`));
      expect(short.headers.link).toBe(`<${next}>; rel="next"`);

      const last = await http().get(next!).expect(200);
      expect(last.body.map((post: { id: number }) => post.id)).toEqual([all[total - 1].id]);
      expect(last.headers.link).toBeUndefined();
    });

    it('uses the default limit of 20 and says so in the next link', async () => {
      const existing = ((await http().get('/posts?limit=100').expect(200)).body as unknown[]).length;
      for (let i = existing; i < 23; i += 1) await createPost(app, app.tokens.bob);
      const first = await http().get('/posts').expect(200);
      expect(first.body).toHaveLength(20);
      expect(nextLink(first)).toMatch(/^\/posts\?limit=20&cursor=/);
      const { ids } = await walk('/posts');
      expect(ids.length).toBeGreaterThanOrEqual(23);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('following it with the same Accept works, in every format', async () => {
      const { ids: jsonIds } = await walk('/posts?limit=4');
      const { ids: xmlIds } = await walk('/posts?limit=4', 'application/xml');
      const { ids: halIds } = await walk('/posts?limit=4', 'application/hal+json');
      expect(xmlIds).toEqual(jsonIds);
      expect(halIds).toEqual(jsonIds);

      const html = await http().get('/posts?limit=4').set('Accept', 'text/html').expect(200);
      const next = nextLink(html);
      expect(next).not.toBeNull();
      const second = await http().get(next!).set('Accept', 'text/html').expect(200);
      expect(second.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(second.text).toContain(`href="/posts/${jsonIds[4]}"`);
    });

    it('posts come newest first, comments oldest first, users oldest first', async () => {
      const { ids: posts } = await walk('/posts?limit=3');
      expect(posts).toEqual([...posts].sort((a, b) => b - a));
      expect(posts.slice(-5)).toEqual([5, 4, 3, 2, 1]);

      const post = await createPost(app, app.tokens.alice);
      const created: number[] = [];
      for (let i = 0; i < 5; i += 1) created.push((await createComment(app, i % 2 ? app.tokens.alice : app.tokens.bob, post.id)).id);
      const first = await http().get(`/posts/${post.id}/comments?limit=2`).expect(200);
      expect(first.body.map((comment: { id: number }) => comment.id)).toEqual(created.slice(0, 2));
      expect(nextLink(first)).toMatch(new RegExp(`^/posts/${post.id}/comments\\?limit=2&cursor=`));
      const { ids: comments, pages } = await walk(`/posts/${post.id}/comments?limit=2`);
      expect(comments).toEqual(created);
      expect(pages).toBe(3);

      const { ids: demo } = await walk('/posts/1/comments?limit=1');
      expect(demo.slice(0, 2)).toEqual([1, 2]);

      const { ids: users } = await walk('/users?limit=2');
      expect(users.slice(0, 3)).toEqual([1, 2, 3]);
      expect(users).toEqual([...users].sort((a, b) => a - b));
    });

    it('keeps the authorId filter in the next link of /posts, and /users/{id}/posts pages too', async () => {
      for (let i = 0; i < 3; i += 1) await createPost(app, app.tokens.admin, { authorId: 2 });
      const first = await http().get('/posts?authorId=2&limit=2').expect(200);
      const next = nextLink(first);
      expect(next).not.toBeNull();
      const query = new URLSearchParams(next!.split('?')[1]);
      expect(query.get('authorId')).toBe('2');
      expect(query.get('limit')).toBe('2');

      const { ids } = await walk('/posts?authorId=2&limit=2');
      const all = ((await http().get('/posts?limit=100').expect(200)).body as { id: number; authorId: number }[])
        .filter((post) => post.authorId === 2)
        .map((post) => post.id);
      expect(ids).toEqual(all);
      expect(ids.slice(-2)).toEqual([2, 1]);

      const { ids: byUser } = await walk('/users/2/posts?limit=2');
      expect(byUser).toEqual(all);
      const userFirst = await http().get('/users/2/posts?limit=2').expect(200);
      expect(nextLink(userFirst)).toMatch(/^\/users\/2\/posts\?limit=2&cursor=/);
    });

    it("a cursor from one list used on another stays within that list's filter", async () => {
      const bobs = await http().get('/posts?authorId=3&limit=1').expect(200);
      const cursor = new URLSearchParams(nextLink(bobs)!.split('?')[1]).get('cursor')!;
      const alice = await http().get(`/posts?authorId=2&limit=100&cursor=${cursor}`).expect(200);
      for (const post of alice.body as { authorId: number }[]) expect(post.authorId).toBe(2);
    });
  });

  describe('keyset stability', () => {
    it('walking /posts 3 at a time while posts are created and deleted: no repeats, no gaps', async () => {
      for (let i = 0; i < 12; i += 1) await createPost(app, i % 2 ? app.tokens.alice : app.tokens.bob);
      const before = ((await http().get('/posts?limit=100').expect(200)).body as { id: number }[]).map((post) => post.id);
      expect(before.length).toBeGreaterThan(12);

      const seen: number[] = [];
      const deleted = new Set<number>();
      let next: string | null = '/posts?limit=3';
      let page = 0;
      while (next !== null) {
        const response = await http().get(next).expect(200);
        const ids = (response.body as { id: number }[]).map((post) => post.id);
        expect(ids.length).toBeGreaterThan(0);
        expect(ids.length).toBeLessThanOrEqual(3);
        seen.push(...ids);
        next = nextLink(response);
        page += 1;
        // Between pages: a new post (it sorts before everything seen), a deleted post not yet
        // reached, and a deleted post already seen.
        await createPost(app, app.tokens.alice, { title: `Inserted during page ${page}` });
        const ahead = before.find((id) => !seen.includes(id) && !deleted.has(id) && id > 5);
        if (ahead !== undefined && page % 2 === 0) {
          await http().delete(`/posts/${ahead}`).set(bearer(app.tokens.admin)).expect(204);
          deleted.add(ahead);
        }
        if (page === 3) {
          await http().delete(`/posts/${seen[0]}`).set(bearer(app.tokens.admin)).expect(204);
          deleted.add(seen[0]);
        }
      }

      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort((a, b) => b - a));
      const throughout = before.filter((id) => !deleted.has(id));
      for (const id of throughout) expect(seen, `post ${id}`).toContain(id);
      for (const id of seen) expect(before, `post ${id} was not there when the walk started`).toContain(id);
      expect(deleted.size).toBeGreaterThanOrEqual(2);
    });
  });
});
