import { createHmac } from 'node:crypto';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, type PostBody } from './support/resources.js';
import { describeEachDatabase, TEST_JWT_SECRET } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Preview links (CONTRACT §13): POST /posts/{id}/previews gives whoever may change the post a
 * token that opens it, in its current state, to anyone holding it — through every format and
 * GraphQL — read-only, never cached, not indexed, until it expires or DELETE revokes them all.
 */

const BASE = 'https://api.example.com';
const HOUR = 3_600_000;
const POST_QUERY = 'query($id: Int, $preview: String) { post(id: $id, preview: $preview) { id title status body comments { id } commentCount } }';

interface PreviewLink {
  token: string;
  url: string;
  expiresAt: string;
}

describeEachDatabase('preview links', (kind) => {
  const app = useApp(kind, { signIn: ['admin', 'alice', 'bob', 'editor'], env: { PUBLIC_BASE_URL: BASE, PREVIEW_TTL_S: '3600' } });
  const http = () => app.http();
  const preview = async (postId: number, token = app.tokens.alice): Promise<PreviewLink> => {
    const response = await http().post(`/posts/${postId}/previews`).set(bearer(token));
    expect(response.status, response.text).toBe(201);
    return response.body as PreviewLink;
  };
  const read = (postId: number, token: string, accept = 'application/json') => http().get(`/posts/${postId}?preview=${encodeURIComponent(token)}`).set('accept', accept);
  const expectPreviewHeaders = (response: { headers: Record<string, string> }) => {
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-robots-tag']).toBe('noindex');
  };
  const tagged = (postId: number) => `Preview ${postId}`;

  it('201 {token, url, expiresAt}: the url under PUBLIC_BASE_URL, valid PREVIEW_TTL_S', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
    const before = Date.now();
    const link = await preview(draft.id);
    expect(Object.keys(link).sort()).toEqual(['expiresAt', 'token', 'url']);
    expect(link.url).toBe(`${BASE}/posts/${draft.id}?preview=${link.token}`);
    const expires = Date.parse(link.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + HOUR - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + HOUR + 1000);
  });

  describe('a draft, scheduled or trashed post opens to anyone holding the token', () => {
    for (const state of ['draft', 'scheduled', 'trashed'] as const) {
      it(`${state}: JSON, HAL, XML and HTML, anonymous and another author, no-store and noindex`, async () => {
        const fields = state === 'scheduled' ? { status: 'scheduled', publishAt: new Date(Date.now() + HOUR).toISOString() } : { status: state === 'trashed' ? 'published' : 'draft' };
        const post = await createPost(app, app.tokens.alice, { ...fields, title: `${state} under review` });
        if (state === 'trashed') await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(204);
        const { token } = await preview(post.id);
        expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');

        const json = await read(post.id, token).expect(200);
        expect(json.body).toMatchObject({ id: post.id, status: state, title: `${state} under review` });
        expectPreviewHeaders(json);
        const hal = await read(post.id, token, 'application/hal+json').expect(200);
        expect(hal.body).toMatchObject({ id: post.id, status: state });
        expectPreviewHeaders(hal);
        const xml = await read(post.id, token, 'application/xml').expect(200);
        expect(xml.text).toContain(`<status>${state}</status>`);
        expectPreviewHeaders(xml);
        const html = await read(post.id, token, 'text/html').expect(200);
        expectPreviewHeaders(html);
        expect(html.text).toContain(`${state} under review`);
        expect(() => parse(html.text)).not.toThrow();
        // Another author's token (or none) changes nothing: the link is what opens it.
        const asBob = await read(post.id, token).set(bearer(app.tokens.bob)).expect(200);
        expect(asBob.body.id).toBe(post.id);

        const gql = expectData(await graphql(app, POST_QUERY, { id: post.id, preview: token }));
        expect(gql.post).toMatchObject({ id: post.id, status: state.toUpperCase() });
        expect(expectData(await graphql(app, POST_QUERY, { id: post.id })).post).toBeNull();
      });
    }
  });

  it('a token opens its post alone: not another post, not with another id, not tampered with', async () => {
    const mine = await createPost(app, app.tokens.alice, { status: 'draft' });
    const other = await createPost(app, app.tokens.alice, { status: 'draft' });
    const { token } = await preview(mine.id);
    expectProblem(await read(other.id, token), 404, 'NOT_FOUND');
    expect(expectData(await graphql(app, POST_QUERY, { id: other.id, preview: token })).post).toBeNull();
    const [expiry, signature] = token.split('.');
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    for (const forged of [`${expiry}.${flipped}`, `${(parseInt(expiry, 36) + 1000).toString(36)}.${signature}`, 'x', '', `${token}x`, token.toUpperCase()]) {
      expectProblem(await read(mine.id, forged), 404, 'NOT_FOUND');
    }
    expectProblem(await http().get(`/posts/${mine.id}?preview=a&preview=b`), 400, 'BAD_USER_INPUT');
    expectProblem(await http().get(`/posts/${mine.id}?preview=${'a'.repeat(101)}`), 400, 'BAD_USER_INPUT');
    expectError(await graphql(app, POST_QUERY, { id: mine.id, preview: 'a'.repeat(101) }), 'BAD_USER_INPUT', ['post']);
    // A token of a public post shows it as it is; a bad token hides nothing public either.
    const published = await createPost(app, app.tokens.alice);
    expect((await read(published.id, 'nonsense').expect(200)).body.id).toBe(published.id);
  });

  it('an expired token opens nothing', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
    // Signed as the service signs (HMAC of id, expiry and the post's stamp), an hour ago.
    const key = createHmac('sha256', TEST_JWT_SECRET).update('blog preview links v1').digest();
    const sign = (expires: number) => `${expires.toString(36)}.${createHmac('sha256', key).update(`${draft.id}.${expires}.0`).digest('base64url')}`;
    const future = Math.ceil(Date.now() / 1000) + 600;
    expect((await read(draft.id, sign(future)).expect(200)).body.id).toBe(draft.id);
    expectProblem(await read(draft.id, sign(Math.floor(Date.now() / 1000) - 3600)), 404, 'NOT_FOUND');
  });

  it('DELETE /posts/{id}/previews revokes every link of the post at once; a new one works', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
    const first = await preview(draft.id);
    const second = await preview(draft.id, app.tokens.editor);
    const elsewhere = await createPost(app, app.tokens.alice, { status: 'draft' });
    const kept = await preview(elsewhere.id);
    await read(draft.id, first.token).expect(200);
    await http().delete(`/posts/${draft.id}/previews`).set(bearer(app.tokens.alice)).expect(204);
    for (const link of [first, second]) {
      expectProblem(await read(draft.id, link.token), 404, 'NOT_FOUND');
      expect(expectData(await graphql(app, POST_QUERY, { id: draft.id, preview: link.token })).post).toBeNull();
    }
    await read(elsewhere.id, kept.token).expect(200);
    const third = await preview(draft.id);
    await read(draft.id, third.token).expect(200);
  });

  it('who may make and revoke links: its author, editors and admins (404 for who may not see it, 403 for who may only read it, 401 anonymous)', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft' });
    const published = await createPost(app, app.tokens.alice);
    await preview(draft.id, app.tokens.editor);
    await preview(draft.id, app.tokens.admin);
    expectProblem(await http().post(`/posts/${draft.id}/previews`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
    expectProblem(await http().post(`/posts/${published.id}/previews`).set(bearer(app.tokens.bob)), 403, 'FORBIDDEN');
    expectProblem(await http().post(`/posts/${draft.id}/previews`), 401, 'UNAUTHENTICATED');
    expectProblem(await http().delete(`/posts/${draft.id}/previews`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
    expectProblem(await http().delete(`/posts/${published.id}/previews`).set(bearer(app.tokens.bob)), 403, 'FORBIDDEN');
    expectProblem(await http().delete(`/posts/${draft.id}/previews`), 401, 'UNAUTHENTICATED');
    expectProblem(await http().post('/posts/999999/previews').set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
    expectProblem(await http().post('/posts/abc/previews').set(bearer(app.tokens.admin)), 400, 'BAD_USER_INPUT');
  });

  it('grants no write: PATCH, DELETE and comments with the token are refused as without it', async () => {
    const draft = await createPost(app, app.tokens.alice, { status: 'draft', title: 'Unchanged' });
    const { token } = await preview(draft.id);
    expectProblem(await http().patch(`/posts/${draft.id}?preview=${token}`).send({ title: 'Changed' }), 401, 'UNAUTHENTICATED');
    expectProblem(await http().patch(`/posts/${draft.id}?preview=${token}`).set(bearer(app.tokens.bob)).send({ title: 'Changed' }), 404, 'NOT_FOUND');
    expectProblem(await http().delete(`/posts/${draft.id}?preview=${token}`).set(bearer(app.tokens.bob)), 404, 'NOT_FOUND');
    expectProblem(await http().post(`/posts/${draft.id}/comments?preview=${token}`).set(bearer(app.tokens.bob)).send({ body: 'hi' }), 404, 'NOT_FOUND');
    // Only the post itself takes a token: its comments' list refuses the parameter.
    const comments = await http().get(`/posts/${draft.id}/comments?preview=${token}`);
    expect([400, 404], comments.text).toContain(comments.status);
    expect((await read(draft.id, token).expect(200)).body.title).toBe('Unchanged');
  });

  it('never from or into the response cache (REST and GraphQL)', async () => {
    const post = await createPost(app, app.tokens.alice, { status: 'draft', title: tagged(0) });
    const { token } = await preview(post.id);
    for (let n = 0; n < 3; n += 1) {
      const response = await read(post.id, token).expect(200);
      expect(response.headers['cache-status'] ?? '', 'REST').not.toMatch(/hit/);
      const gql = await graphql(app, POST_QUERY, { id: post.id, preview: token });
      expect(gql.response.headers['cache-status'] ?? '', 'GraphQL').not.toMatch(/hit/);
      expect(gql.response.headers['cache-control']).toBe('no-store');
      expect(gql.response.headers['x-robots-tag']).toBe('noindex');
    }
    // Edited after it was read: the token shows the current state at once.
    await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ title: 'Edited in review' }).expect(200);
    expect((await read(post.id, token).expect(200)).body.title).toBe('Edited in review');
    await http().delete(`/posts/${post.id}/previews`).set(bearer(app.tokens.alice)).expect(204);
    expectProblem(await read(post.id, token), 404, 'NOT_FOUND');
    expect(expectData(await graphql(app, POST_QUERY, { id: post.id, preview: token })).post).toBeNull();
  });

  it('the post shows its comments as the public sees them', async () => {
    const post = await createPost(app, app.tokens.alice);
    const comment = await createComment(app, app.tokens.bob, post.id, 'A public comment');
    await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ status: 'draft' }).expect(200);
    const { token } = await preview(post.id);
    const data = expectData(await graphql(app, POST_QUERY, { id: post.id, preview: token }));
    expect(data.post.comments.map((item: { id: number }) => item.id)).toEqual([comment.id]);
    expect(data.post.commentCount).toBe(1);
    const html = await read(post.id, token, 'text/html').expect(200);
    expect(html.text).toContain('A public comment');
    const body = (await read(post.id, token).expect(200)).body as PostBody;
    expect(body.id).toBe(post.id);
  });
});
