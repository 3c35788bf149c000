import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { errorFields, expectProblem } from './support/problems.js';
import { type CommentBody, createComment, createPost, expectComment } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

describeEachDatabase('comments', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);

  describe('GET /posts/{id}/comments', () => {
    it("200: the demo post 1's two comments, oldest first, with exactly the comment fields", async () => {
      const response = await http().get('/posts/1/comments').expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toHaveLength(2);
      const [first, second] = response.body as CommentBody[];
      expectComment(first as never, { id: 1, postId: 1, authorId: 2, body: 'Great to be here!' });
      expectComment(second as never, { id: 2, postId: 1, authorId: 3, body: 'Looking forward to more posts.' });
      expect(first._links).toEqual({
        self: { href: '/comments/1' },
        post: { href: '/posts/1' },
        author: { href: '/users/2' },
        replies: { href: '/posts/1/comments?parentId=1' },
      });
      expect(Date.parse(first.createdAt)).toBeLessThan(Date.parse(second.createdAt));
    });

    it('lists new comments after the old ones, and only the comments of that post', async () => {
      const post = await createPost(app, app.tokens.alice);
      const created = [
        await createComment(app, app.tokens.bob, post.id, 'first'),
        await createComment(app, app.tokens.alice, post.id, 'second'),
        await createComment(app, app.tokens.admin, post.id, 'third'),
      ];
      await createComment(app, app.tokens.bob, 2, 'elsewhere');
      const response = await http().get(`/posts/${post.id}/comments`).expect(200);
      expect(response.body).toEqual(created);
      expect(response.body.map((comment: CommentBody) => comment.body)).toEqual(['first', 'second', 'third']);
    });

    it('200 with an empty array for a post without comments', async () => {
      const post = await createPost(app, app.tokens.bob);
      expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toEqual([]);
    });

    it('404 for the comments of a missing post, 400 for a bad post id', async () => {
      const problem = expectProblem(await http().get('/posts/999999/comments'), 404, 'NOT_FOUND');
      expect(problem.instance).toBe('/posts/999999/comments');
      for (const id of ['abc', '0', '-1', '1.0']) {
        expectProblem(await http().get(`/posts/${id}/comments`), 400, 'BAD_USER_INPUT');
      }
    });
  });

  describe('POST /posts/{id}/comments', () => {
    it('201 with Location and the comment, written by the signed-in user', async () => {
      const response = await http().post('/posts/1/comments').set(bearer(app.tokens.bob)).send({ body: 'Me too' }).expect(201);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const comment = expectComment(response.body, { postId: 1, authorId: 3, body: 'Me too' });
      expect(comment.id).toBeGreaterThan(8);
      expect(response.headers.location).toBe(`/comments/${comment.id}`);
      expect(comment.createdAt).toBe(comment.updatedAt);
      const fetched = await http().get(response.headers.location).expect(200);
      expect(fetched.body).toEqual(response.body);
      const list = await http().get('/posts/1/comments?limit=100').expect(200);
      expect(list.body[list.body.length - 1]).toEqual(response.body);
    });

    it('accepts bodies of 1 and 10000 characters, kept exactly (not trimmed)', async () => {
      const long = await createComment(app, app.tokens.alice, 2, 'c'.repeat(10_000));
      expect(long.body).toHaveLength(10_000);
      const short = await createComment(app, app.tokens.alice, 2, 'x');
      expect(short.body).toBe('x');
      const spaced = await createComment(app, app.tokens.alice, 2, '  spaced\n');
      expect(spaced.body).toBe('  spaced\n');
    });

    it('400 for bad input, naming the field, and nothing is created', async () => {
      const post = await createPost(app, app.tokens.alice);
      const cases: [string, Record<string, unknown>][] = [
        ['body', {}],
        ['body', { body: '' }],
        ['body', { body: 'c'.repeat(10_001) }],
        ['body', { body: 42 }],
        ['body', { body: null }],
        ['body', { body: ['a'] }],
        ['body', { body: 'nul\u0000byte' }],
        ['postId', { body: 'b', postId: 2 }],
        ['authorId', { body: 'b', authorId: 1 }],
        ['id', { body: 'b', id: 1 }],
        ['createdAt', { body: 'b', createdAt: '2020-01-01T00:00:00.000Z' }],
        ['foo', { body: 'b', foo: true }],
      ];
      for (const [field, body] of cases) {
        const response = await http().post(`/posts/${post.id}/comments`).set(bearer(app.tokens.bob)).send(body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toContain(field);
      }
      for (const raw of ['[]', '"text"', '{"body": ']) {
        const response = await http().post(`/posts/${post.id}/comments`).set(bearer(app.tokens.bob)).set('content-type', 'application/json').send(raw);
        expectProblem(response, 400, 'BAD_USER_INPUT');
      }
      expectProblem(await http().post('/posts/abc/comments').set(bearer(app.tokens.bob)).send({ body: 'b' }), 400, 'BAD_USER_INPUT');
      expect((await http().get(`/posts/${post.id}/comments`).expect(200)).body).toEqual([]);
    });

    it('401 without a token (with WWW-Authenticate: Bearer), 404 for a missing post', async () => {
      const anonymous = await http().post('/posts/1/comments').send({ body: 'anonymous' });
      expectProblem(anonymous, 401, 'UNAUTHENTICATED');
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
      expectProblem(await http().post('/posts/1/comments').set(bearer('a.b.c')).send({ body: 'x' }), 401, 'UNAUTHENTICATED');
      expectProblem(await http().post('/posts/999999/comments').set(bearer(app.tokens.bob)).send({ body: 'x' }), 404, 'NOT_FOUND');
    });

    it('413 for a body over 1 MiB, 415 for a body that is not JSON', async () => {
      const huge = JSON.stringify({ body: 'c'.repeat(1_100_000) });
      expectProblem(
        await http().post('/posts/1/comments').set(bearer(app.tokens.bob)).set('content-type', 'application/json').send(huge),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expectProblem(
        await http().post('/posts/1/comments').set(bearer(app.tokens.bob)).set('content-type', 'text/plain').send('body=x'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectProblem(await http().post('/posts/1/comments').set(bearer(app.tokens.bob)).type('form').send({ body: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('GET /comments/{id}', () => {
    it('200: the demo comment 2', async () => {
      const response = await http().get('/comments/2').expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expectComment(response.body, { id: 2, postId: 1, authorId: 3, body: 'Looking forward to more posts.' });
      expect(response.body._links).toEqual({
        self: { href: '/comments/2' },
        post: { href: '/posts/1' },
        author: { href: '/users/3' },
        replies: { href: '/posts/1/comments?parentId=2' },
      });
    });

    it('404 for a missing comment, 400 for a bad id', async () => {
      expectProblem(await http().get('/comments/999999'), 404, 'NOT_FOUND');
      for (const id of ['abc', '0', '-2', '2.5', '0x10']) expectProblem(await http().get(`/comments/${id}`), 400, 'BAD_USER_INPUT');
    });
  });

  describe('PATCH /comments/{id}', () => {
    it('200: the author changes the body; postId, authorId and createdAt stay', async () => {
      const comment = await createComment(app, app.tokens.bob, 1, 'original');
      const response = await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).send({ body: 'edited' }).expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expectComment(response.body, { id: comment.id, postId: 1, authorId: 3, body: 'edited', createdAt: comment.createdAt });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(comment.updatedAt));
      expect((await http().get(`/comments/${comment.id}`).expect(200)).body).toEqual(response.body);
    });

    it("403 for another user, even the post's author; an admin may change it", async () => {
      const post = await createPost(app, app.tokens.alice);
      const comment = await createComment(app, app.tokens.bob, post.id, "Bob's words");
      expectProblem(await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.alice)).send({ body: 'Alice edits' }), 403, 'FORBIDDEN');
      expect((await http().get(`/comments/${comment.id}`).expect(200)).body.body).toBe("Bob's words");
      const byAdmin = await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.admin)).send({ body: 'moderated' }).expect(200);
      expectComment(byAdmin.body, { body: 'moderated', authorId: 3 });
    });

    it('400 for bad fields (nothing changes), 401 without a token, 404 for a missing comment', async () => {
      const comment = await createComment(app, app.tokens.bob, 1, 'unchanged');
      const cases: [string, Record<string, unknown>][] = [
        ['body', {}],
        ['body', { body: '' }],
        ['body', { body: null }],
        ['body', { body: 'c'.repeat(10_001) }],
        ['body', { body: 7 }],
        ['body', { body: 'nul\u0000' }],
        ['postId', { body: 'x', postId: 2 }],
        ['authorId', { body: 'x', authorId: 2 }],
        ['id', { body: 'x', id: 3 }],
      ];
      for (const [field, body] of cases) {
        const response = await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).send(body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toContain(field);
      }
      expectProblem(await http().patch(`/comments/${comment.id}`).send({ body: 'x' }), 401, 'UNAUTHENTICATED');
      expectProblem(await http().patch('/comments/999999').set(bearer(app.tokens.bob)).send({ body: 'x' }), 404, 'NOT_FOUND');
      expectProblem(await http().patch('/comments/x1').set(bearer(app.tokens.bob)).send({ body: 'x' }), 400, 'BAD_USER_INPUT');
      expectProblem(
        await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).set('content-type', 'text/plain').send('x'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expect((await http().get(`/comments/${comment.id}`).expect(200)).body).toEqual(comment);
    });
  });

  describe('DELETE /comments/{id}', () => {
    it('204 with no body for the author; the comment is gone from the post', async () => {
      const comment = await createComment(app, app.tokens.bob, 2);
      const response = await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).expect(204);
      expect(response.text).toBe('');
      expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
      const list = await http().get('/posts/2/comments?limit=100').expect(200);
      expect(list.body.map((c: CommentBody) => c.id)).not.toContain(comment.id);
      await http().get('/posts/2').expect(200);
      expectProblem(await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
    });

    it("403 for another user, even the post's author (the comment stays); an admin may delete it", async () => {
      const post = await createPost(app, app.tokens.alice);
      const comment = await createComment(app, app.tokens.bob, post.id);
      expectProblem(await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.alice)), 403, 'FORBIDDEN');
      await http().get(`/comments/${comment.id}`).expect(200);
      await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.admin)).expect(204);
      expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
    });

    it('401 without a token, 404 for a missing comment, 400 for a bad id', async () => {
      expectProblem(await http().delete('/comments/1'), 401, 'UNAUTHENTICATED');
      await http().get('/comments/1').expect(200);
      expectProblem(await http().delete('/comments/999999').set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().delete('/comments/one').set(bearer(app.tokens.admin)), 400, 'BAD_USER_INPUT');
    });
  });
});
