import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createComment, createPost, createUser, expectPost, type PostBody } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const BAD_IDS = ['abc', '0', '-1', '1.5', '01', '1e3', '99999999999', '%20'];

describeEachDatabase('posts', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);

  describe('GET /posts', () => {
    it('200: a JSON array of posts with exactly the post fields, newest first', async () => {
      const response = await http().get('/posts').expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Array.isArray(response.body)).toBe(true);
      const posts = response.body as PostBody[];
      expect(posts.length).toBeGreaterThanOrEqual(5);
      for (const post of posts) expectPost(post as never);
      const ids = posts.map((post) => post.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(ids.slice(-5)).toEqual([5, 4, 3, 2, 1]);
    });
  });

  describe('GET /posts/{id}', () => {
    it('200: the demo post 1, by Alice', async () => {
      const response = await http().get('/posts/1').expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expectPost(response.body, { id: 1, title: 'Welcome to the blog service', authorId: 2 });
      expect(response.body.body).toMatch(/^Posts, users and comments/);
      expect(response.body._links).toEqual({
        self: { href: '/posts/1' },
        author: { href: '/users/2' },
        comments: { href: '/posts/1/comments' },
        // The demo data tags post 1 "Announcements".
        tags: [{ href: '/tags/1', name: 'announcements' }],
      });
    });

    it('400 for an id that is not a positive integer', async () => {
      for (const id of BAD_IDS) {
        const problem = expectProblem(await http().get(`/posts/${id}`), 400, 'BAD_USER_INPUT');
        expect(problem.errors).toEqual([{ field: 'id', message: expect.any(String) }]);
      }
    });

    it('404 for a missing post', async () => {
      const problem = expectProblem(await http().get('/posts/999999'), 404, 'NOT_FOUND');
      expect(problem.instance).toBe('/posts/999999');
    });
  });

  describe('POST /posts', () => {
    it('201 with Location and the post, written by the signed-in user', async () => {
      const response = await http()
        .post('/posts')
        .set(bearer(app.tokens.alice))
        .send({ title: 'A new post', body: 'With a body' })
        .expect(201);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const post = expectPost(response.body, { title: 'A new post', body: 'With a body', authorId: 2 });
      expect(post.id).toBeGreaterThan(5);
      expect(response.headers.location).toBe(`/posts/${post.id}`);
      expect(post.createdAt).toBe(post.updatedAt);
      expect(Math.abs(Date.parse(post.createdAt) - Date.now())).toBeLessThan(60_000);
      const fetched = await http().get(response.headers.location).set(bearer(app.tokens.alice)).expect(200);
      expect(fetched.body).toEqual(response.body);
    });

    it('trims the title; accepts 1 and 200 characters after trimming and a 100000-character body', async () => {
      const trimmed = await createPost(app, app.tokens.bob, { title: '   Padded title \t\n' });
      expect(trimmed.title).toBe('Padded title');
      const long = await createPost(app, app.tokens.bob, { title: `  ${'t'.repeat(200)}  `, body: 'b'.repeat(100_000) });
      expect(long.title).toBe('t'.repeat(200));
      expect(long.body).toHaveLength(100_000);
      const fetched = await http().get(`/posts/${long.id}`).expect(200);
      expect(fetched.body.body).toHaveLength(100_000);
      const short = await createPost(app, app.tokens.bob, { title: ' x ', body: 'y' });
      expect(short).toMatchObject({ title: 'x', body: 'y' });
    });

    it('keeps Unicode text exactly', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Ünïcödé 😀 日本語', body: 'Line 1\nLine 2\t"quoted" \\ back' });
      const fetched = await http().get(`/posts/${post.id}`).expect(200);
      expect(fetched.body).toMatchObject({ title: 'Ünïcödé 😀 日本語', body: 'Line 1\nLine 2\t"quoted" \\ back' });
    });

    it('400 for bad input, naming the field, and nothing is created', async () => {
      const before = (await http().get('/posts?limit=100').expect(200)).body.length as number;
      const cases: [string, string, Record<string, unknown>][] = [
        ['missing title', 'title', { body: 'b' }],
        ['missing body', 'body', { title: 't' }],
        ['empty title', 'title', { title: '', body: 'b' }],
        ['blank title', 'title', { title: '   \t ', body: 'b' }],
        ['title of 201', 'title', { title: 't'.repeat(201), body: 'b' }],
        ['empty body', 'body', { title: 't', body: '' }],
        ['body of 100001', 'body', { title: 't', body: 'b'.repeat(100_001) }],
        ['numeric title', 'title', { title: 123, body: 'b' }],
        ['boolean body', 'body', { title: 't', body: true }],
        ['null title', 'title', { title: null, body: 'b' }],
        ['array body', 'body', { title: 't', body: ['b'] }],
        ['object title', 'title', { title: { text: 't' }, body: 'b' }],
        ['NUL in the title', 'title', { title: 'bad\u0000title', body: 'b' }],
        ['NUL in the body', 'body', { title: 't', body: 'bad\u0000body' }],
        ['unknown field', 'foo', { title: 't', body: 'b', foo: 1 }],
        ['read-only id', 'id', { title: 't', body: 'b', id: 77 }],
        ['read-only createdAt', 'createdAt', { title: 't', body: 'b', createdAt: '2020-01-01T00:00:00.000Z' }],
        ['read-only updatedAt', 'updatedAt', { title: 't', body: 'b', updatedAt: '2020-01-01T00:00:00.000Z' }],
        ['links', '_links', { title: 't', body: 'b', _links: {} }],
      ];
      for (const [what, field, body] of cases) {
        const response = await http().post('/posts').set(bearer(app.tokens.alice)).send(body);
        expect(response.status, what).toBe(400);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response), what).toContain(field);
      }
      for (const raw of ['[]', '"text"', '42', 'null', '{"title": "t", "body": }']) {
        const response = await http().post('/posts').set(bearer(app.tokens.alice)).set('content-type', 'application/json').send(raw);
        expectProblem(response, 400, 'BAD_USER_INPUT');
      }
      const after = (await http().get('/posts?limit=100').expect(200)).body.length as number;
      expect(after).toBe(before);
    });

    it('authorId: 403 for a non-admin naming someone else; admins write on behalf of a user; unknown author 400', async () => {
      const forbidden = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: 'b', authorId: 3 });
      expectProblem(forbidden, 403, 'FORBIDDEN');

      const onBehalf = await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 'By proxy', body: 'b', authorId: 3 }).expect(201);
      expectPost(onBehalf.body, { authorId: 3, title: 'By proxy' });
      expect(onBehalf.headers.location).toBe(`/posts/${onBehalf.body.id}`);
      const bobs = await http().get('/users/3/posts?limit=100').expect(200);
      expect(bobs.body.map((post: PostBody) => post.id)).toContain(onBehalf.body.id);

      const own = await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 'Mine', body: 'b' }).expect(201);
      expect(own.body.authorId).toBe(1);

      const unknown = await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 't', body: 'b', authorId: 999_999 });
      expect(errorFields(unknown)).toEqual(['authorId']);
      expectProblem(unknown, 400, 'BAD_USER_INPUT');
      for (const authorId of ['3', 0, -1, 1.5, 'abc', true]) {
        const response = await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 't', body: 'b', authorId });
        expect(response.status, `authorId ${JSON.stringify(authorId)}`).toBe(400);
        expect(errorFields(response)).toContain('authorId');
      }
    });

    it('401 with WWW-Authenticate: Bearer without a valid token', async () => {
      for (const headers of [{}, { Authorization: 'Bearer not.a.token' }, { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }]) {
        const response = await http().post('/posts').set(headers).send({ title: 't', body: 'b' });
        expectProblem(response, 401, 'UNAUTHENTICATED');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it('413 for a body over 1 MiB, 415 for a body that is not JSON', async () => {
      const huge = JSON.stringify({ title: 't', body: 'b'.repeat(1_100_000) });
      const tooLarge = await http().post('/posts').set(bearer(app.tokens.alice)).set('content-type', 'application/json').send(huge);
      expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');

      const text = await http().post('/posts').set(bearer(app.tokens.alice)).set('content-type', 'text/plain').send('title=t&body=b');
      expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const form = await http().post('/posts').set(bearer(app.tokens.alice)).type('form').send({ title: 't', body: 'b' });
      expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const xml = await http().post('/posts').set(bearer(app.tokens.alice)).set('content-type', 'application/xml').send('<post/>');
      expectProblem(xml, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('PATCH /posts/{id}', () => {
    it('200: the author changes the title (trimmed) and/or body; the rest stays', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Before', body: 'Body before' });
      const response = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: '  After  ' }).expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expectPost(response.body, { id: post.id, title: 'After', body: 'Body before', authorId: 2, createdAt: post.createdAt });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(post.updatedAt));

      const both = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'T2', body: 'B2' }).expect(200);
      expectPost(both.body, { title: 'T2', body: 'B2' });
      const bodyOnly = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ body: 'B3' }).expect(200);
      expectPost(bodyOnly.body, { title: 'T2', body: 'B3' });
      const fetched = await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(fetched.body).toEqual(bodyOnly.body);
    });

    it('403 for another user (nothing changes); an admin may change anyone\'s post', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Alice wrote this' });
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.bob)).send({ title: 'Bob was here' }), 403, 'FORBIDDEN');
      expect((await http().get(`/posts/${post.id}`).expect(200)).body.title).toBe('Alice wrote this');

      const byAdmin = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.admin)).send({ title: 'Moderated' }).expect(200);
      expectPost(byAdmin.body, { title: 'Moderated', authorId: 2 });
    });

    it('401 without a token, 404 for a missing post, 400 for a bad id', async () => {
      expectProblem(await http().patch('/posts/1').send({ title: 'x' }), 401, 'UNAUTHENTICATED');
      expectProblem(await http().patch('/posts/999999').set(bearer(app.tokens.alice)).send({ title: 'x' }), 404, 'NOT_FOUND');
      for (const id of ['abc', '0', '1.5']) {
        expectProblem(await http().patch(`/posts/${id}`).set(bearer(app.tokens.alice)).send({ title: 'x' }), 400, 'BAD_USER_INPUT');
      }
    });

    it('400 for bad fields, and nothing changes', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Stable', body: 'Stable body' });
      const cases: [string, Record<string, unknown>][] = [
        ['title', { title: '' }],
        ['title', { title: '    ' }],
        ['title', { title: 'x'.repeat(201) }],
        ['title', { title: 5 }],
        ['title', { title: null }],
        ['body', { body: '' }],
        ['body', { body: 'b'.repeat(100_001) }],
        ['body', { body: false }],
        ['body', { body: 'nul\u0000' }],
        ['title', { title: 'nul\u0000' }],
        ['id', { id: 42 }],
        ['authorId', { authorId: 3 }],
        ['createdAt', { createdAt: '2020-01-01T00:00:00.000Z' }],
        ['foo', { foo: 'bar' }],
      ];
      for (const [field, body] of cases) {
        const response = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send(body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toContain(field);
      }
      // An admin may not move a post to another author by PATCH either: authorId is not a PATCH field.
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.admin)).send({ authorId: 3 }), 400, 'BAD_USER_INPUT');
      const fetched = await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(fetched.body).toEqual(post);
    });

    it('a null title or body is refused as null (not as missing), on POST and PATCH alike', async () => {
      const post = await createPost(app, app.tokens.alice);
      const created = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: null, body: 'b' });
      expectProblem(created, 400, 'BAD_USER_INPUT');
      expect(created.body.errors).toEqual([{ field: 'title', message: 'title must not be null' }]);
      const changed = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ body: null });
      expectProblem(changed, 400, 'BAD_USER_INPUT');
      expect(changed.body.errors).toEqual([{ field: 'body', message: 'body must not be null' }]);
      const missing = await http().post('/posts').set(bearer(app.tokens.alice)).send({ body: 'b' });
      expect(missing.body.errors).toEqual([{ field: 'title', message: 'title is required' }]);
    });

    it('415 for a body that is not JSON, 413 over the limit', async () => {
      const post = await createPost(app, app.tokens.alice);
      const text = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('content-type', 'text/plain').send('title=x');
      expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const huge = JSON.stringify({ body: 'b'.repeat(1_100_000) });
      const tooLarge = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('content-type', 'application/json').send(huge);
      expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('DELETE /posts/{id}', () => {
    it('204 with no body for the author; the post and its comments are gone', async () => {
      const post = await createPost(app, app.tokens.alice);
      const comments = [await createComment(app, app.tokens.bob, post.id), await createComment(app, app.tokens.alice, post.id)];
      const other = await createComment(app, app.tokens.bob, 1);

      // The first DELETE moves it to the trash (gone for the public, there for its author), the second deletes it for good.
      const response = await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
      expect(response.text).toBe('');
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
      expect((await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200)).body).toMatchObject({ status: 'trashed', trashedAt: expect.any(String) });
      expectProblem(await http().get(`/posts/${post.id}/comments`), 404, 'NOT_FOUND');
      for (const comment of comments) expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
      await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
      expectProblem(await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      for (const comment of comments) expectProblem(await http().get(`/comments/${comment.id}`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      await http().get(`/comments/${other.id}`).expect(200);
      expectProblem(await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      const list = await http().get('/posts?limit=100').expect(200);
      expect(list.body.map((p: PostBody) => p.id)).not.toContain(post.id);
    });

    it('403 for another user (the post stays); an admin may delete it', async () => {
      const post = await createPost(app, app.tokens.bob);
      expectProblem(await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)), 403, 'FORBIDDEN');
      await http().get(`/posts/${post.id}`).expect(200);
      await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.admin)).expect(204);
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
    });

    it('401 without a token, 404 for a missing post, 400 for a bad id', async () => {
      const response = await http().delete('/posts/1');
      expectProblem(response, 401, 'UNAUTHENTICATED');
      await http().get('/posts/1').expect(200);
      expectProblem(await http().delete('/posts/999999').set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().delete('/posts/abc').set(bearer(app.tokens.admin)), 400, 'BAD_USER_INPUT');
    });
  });

  describe('GET /users/{id}/posts', () => {
    it("200: the user's posts only, newest first", async () => {
      const extra = await createPost(app, app.tokens.alice, { title: 'Another by Alice' });
      const response = await http().get('/users/2/posts?limit=100').expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const posts = response.body as PostBody[];
      for (const post of posts) expectPost(post as never, { authorId: 2 });
      const ids = posts.map((post) => post.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(ids[0]).toBe(extra.id);
      expect(ids.slice(-2)).toEqual([2, 1]);
      expect(ids).not.toContain(3);
    });

    it('200 with an empty array for a user without posts', async () => {
      const user = await createUser(app);
      const response = await http().get(`/users/${user.id}/posts`).expect(200);
      expect(response.body).toEqual([]);
    });

    it('404 for a missing user, 400 for a bad id', async () => {
      expectProblem(await http().get('/users/999999/posts'), 404, 'NOT_FOUND');
      for (const id of ['abc', '0', '-3', '2.0']) expectProblem(await http().get(`/users/${id}/posts`), 400, 'BAD_USER_INPUT');
    });
  });

  describe('deleting a user', () => {
    it("deletes the user's posts and comments, including comments on others' posts and others' comments on theirs", async () => {
      const user = await createUser(app);
      const post = await createPost(app, user.token);
      const ownComment = await createComment(app, user.token, post.id);
      const onAlicesPost = await createComment(app, user.token, 1);
      const bobsComment = await createComment(app, app.tokens.bob, post.id);
      const unrelated = await createComment(app, app.tokens.bob, 1);

      await http().delete(`/users/${user.id}`).set(bearer(user.token)).expect(204);

      expectProblem(await http().get(`/users/${user.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/users/${user.id}/posts`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
      for (const comment of [ownComment, onAlicesPost, bobsComment]) {
        expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
      }
      await http().get(`/comments/${unrelated.id}`).expect(200);
      const onPostOne = await http().get('/posts/1/comments?limit=100').expect(200);
      const ids = onPostOne.body.map((comment: { id: number }) => comment.id);
      expect(ids).toContain(unrelated.id);
      expect(ids).not.toContain(onAlicesPost.id);
      expect((await http().get('/posts?limit=100').expect(200)).body.map((p: PostBody) => p.id)).not.toContain(post.id);
      // The deleted user's token no longer works.
      expectProblem(await http().post('/posts').set(bearer(user.token)).send({ title: 't', body: 'b' }), 401, 'UNAUTHENTICATED');
    });
  });
});
