import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, createUser } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const STRONG_ETAG = /^"[^"]+"$/;

describeEachDatabase('conditional requests', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);

  describe('ETag and If-None-Match', () => {
    it('GET /posts/{id}, /comments/{id}, /users/{id} carry an ETag; If-None-Match with it answers 304 with no body', async () => {
      for (const path of ['/posts/1', '/comments/1', '/users/2']) {
        const first = await http().get(path).expect(200);
        const etag = first.headers.etag as string;
        expect(etag, path).toMatch(STRONG_ETAG);
        const again = await http().get(path).expect(200);
        expect(again.headers.etag).toBe(etag);

        const notModified = await http().get(path).set('If-None-Match', etag).expect(304);
        expect(notModified.text ?? '', path).toBe('');
        // RFC 9110 §8.6: a 304 must not claim a Content-Length other than the 200's, so it sends none.
        expect(notModified.headers['content-length'], path).toBeUndefined();
        expect(notModified.headers.etag).toBe(etag);

        expect((await http().get(path).set('If-None-Match', '"nope"').expect(200)).body).toEqual(first.body);
        await http().get(path).set('If-None-Match', `"other", ${etag}`).expect(304);
        await http().get(path).set('If-None-Match', `W/${etag}`).expect(304);
        await http().get(path).set('If-None-Match', '*').expect(304);
      }
    });

    it('a 304 is the ETag and Vary alone: no body, no Content-Type, no Content-Length, in every format (RFC 9110 §15.4.5)', async () => {
      for (const path of ['/posts/1', '/comments/1', '/users/2']) {
        for (const accept of ['application/json', 'application/json; charset=utf-8', 'application/hal+json', 'application/xml', 'text/xml', 'text/html']) {
          const first = await http().get(path).set('Accept', accept).expect(200);
          expect(first.headers['content-type'], `${path} ${accept}`).toMatch(/; charset=utf-8$/);
          const notModified = await http().get(path).set('Accept', accept).set('If-None-Match', first.headers.etag as string).expect(304);
          expect(notModified.headers.etag, `${path} ${accept}`).toBe(first.headers.etag);
          expect(notModified.headers['content-type'], `${path} ${accept}`).toBeUndefined();
          expect(notModified.headers['content-length'], `${path} ${accept}`).toBeUndefined();
          expect(notModified.text ?? '', `${path} ${accept}`).toBe('');
          expect(String(notModified.headers.vary).toLowerCase()).toContain('accept');
          const head = await http().head(path).set('Accept', accept).set('If-None-Match', first.headers.etag as string).expect(304);
          expect(head.headers['content-type'], `HEAD ${path} ${accept}`).toBeUndefined();
        }
      }
    });

    it('each format has its own ETag, and a tag of one format does not match another', async () => {
      const tags = new Map<string, string>();
      for (const accept of ['application/json', 'application/hal+json', 'application/xml', 'text/html']) {
        const response = await http().get('/posts/1').set('Accept', accept).expect(200);
        expect(response.headers.etag, accept).toMatch(STRONG_ETAG);
        tags.set(accept, response.headers.etag as string);
        await http().get('/posts/1').set('Accept', accept).set('If-None-Match', response.headers.etag as string).expect(304);
      }
      expect(new Set(tags.values()).size).toBe(4);
      const jsonTag = tags.get('application/json')!;
      expect(tags.get('application/hal+json')).toBe(jsonTag.replace(/"$/, '-hal"'));
      expect(tags.get('application/xml')).toBe(jsonTag.replace(/"$/, '-xml"'));
      await http().get('/posts/1').set('Accept', 'application/xml').set('If-None-Match', jsonTag).expect(200);
    });

    it('after a change the old ETag no longer matches: 200 with the new representation and a new ETag', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Version one' });
      const comment = await createComment(app, app.tokens.bob, post.id, 'First words');
      const user = await createUser(app);
      const changes: [string, string, Record<string, unknown>][] = [
        [`/posts/${post.id}`, app.tokens.alice, { title: 'Version two' }],
        [`/comments/${comment.id}`, app.tokens.bob, { body: 'Second words' }],
        [`/users/${user.id}`, user.token, { name: 'Renamed' }],
      ];
      for (const [path, token, change] of changes) {
        const before = await http().get(path).expect(200);
        const oldTag = before.headers.etag as string;
        await http().get(path).set('If-None-Match', oldTag).expect(304);
        const patched = await http().patch(path).set(bearer(token)).send(change).expect(200);
        expect(patched.headers.etag, path).toMatch(STRONG_ETAG);
        expect(patched.headers.etag).not.toBe(oldTag);

        const after = await http().get(path).set('If-None-Match', oldTag).expect(200);
        expect(after.body).toMatchObject(change);
        expect(after.headers.etag).toBe(patched.headers.etag);
        await http().get(path).set('If-None-Match', after.headers.etag as string).expect(304);
      }
    });

    it("the HTML page's ETag changes when a new comment shows on it", async () => {
      const post = await createPost(app, app.tokens.alice);
      const page = await http().get(`/posts/${post.id}`).set('Accept', 'text/html').expect(200);
      const tag = page.headers.etag as string;
      await http().get(`/posts/${post.id}`).set('Accept', 'text/html').set('If-None-Match', tag).expect(304);
      await createComment(app, app.tokens.bob, post.id, 'Shows on the page');
      const changed = await http().get(`/posts/${post.id}`).set('Accept', 'text/html').set('If-None-Match', tag).expect(200);
      expect(changed.text).toContain('Shows on the page');
      expect(changed.headers.etag).not.toBe(tag);
    });
  });

  describe('If-Match', () => {
    it('PATCH /posts/{id} with a stale If-Match: 412 and nothing changes; with the current one: 200 and a new ETag', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Original', body: 'Original body' });
      const first = await http().get(`/posts/${post.id}`).expect(200);
      const v1 = first.headers.etag as string;
      const second = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', v1).send({ title: 'Second' }).expect(200);
      const v2 = second.headers.etag as string;
      expect(v2).not.toBe(v1);
      expect(second.body.title).toBe('Second');

      const stale = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', v1).send({ title: 'Lost update', body: 'x' });
      expectProblem(stale, 412, 'PRECONDITION_FAILED');
      // Read by its author, who is shown the same links (revisions among them) as on the PATCH.
      const unchanged = await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200);
      expect(unchanged.body).toEqual(second.body);
      expect(unchanged.headers.etag).toBe(v2);

      for (const tag of ['"999999"', '"nonsense"', 'W/' + v2, v2.replace(/"$/, '-html"')]) {
        expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', tag).send({ title: 'No' }), 412);
      }
      expect((await http().get(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(200)).body).toEqual(second.body);

      const xmlTag = (await http().get(`/posts/${post.id}`).set('Accept', 'application/xml').expect(200)).headers.etag as string;
      const viaXml = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', xmlTag).send({ title: 'Third' }).expect(200);
      expect(viaXml.body.title).toBe('Third');
      const any = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', '*').send({ title: 'Fourth' }).expect(200);
      expect(any.body.title).toBe('Fourth');
    });

    it('PATCH /comments/{id} and /users/{id} with a stale If-Match: 412 and nothing changes', async () => {
      const comment = await createComment(app, app.tokens.bob, 1, 'Comment v1');
      const commentTag = (await http().get(`/comments/${comment.id}`).expect(200)).headers.etag as string;
      await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).set('If-Match', commentTag).send({ body: 'Comment v2' }).expect(200);
      expectProblem(
        await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).set('If-Match', commentTag).send({ body: 'Comment v3' }),
        412,
        'PRECONDITION_FAILED',
      );
      expect((await http().get(`/comments/${comment.id}`).expect(200)).body.body).toBe('Comment v2');

      const user = await createUser(app);
      const userTag = (await http().get(`/users/${user.id}`).expect(200)).headers.etag as string;
      await http().patch(`/users/${user.id}`).set(bearer(user.token)).set('If-Match', userTag).send({ name: 'Name v2' }).expect(200);
      expectProblem(
        await http().patch(`/users/${user.id}`).set(bearer(user.token)).set('If-Match', userTag).send({ name: 'Name v3' }),
        412,
        'PRECONDITION_FAILED',
      );
      expect((await http().get(`/users/${user.id}`).expect(200)).body.name).toBe('Name v2');
    });

    it('an empty If-Match (blank, or only commas) is 400 naming the header, on every PATCH, and nothing changes', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Kept' });
      const comment = await createComment(app, app.tokens.bob, post.id, 'Kept comment');
      const user = await createUser(app);
      const targets: [string, string, object][] = [
        [`/posts/${post.id}`, app.tokens.alice, { title: 'Changed' }],
        [`/comments/${comment.id}`, app.tokens.bob, { body: 'Changed' }],
        [`/users/${user.id}`, user.token, { name: 'Changed' }],
      ];
      for (const [path, token, change] of targets) {
        const before = await http().get(path).expect(200);
        for (const value of ['', '   ', ',', ' , ,']) {
          const refused = await http().patch(path).set(bearer(token)).set('If-Match', value).send(change);
          const problem = expectProblem(refused, 400, 'BAD_USER_INPUT');
          expect(problem.detail, `${path} If-Match ${JSON.stringify(value)}`).toMatch(/If-Match is empty/);
          expect(problem.errors).toEqual([{ field: 'If-Match', message: expect.any(String) }]);
        }
        const after = await http().get(path).expect(200);
        expect(after.body).toEqual(before.body);
        expect(after.headers.etag).toBe(before.headers.etag);
      }
    });

    it('authorization and existence come first: 403 or 404 rather than 412', async () => {
      const post = await createPost(app, app.tokens.alice);
      const tag = (await http().get(`/posts/${post.id}`).expect(200)).headers.etag as string;
      expectProblem(await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.bob)).set('If-Match', tag).send({ title: 'x' }), 403);
      expectProblem(await http().patch('/posts/999999').set(bearer(app.tokens.admin)).set('If-Match', tag).send({ title: 'x' }), 404);
    });

    it('two concurrent PATCHes with the same ETag: exactly one 200 and one 412, and the winner\'s title is stored', async () => {
      for (let round = 0; round < 5; round += 1) {
        const post = await createPost(app, app.tokens.alice, { title: `Race ${round}` });
        const tag = (await http().get(`/posts/${post.id}`).expect(200)).headers.etag as string;
        const titles = [`Alice wins ${round}`, `Admin wins ${round}`];
        const [a, b] = await Promise.all([
          http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', tag).send({ title: titles[0] }),
          http().patch(`/posts/${post.id}`).set(bearer(app.tokens.admin)).set('If-Match', tag).send({ title: titles[1] }),
        ]);
        expect([a.status, b.status].sort(), `round ${round}: ${a.text} / ${b.text}`).toEqual([200, 412]);
        const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
        expectProblem(loser, 412, 'PRECONDITION_FAILED');
        const stored = await http().get(`/posts/${post.id}`).expect(200);
        expect(stored.body.title).toBe(winner.body.title);
        expect(titles).toContain(stored.body.title);
        expect(stored.headers.etag).toBe(winner.headers.etag);
      }
    });
  });
});
