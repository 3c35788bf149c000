import sharp from 'sharp';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Sql } from '../src/common/persistence/sql.js';
import { sql as statement } from '../src/common/persistence/sql-template.js';
import { EventRetention } from '../src/event-log/event-retention.js';
import { encodeEventCursor } from '../src/events/event-cursor.js';
import { ADMIN, ALICE, BOB } from './support/auth.js';
import { type OpenApiDocument, OpenApiValidator } from './support/openapi-validator.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Real responses of every operation — successes and the errors that are cheap to provoke —
 * validated against the service's own /docs-json: status, headers, media type, body schema and
 * security. The app trusts X-Forwarded-For so that each call has its own client address (and
 * rate limits are reached only where a test means to).
 */
const RATE_LIMIT_MAX = 3;
const RATE_LIMIT_AUTH_MAX = 2;

/** Reads a body as latin1 text (one character per byte), whatever its type. */
function latin1Text(res: request.Response, callback: (error: Error | null, body: string) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('latin1');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => callback(null, text));
}

interface Call {
  token?: string;
  headers?: Record<string, string>;
  body?: string | object;
  /** A multipart upload: this file in the part `file`. */
  file?: Buffer;
  address?: string;
  expect: number;
}

describeEachDatabase('OpenAPI conformance of real responses', (kind) => {
  let app: TestApp;
  let validator: OpenApiValidator;
  let addresses = 0;
  const tokens: Record<'admin' | 'alice' | 'bob', string> = { admin: '', alice: '', bob: '' };
  const ids: Record<'admin' | 'alice' | 'bob', number> = { admin: 0, alice: 0, bob: 0 };
  let webhookId = 0;
  let tagId = 0;
  let mediaId = 0;
  let auditId = 0;
  const nextAddress = () => {
    addresses += 1;
    return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
  };

  /** Sends one request, asserts its status, and asserts the response conforms to the document. */
  async function call(method: 'get' | 'head' | 'post' | 'patch' | 'delete', url: string, options: Call): Promise<request.Response> {
    let pending = request(app.server)[method](url).set('X-Forwarded-For', options.address ?? nextAddress());
    if (options.token) pending = pending.set('Authorization', `Bearer ${options.token}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) pending = pending.set(name, value);
    if (options.body !== undefined) pending = pending.send(options.body);
    if (options.file !== undefined) pending = pending.attach('file', options.file, 'upload.png');
    // An image's bytes, as text for the validator (superagent leaves binary bodies unread).
    if (url.includes('/file')) pending = pending.buffer(true).parse(latin1Text);
    const response = await pending;
    if (url.includes('/file') && typeof response.body === 'string') response.text = response.body;
    expect(response.status, `${method.toUpperCase()} ${url}: ${response.text}`).toBe(options.expect);
    const anonymous = !options.token && !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
    expect(validator.check(method, url, response, { anonymous }), `${method.toUpperCase()} ${url}`).toEqual([]);
    return response;
  }

  const ACCEPTS = ['application/json', 'application/hal+json', 'application/xml', 'text/html'];

  beforeAll(async () => {
    app = await startTestApp(kind, {
      env: {
        TRUST_PROXY: 'true',
        RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        RATE_LIMIT_AUTH_MAX: String(RATE_LIMIT_AUTH_MAX),
        BODY_LIMIT_BYTES: '4096',
        // Its webhooks point at this machine's discard port: nothing is ever sent elsewhere.
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    const spec = await request(app.server).get('/docs-json').set('X-Forwarded-For', nextAddress()).expect(200);
    validator = new OpenApiValidator(spec.body as OpenApiDocument);
    for (const [name, credentials] of Object.entries({ admin: ADMIN, alice: ALICE, bob: BOB }) as [keyof typeof tokens, typeof ADMIN][]) {
      tokens[name] = (await call('post', '/tokens', { body: credentials, expect: 201 })).body.accessToken as string;
    }
    const users = (await call('get', '/users?limit=100', { expect: 200 })).body as { id: number; email: string }[];
    for (const [name, credentials] of Object.entries({ admin: ADMIN, alice: ALICE, bob: BOB }) as [keyof typeof ids, typeof ADMIN][]) {
      ids[name] = users.find((user) => user.email === credentials.email)!.id;
    }
  });
  afterAll(() => app?.close());

  it('posts: every representation, paging, 304, writes and their errors', async () => {
    const created = await call('post', '/posts', { token: tokens.alice, body: { title: 'Conformance', body: 'Checked against /docs-json' }, expect: 201 });
    const id = created.body.id as number;
    await call('post', '/posts', { token: tokens.alice, headers: { Accept: 'application/xml' }, body: { title: 'As XML', body: 'x' }, expect: 201 });
    for (const accept of ACCEPTS) {
      const one = await call('get', `/posts/${id}`, { headers: { Accept: accept }, expect: 200 });
      await call('get', `/posts/${id}`, { headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
      await call('get', '/posts?limit=1', { headers: { Accept: accept }, expect: 200 });
    }
    await call('head', `/posts/${id}`, { expect: 200 });
    for (const accept of ['application/atom+xml', 'application/rss+xml', 'application/feed+json']) {
      const feed = await call('get', '/feed?limit=1', { headers: { Accept: accept }, expect: 200 });
      await call('get', '/feed?limit=1', { headers: { Accept: accept, 'If-None-Match': feed.headers.etag as string }, expect: 304 });
      await call('get', '/posts?limit=1', { headers: { Accept: accept }, expect: 200 });
      await call('get', `/users/${ids.alice}/posts?limit=1`, { headers: { Accept: accept }, expect: 200 });
    }
    await call('get', '/feed', { expect: 200 });
    await call('get', '/feed?limit=0', { expect: 400 });
    await call('get', '/feed', { headers: { Accept: 'application/json' }, expect: 406 });
    for (const path of ['/sitemap.xml', '/sitemaps/1', '/robots.txt']) {
      const document = await call('get', path, { expect: 200 });
      await call('get', path, { headers: { 'If-None-Match': document.headers.etag as string }, expect: 304 });
    }
    await call('get', '/sitemaps/2', { expect: 404 });
    await call('get', '/sitemaps/0', { expect: 400 });
    await call('head', '/posts', { expect: 200 });
    await call('get', `/posts?authorId=${ids.alice}`, { expect: 200 });
    await call('get', '/posts?limit=0', { expect: 400 });
    await call('get', '/posts?cursor=nope', { expect: 400 });
    await call('get', '/posts?unknown=1', { expect: 400 });
    await call('get', '/posts', { token: 'not-a-token', expect: 401 });
    await call('get', `/posts/${id}`, { headers: { Authorization: 'Bearer x.y.z' }, expect: 401 });
    await call('get', '/posts', { headers: { Accept: 'image/png' }, expect: 406 });
    await call('get', `/posts/${id}`, { headers: { Accept: 'image/png' }, expect: 406 });
    await call('get', '/posts/abc', { expect: 400 });
    await call('get', '/posts/999999', { expect: 404 });
    await call('get', `/posts/${'1'.repeat(120)}`, { expect: 414 });
    await call('get', '/posts/%zz', { expect: 400 });

    await call('post', '/posts', { body: { title: 'x', body: 'y' }, expect: 401 });
    await call('post', '/posts', { token: tokens.alice, body: { title: 'x', body: 'y', extra: 1 }, expect: 400 });
    await call('post', '/posts', { token: tokens.alice, body: { title: 'x', body: 'y', authorId: ids.bob }, expect: 403 });
    await call('post', '/posts', { token: tokens.alice, headers: { 'Content-Type': 'text/plain' }, body: 'hello', expect: 415 });
    await call('post', '/posts', { token: tokens.alice, body: { title: 'x', body: 'y'.repeat(5000) }, expect: 413 });
    await call('post', '/posts', { token: tokens.admin, body: { title: 'x', body: 'y', authorId: 999999 }, expect: 400 });

    const patched = await call('patch', `/posts/${id}`, { token: tokens.alice, body: { title: 'Changed' }, expect: 200 });
    await call('patch', `/posts/${id}`, { token: tokens.alice, headers: { 'If-Match': '"1"' }, body: { title: 'Stale' }, expect: 412 });
    await call('patch', `/posts/${id}`, { token: tokens.alice, headers: { 'If-Match': patched.headers.etag as string }, body: { body: 'Fresh' }, expect: 200 });
    await call('patch', `/posts/${id}`, { token: tokens.bob, body: { title: 'Not mine' }, expect: 403 });
    await call('patch', '/posts/999999', { token: tokens.alice, body: { title: 'Gone' }, expect: 404 });
    await call('patch', `/posts/${id}`, { token: tokens.alice, body: { title: '' }, expect: 400 });
    await call('delete', `/posts/${id}`, { token: tokens.bob, expect: 403 });
    await call('delete', `/posts/${id}`, { token: tokens.alice, headers: { 'Content-Type': 'text/plain' }, body: 'x', expect: 415 });
    // Its revisions (the author's), in every format; 404 for others.
    for (const accept of ['application/json', 'application/hal+json', 'application/xml', 'text/html']) {
      await call('get', `/posts/${id}/revisions?limit=1`, { token: tokens.alice, headers: { Accept: accept }, expect: 200 });
      await call('get', `/posts/${id}/revisions/1`, { token: tokens.alice, headers: { Accept: accept }, expect: 200 });
    }
    await call('head', `/posts/${id}/revisions`, { token: tokens.alice, expect: 200 });
    await call('head', `/posts/${id}/revisions/1`, { token: tokens.alice, expect: 200 });
    await call('get', `/posts/${id}/revisions`, { expect: 404 });
    await call('get', `/posts/${id}/revisions/99`, { token: tokens.alice, expect: 404 });
    await call('get', `/posts/${id}/revisions/abc`, { token: tokens.alice, expect: 400 });
    // Review (CONTRACT §16): a submitted post's decisions, in every format; who may decide, and on what.
    const submitted = (await call('post', '/posts', { token: tokens.alice, body: { title: 'For review', body: 'r', status: 'in_review' }, expect: 201 })).body.id as number;
    await call('post', `/posts/${submitted}/reviews`, { body: { decision: 'approve' }, expect: 401 });
    await call('post', `/posts/${submitted}/reviews`, { token: tokens.bob, body: { decision: 'approve' }, expect: 404 });
    await call('post', `/posts/${submitted}/reviews`, { token: tokens.alice, body: { decision: 'approve' }, expect: 403 });
    await call('post', `/posts/${submitted}/reviews`, { token: tokens.admin, body: { decision: 'maybe' }, expect: 400 });
    const review = (await call('post', `/posts/${submitted}/reviews`, { token: tokens.admin, body: { decision: 'approve', note: 'Fine' }, expect: 201 })).body.id as number;
    await call('post', `/posts/${submitted}/reviews`, { token: tokens.admin, body: { decision: 'approve' }, expect: 409 });
    for (const accept of ACCEPTS) {
      await call('get', `/posts/${submitted}/reviews?limit=1`, { token: tokens.alice, headers: { Accept: accept }, expect: 200 });
      await call('get', `/posts/${submitted}/reviews/${review}`, { token: tokens.alice, headers: { Accept: accept }, expect: 200 });
    }
    await call('get', `/posts/${submitted}/reviews`, { expect: 404 });
    await call('get', `/posts/${submitted}/reviews/999999`, { token: tokens.alice, expect: 404 });
    await call('get', `/posts/${submitted}/reviews/abc`, { token: tokens.alice, expect: 400 });
    await call('get', '/posts?status=draft', { expect: 401 });
    await call('get', '/posts?status=draft', { token: tokens.alice, expect: 200 });
    await call('patch', `/posts/${id}`, { token: tokens.alice, body: { status: 'trashed' }, expect: 400 });
    // Slugs and preview links (CONTRACT §13).
    await call('get', `/posts?slug=${created.body.slug as string}`, { expect: 200 });
    await call('get', '/posts?slug=Not-A-Slug', { expect: 400 });
    await call('post', '/posts', { token: tokens.bob, body: { title: 'x', body: 'y', slug: created.body.slug }, expect: 409 });
    const link = await call('post', `/posts/${id}/previews`, { token: tokens.alice, expect: 201 });
    await call('get', `/posts/${id}?preview=${link.body.token as string}`, { expect: 200 });
    await call('post', `/posts/${id}/previews`, { expect: 401 });
    await call('post', `/posts/${id}/previews`, { token: tokens.bob, expect: 403 });
    await call('post', '/posts/999999/previews', { token: tokens.alice, expect: 404 });
    await call('delete', `/posts/${id}/previews`, { token: tokens.bob, expect: 403 });
    await call('delete', `/posts/${id}/previews`, { token: tokens.alice, expect: 204 });
    await call('get', `/posts/${id}?preview=${link.body.token as string}`, { expect: 200 });
    // The first DELETE moves it to the trash, the second deletes it for good.
    await call('delete', `/posts/${id}`, { token: tokens.alice, expect: 204 });
    await call('delete', `/posts/${id}`, { token: tokens.alice, expect: 204 });
    await call('delete', `/posts/${id}`, { token: tokens.alice, expect: 404 });
  });

  it('comments: list, one, 304, writes and their errors', async () => {
    const post = (await call('post', '/posts', { token: tokens.alice, body: { title: 'With comments', body: 'b' }, expect: 201 })).body as { id: number };
    const created = await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 'First' }, expect: 201 });
    await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 'Second' }, expect: 201 });
    const id = created.body.id as number;
    for (const accept of ACCEPTS) {
      const one = await call('get', `/comments/${id}`, { headers: { Accept: accept }, expect: 200 });
      await call('get', `/comments/${id}`, { headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
      await call('get', `/posts/${post.id}/comments?limit=1`, { headers: { Accept: accept }, expect: 200 });
    }
    await call('get', '/posts/999999/comments', { expect: 404 });
    await call('post', '/posts/999999/comments', { token: tokens.bob, body: { body: 'Nowhere' }, expect: 404 });
    await call('post', `/posts/${post.id}/comments`, { body: { body: 'Anonymous' }, expect: 401 });
    await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 1 }, expect: 400 });
    const patched = await call('patch', `/comments/${id}`, { token: tokens.bob, body: { body: 'Edited' }, expect: 200 });
    await call('patch', `/comments/${id}`, { token: tokens.bob, headers: { 'If-Match': '"1"' }, body: { body: 'Stale' }, expect: 412 });
    await call('patch', `/comments/${id}`, { token: tokens.alice, headers: { 'If-Match': patched.headers.etag as string }, body: { body: 'Hers' }, expect: 403 });
    await call('delete', `/comments/${id}`, { token: tokens.bob, expect: 204 });
    await call('get', `/comments/${id}`, { expect: 404 });
  });

  it('moderation: the queue in every format, one and many status changes, and their errors', async () => {
    const post = (await call('post', '/posts', { token: tokens.alice, body: { title: 'Moderated', body: 'b' }, expect: 201 })).body as { id: number };
    const first = (await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 'One' }, expect: 201 })).body as { id: number };
    const second = (await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 'Two' }, expect: 201 })).body as { id: number };
    await call('patch', '/comments', { token: tokens.admin, body: [{ id: first.id, status: 'pending' }, { id: second.id, status: 'hidden' }], expect: 200 });
    for (const accept of ['application/json', 'application/hal+json', 'application/xml', 'text/html']) {
      await call('get', '/comments?status=pending&limit=1', { token: tokens.admin, headers: { Accept: accept }, expect: 200 });
    }
    await call('get', '/comments?status=hidden', { token: tokens.admin, expect: 200 });
    await call('get', '/comments?status=nope', { token: tokens.admin, expect: 400 });
    await call('get', '/comments?status=pending', { expect: 401 });
    await call('get', '/comments?status=pending', { token: tokens.bob, expect: 403 });
    await call('patch', `/comments/${first.id}`, { token: tokens.admin, body: { status: 'approved' }, expect: 200 });
    await call('patch', `/comments/${first.id}`, { token: tokens.bob, body: { status: 'spam' }, expect: 403 });
    await call('patch', '/comments', { token: tokens.admin, body: [], expect: 400 });
    await call('patch', '/comments', { token: tokens.admin, body: [{ id: 999999, status: 'spam' }], expect: 404 });
    await call('patch', '/comments', { body: [{ id: first.id, status: 'spam' }], expect: 401 });
    await call('patch', '/comments', { token: tokens.bob, body: [{ id: first.id, status: 'spam' }], expect: 403 });
  });

  it('users: sign-up without a token, profiles, changes, deletion, token revocation, and their errors', async () => {
    const email = `conformance-${kind}@example.com`;
    const created = await call('post', '/users', { body: { name: 'Conformance', email, password: 'conformance-password' }, expect: 201 });
    const id = created.body.id as number;
    await call('post', '/users', { body: { name: 'Again', email, password: 'conformance-password' }, expect: 409 });
    await call('post', '/users', { body: { name: 'Bad', email: 'not-an-address', password: 'conformance-password' }, expect: 400 });
    await call('post', '/users', { headers: { Accept: 'text/html' }, body: { name: 'Html', email: `html-${email}`, password: 'conformance-password' }, expect: 201 });
    for (const accept of ACCEPTS) {
      const one = await call('get', `/users/${id}`, { headers: { Accept: accept }, expect: 200 });
      await call('get', `/users/${id}`, { headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
      await call('get', '/users?limit=1', { headers: { Accept: accept }, expect: 200 });
      await call('get', `/users/${ids.alice}/posts?limit=1`, { headers: { Accept: accept }, expect: 200 });
    }
    await call('head', `/users/${id}`, { expect: 200 });
    await call('get', '/users/999999/posts', { expect: 404 });
    await call('get', '/users/0', { expect: 400 });

    const token = (await call('post', '/tokens', { body: { email, password: 'conformance-password' }, expect: 201 })).body.accessToken as string;
    await call('patch', `/users/${id}`, { token, body: { name: 'Renamed', avatarUrl: 'https://example.com/a.png' }, expect: 200 });
    await call('patch', `/users/${id}`, { token, headers: { 'If-Match': '"1"' }, body: { name: 'Stale' }, expect: 412 });
    await call('patch', `/users/${id}`, { token, body: { role: 'admin' }, expect: 403 });
    await call('patch', `/users/${ids.admin}`, { token: tokens.admin, body: { role: 'author' }, expect: 409 });
    await call('delete', `/users/${ids.admin}`, { token: tokens.admin, expect: 409 });
    await call('delete', `/users/${ids.alice}`, { token, expect: 403 });
    await call('delete', `/users/${id}/tokens`, { token, expect: 204 });
    await call('get', `/users/${id}`, { token, expect: 401 });
    const again = (await call('post', '/tokens', { body: { email, password: 'conformance-password' }, expect: 201 })).body.accessToken as string;
    await call('delete', `/users/${id}`, { token: again, expect: 204 });
    await call('delete', `/users/${id}`, { token: tokens.admin, expect: 404 });
  });

  it('API keys: create, list, revoke, and their errors', async () => {
    const created = await call('post', `/users/${ids.bob}/api-keys`, { token: tokens.bob, body: { name: 'Export', scopes: ['read'] }, expect: 201 });
    await call('get', `/users/${ids.bob}/api-keys`, { token: tokens.bob, expect: 200 });
    await call('get', `/users/${ids.bob}/api-keys`, { expect: 401 });
    await call('get', `/users/${ids.bob}/api-keys`, { token: tokens.alice, expect: 403 });
    await call('post', `/users/${ids.bob}/api-keys`, { token: tokens.bob, body: { name: 'Bad', scopes: ['everything'] }, expect: 400 });
    await call('post', `/users/${ids.alice}/api-keys`, { token: tokens.bob, body: { name: 'Hers', scopes: ['read'] }, expect: 403 });
    // A read-scoped key used to write: 403 INSUFFICIENT_SCOPE.
    await call('post', '/posts', { token: created.body.key as string, body: { title: 'By key', body: 'b' }, expect: 403 });
    await call('delete', `/users/${ids.bob}/api-keys/${created.body.id as number}`, { token: tokens.bob, expect: 204 });
    await call('delete', `/users/${ids.bob}/api-keys/${created.body.id as number}`, { token: tokens.bob, expect: 404 });
  });

  it('personal data: the export, and who may not', async () => {
    // The password, not the token's age: the export passes however long the suite has run.
    await call('get', `/users/${ids.alice}/export`, { token: tokens.alice, headers: { 'X-Current-Password': ALICE.password }, expect: 200 });
    await call('get', `/users/${ids.alice}/export`, { token: tokens.admin, expect: 200 });
    await call('get', `/users/${ids.alice}/export`, { token: tokens.bob, expect: 403 });
    await call('get', `/users/${ids.alice}/export`, { expect: 401 });
    await call('get', '/users/999999999/export', { token: tokens.admin, expect: 404 });
  });

  it('webhooks: create, list, one, change, deliveries, delete, and their errors', async () => {
    const body = { url: 'http://127.0.0.1:9/conformance', types: ['POST_CREATED'], description: 'Conformance' };
    const created = await call('post', '/webhooks', { token: tokens.admin, body, expect: 201 });
    const id = created.body.id as number;
    webhookId = id;
    await call('post', '/webhooks', { body, expect: 401 });
    await call('post', '/webhooks', { token: tokens.alice, body, expect: 403 });
    await call('post', '/webhooks', { token: tokens.admin, body: { ...body, types: ['NOPE'] }, expect: 400 });
    await call('post', '/webhooks', { token: tokens.admin, body: { ...body, url: 'gopher://127.0.0.1/x' }, expect: 400 });
    await call('get', '/webhooks', { token: tokens.admin, expect: 200 });
    await call('get', '/webhooks', { expect: 401 });
    await call('get', '/webhooks', { token: tokens.bob, expect: 403 });
    await call('get', `/webhooks/${id}`, { token: tokens.admin, expect: 200 });
    await call('get', `/webhooks/${id}`, { token: tokens.alice, expect: 403 });
    await call('get', '/webhooks/999999', { token: tokens.admin, expect: 404 });
    await call('get', '/webhooks/abc', { token: tokens.admin, expect: 400 });
    await call('patch', `/webhooks/${id}`, { token: tokens.admin, body: { active: false, description: null }, expect: 200 });
    await call('patch', `/webhooks/${id}`, { token: tokens.admin, body: { url: 'ftp://127.0.0.1:9/x' }, expect: 400 });
    await call('patch', `/webhooks/${id}`, { body: { active: true }, expect: 401 });
    await call('patch', `/webhooks/${id}`, { token: tokens.alice, body: { active: true }, expect: 403 });
    await call('patch', '/webhooks/999999', { token: tokens.admin, body: { active: true }, expect: 404 });
    await call('get', `/webhooks/${id}/deliveries`, { token: tokens.admin, expect: 200 });
    await call('get', `/webhooks/${id}/deliveries`, { expect: 401 });
    await call('get', `/webhooks/${id}/deliveries`, { token: tokens.alice, expect: 403 });
    await call('get', '/webhooks/999999/deliveries', { token: tokens.admin, expect: 404 });
    const doomed = (await call('post', '/webhooks', { token: tokens.admin, body, expect: 201 })).body.id as number;
    await call('delete', `/webhooks/${doomed}`, { expect: 401 });
    await call('delete', `/webhooks/${doomed}`, { token: tokens.bob, expect: 403 });
    await call('delete', `/webhooks/${doomed}`, { token: tokens.admin, expect: 204 });
    await call('delete', `/webhooks/${doomed}`, { token: tokens.admin, expect: 404 });
  });

  it('the audit log: every representation and NDJSON, paging, one entry, 304, and their errors', async () => {
    for (const accept of [...ACCEPTS, 'application/x-ndjson']) await call('get', '/audit?limit=1', { token: tokens.admin, headers: { Accept: accept }, expect: 200 });
    const paged = await call('get', '/audit?limit=1&action=posts.create&after=2000-01-01T00:00:00Z', { token: tokens.admin, expect: 200 });
    expect(paged.headers.link).toMatch(/rel="next"/);
    auditId = (paged.body as { id: number }[])[0].id;
    await call('get', /<([^>]+)>/.exec(paged.headers.link as string)![1], { token: tokens.admin, expect: 200 });
    for (const accept of ACCEPTS) {
      const one = await call('get', `/audit/${auditId}`, { token: tokens.admin, headers: { Accept: accept }, expect: 200 });
      await call('get', `/audit/${auditId}`, { token: tokens.admin, headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
    }
    await call('get', '/audit', { expect: 401 });
    await call('get', '/audit', { token: tokens.alice, expect: 403 });
    await call('get', '/audit', { token: tokens.alice, headers: { Accept: 'application/x-ndjson' }, expect: 403 });
    await call('get', '/audit?action=posts.explode', { token: tokens.admin, expect: 400 });
    await call('get', '/audit?before=yesterday', { token: tokens.admin, headers: { Accept: 'application/x-ndjson' }, expect: 400 });
    await call('get', '/audit', { token: tokens.admin, headers: { Accept: 'image/png' }, expect: 406 });
    await call('get', `/audit/${auditId}`, { expect: 401 });
    await call('get', `/audit/${auditId}`, { token: tokens.bob, expect: 403 });
    await call('get', '/audit/999999999', { token: tokens.admin, expect: 404 });
    await call('get', '/audit/abc', { token: tokens.admin, expect: 400 });
    await call('head', '/audit', { token: tokens.admin, headers: { Accept: 'application/x-ndjson' }, expect: 200 });
  });

  it('tags: every representation, paging, 304, writes and their errors; posts with tags', async () => {
    const created = await call('post', '/tags', { token: tokens.admin, body: { name: 'Conformance Tag' }, expect: 201 });
    tagId = created.body.id as number;
    await call('post', '/posts', { token: tokens.alice, body: { title: 'Tagged', body: 'b', tags: ['conformance-tag', 'Another Tag'] }, expect: 201 });
    for (const accept of ACCEPTS) {
      const one = await call('get', `/tags/${tagId}`, { headers: { Accept: accept }, expect: 200 });
      await call('get', `/tags/${tagId}`, { headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
      await call('get', '/tags?limit=1', { headers: { Accept: accept }, expect: 200 });
    }
    const first = await call('get', '/tags?limit=1', { expect: 200 });
    const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.link as string)![1];
    await call('get', next, { expect: 200 });
    await call('get', '/tags?slug=conformance-tag', { expect: 200 });
    await call('get', '/tags?cursor=nope', { expect: 400 });
    await call('get', '/tags/abc', { expect: 400 });
    await call('get', '/tags/999999', { expect: 404 });
    await call('post', '/tags', { body: { name: 'x' }, expect: 401 });
    await call('post', '/tags', { token: tokens.alice, body: { name: 'x' }, expect: 403 });
    await call('post', '/tags', { token: tokens.admin, body: { name: '!!!' }, expect: 400 });
    await call('post', '/tags', { token: tokens.admin, body: { name: 'conformance  tag' }, expect: 409 });
    const patched = await call('patch', `/tags/${tagId}`, { token: tokens.admin, body: { name: 'Conformance Tags' }, expect: 200 });
    await call('patch', `/tags/${tagId}`, { token: tokens.admin, headers: { 'If-Match': '"1"' }, body: { name: 'Stale' }, expect: 412 });
    await call('patch', `/tags/${tagId}`, { token: tokens.admin, headers: { 'If-Match': patched.headers.etag as string }, body: { name: 'Conformance Tag' }, expect: 200 });
    await call('patch', `/tags/${tagId}`, { token: tokens.admin, body: { name: 'Another tag' }, expect: 409 });
    await call('patch', '/tags/999999', { token: tokens.admin, body: { name: 'Gone' }, expect: 404 });
    const doomed = (await call('post', '/tags', { token: tokens.admin, body: { name: 'Doomed' }, expect: 201 })).body.id as number;
    await call('delete', `/tags/${doomed}`, { token: tokens.bob, expect: 403 });
    await call('delete', `/tags/${doomed}`, { token: tokens.admin, expect: 204 });
    await call('delete', `/tags/${doomed}`, { token: tokens.admin, expect: 404 });
  });

  it('media: uploads (multipart and raw) and their refusals, every representation, files with ranges, writes and their errors', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } }).png().toBuffer();
    const created = await call('post', '/media', { token: tokens.alice, file: png, expect: 201 });
    mediaId = created.body.id as number;
    await call('post', '/media', { token: tokens.alice, headers: { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="raw.png"' }, body: png, expect: 201 });
    await call('post', '/media', { file: png, expect: 401 });
    await call('post', '/media', { token: tokens.alice, file: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), expect: 415 });
    await call('post', '/media', { token: tokens.alice, headers: { 'Content-Type': 'image/png', 'Content-Length': String(30 * 1024 * 1024) }, body: 'x', expect: 413 });
    // A public post makes its cover public: the HEAD below reads it anonymously.
    await call('post', '/posts', { token: tokens.alice, body: { title: 'Covered', body: 'b', coverImageId: mediaId }, expect: 201 });
    for (const accept of ACCEPTS) {
      const one = await call('get', `/media/${mediaId}`, { headers: { Accept: accept }, expect: 200 });
      await call('get', `/media/${mediaId}`, { headers: { Accept: accept, 'If-None-Match': one.headers.etag as string }, expect: 304 });
      await call('get', '/media?limit=1', { token: tokens.alice, headers: { Accept: accept }, expect: 200 });
    }
    const file = await call('get', `/media/${mediaId}/file`, { expect: 200 });
    await call('get', `/media/${mediaId}/file`, { headers: { Range: 'bytes=0-3' }, expect: 206 });
    await call('get', `/media/${mediaId}/file`, { headers: { Range: 'bytes=999999-' }, expect: 416 });
    await call('get', `/media/${mediaId}/file`, { headers: { 'If-None-Match': file.headers.etag as string }, expect: 304 });
    await call('get', `/media/${mediaId}/file?variant=nope`, { expect: 400 });
    await call('get', '/media/999999/file', { expect: 404 });
    await call('get', '/media/999999', { expect: 404 });
    const patched = await call('patch', `/media/${mediaId}`, { token: tokens.alice, body: { alt: 'A red rectangle', focalPoint: { x: 0.5, y: 0.5 } }, expect: 200 });
    await call('patch', `/media/${mediaId}`, { token: tokens.alice, headers: { 'If-Match': '"1"' }, body: { alt: 'Stale' }, expect: 412 });
    await call('patch', `/media/${mediaId}`, { token: tokens.alice, headers: { 'If-Match': patched.headers.etag as string }, body: { caption: 'Red' }, expect: 200 });
    await call('patch', `/media/${mediaId}`, { token: tokens.bob, body: { alt: 'x' }, expect: 403 });
    await call('patch', `/media/${mediaId}`, { token: tokens.alice, body: { focalPoint: { x: 2, y: 0 } }, expect: 400 });
    await call('delete', `/media/${mediaId}`, { token: tokens.alice, expect: 409 });
    const doomed = (await call('post', '/media', { token: tokens.alice, file: png, expect: 201 })).body.id as number;
    await call('delete', `/media/${doomed}`, { token: tokens.alice, expect: 204 });
    await call('delete', `/media/${doomed}`, { token: tokens.alice, expect: 404 });
  });

  it('events: the log in every representation, paged by cursor and type, and its errors (400, 410 after a prune)', async () => {
    const post = (await call('post', '/posts', { token: tokens.alice, body: { title: 'Logged', body: 'b' }, expect: 201 })).body as { id: number };
    await call('post', `/posts/${post.id}/comments`, { token: tokens.bob, body: { body: 'c' }, expect: 201 });
    await call('delete', `/posts/${post.id}`, { token: tokens.alice, expect: 204 });
    for (const accept of ACCEPTS) await call('get', '/events?limit=2', { headers: { Accept: accept }, expect: 200 });
    const events = (await call('get', '/events?limit=100', { expect: 200 })).body as { cursor: string; type: string }[];
    const first = events[0].cursor;
    const paged = await call('get', `/events?limit=1&after=${first}&types=COMMENT_CREATED,POST_DELETED`, { expect: 200 });
    expect(paged.headers.link).toMatch(/rel="next"/);
    await call('head', '/events', { expect: 200 });
    await call('get', '/events?types=NOPE', { expect: 400 });
    await call('get', '/events?after=nope', { expect: 400 });
    await call('get', '/events?limit=0', { expect: 400 });
    await call('get', '/events', { headers: { Accept: 'image/png' }, expect: 406 });
    for (const accept of ACCEPTS) await call('get', `/events/${first}`, { headers: { Accept: accept }, expect: 200 });
    await call('head', `/events/${first}`, { expect: 200 });
    await call('get', `/events/${encodeEventCursor({ tx: 0, id: 999_999_999 })}`, { expect: 404 });
    await call('get', '/events/nope', { expect: 400 });
    await call('get', `/events/${first}`, { headers: { Accept: 'image/png' }, expect: 406 });

    // Everything so far is older than the retention, and pruned: a cursor from then is gone.
    const sql = app.app.get(Sql);
    await sql.rows(statement`UPDATE events SET occurred_at = ${sql.timestamp(new Date(Date.now() - 30 * 86_400_000))}`);
    await app.app.get(EventRetention).prune();
    const gone = await call('get', `/events?after=${first}`, { expect: 410 });
    expect(gone.body.code).toBe('CURSOR_EXPIRED');
    await call('get', `/events?after=${first}`, { headers: { Accept: 'text/html' }, expect: 410 });
    await call('get', `/events/${first}`, { headers: { Accept: 'application/xml' }, expect: 410 });
  });

  it('tokens: sign-in, bad input, wrong password (401) and the sign-in limit (429 with Retry-After)', async () => {
    await call('post', '/tokens', { body: { email: ALICE.email }, expect: 400 });
    const address = nextAddress();
    for (let attempt = 0; attempt < RATE_LIMIT_AUTH_MAX; attempt += 1) {
      await call('post', '/tokens', { address, body: { email: ALICE.email, password: 'wrong-password' }, expect: 401 });
    }
    await call('post', '/tokens', { address, body: { email: ALICE.email, password: 'wrong-password' }, expect: 429 });
  });

  it('the request limit: 429 with Retry-After on any route', async () => {
    const address = nextAddress();
    for (let count = 0; count < RATE_LIMIT_MAX; count += 1) await call('get', '/users?limit=1', { address, expect: 200 });
    await call('get', '/users?limit=1', { address, expect: 429 });
    await call('get', `/posts/1`, { address, expect: 429 });
  });

  it('HEAD on every GET route: the GET\'s statuses and headers, no body', async () => {
    const post = (await call('post', '/posts', { token: tokens.alice, body: { title: 'Heads', body: 'b' }, expect: 201 })).body as { id: number };
    const comment = (await call('post', `/posts/${post.id}/comments`, { token: tokens.alice, body: { body: 'c' }, expect: 201 })).body as { id: number };
    const templates = Object.keys(validator.document.paths).filter((path) => validator.document.paths[path].head);
    const cursor = ((await call('get', '/events?limit=100', { expect: 200 })).body as { cursor: string }[]).at(-1)!.cursor;
    const reviewed = (await call('post', '/posts', { token: tokens.alice, body: { title: 'Reviewed', body: 'b', status: 'in_review' }, expect: 201 })).body as { id: number };
    const review = (await call('post', `/posts/${reviewed.id}/reviews`, { token: tokens.admin, body: { decision: 'approve' }, expect: 201 })).body as { id: number };
    for (const template of templates) {
      if (template.includes('/reviews')) {
        await call('head', template.replace('{id}', String(reviewed.id)).replace('{reviewId}', String(review.id)), { token: tokens.alice, expect: 200 });
        continue;
      }
      if (template.startsWith('/audit')) {
        await call('head', template.replace('{id}', String(auditId)), { token: tokens.admin, expect: 200 });
        continue;
      }
      const webhook = template.startsWith('/webhooks');
      const id = template.startsWith('/comments') ? comment.id : template.startsWith('/posts/{id}') ? post.id : webhook ? webhookId : template.startsWith('/tags') ? tagId : template.startsWith('/media') ? mediaId : ids.alice;
      const token = template.includes('api-keys') || template.includes('revisions') ? tokens.alice : webhook || template === '/comments' || template.endsWith('/export') ? tokens.admin : undefined;
      await call('head', template.replace('{id}', String(id)).replace('{cursor}', cursor).replace('{number}', '1').replace('{n}', '1'), { token, expect: 200 });
    }
    expect(templates).toEqual(expect.arrayContaining(['/posts', '/posts/{id}', '/users', '/users/{id}', '/comments/{id}', '/health']));
  });

  it('the validator finds mismatches: an undeclared field, header, status or media type', async () => {
    const real = await call('get', `/users/${ids.alice}`, { expect: 200 });
    const doctored = (changes: Partial<{ status: number; headers: Record<string, string>; text: string }>) =>
      ({ status: real.status, headers: { ...real.headers, ...changes.headers }, text: changes.text ?? real.text, ...(changes.status ? { status: changes.status } : {}) }) as unknown as request.Response;
    const check = (response: request.Response) => validator.check('get', `/users/${ids.alice}`, response, { anonymous: true });
    expect(check(doctored({}))).toEqual([]);
    expect(check(doctored({ text: JSON.stringify({ ...real.body, passwordHash: 'x' }) })).join()).toMatch(/schema/);
    expect(check(doctored({ text: JSON.stringify({ ...real.body, id: '7' }) })).join()).toMatch(/schema/);
    expect(check(doctored({ headers: { location: '/users/1' } })).join()).toMatch(/location sent but not declared/);
    expect(check(doctored({ headers: { etag: undefined as unknown as string } })).join()).toMatch(/etag missing/);
    expect(check(doctored({ headers: { 'content-type': 'application/yaml' } })).join()).toMatch(/not declared/);
    expect(check(doctored({ status: 418 })).join()).toMatch(/status not declared/);
    const signUp = validator.check('post', '/posts', { ...real, status: 201 } as unknown as request.Response, { anonymous: true });
    expect(signUp.join()).toMatch(/security requires a credential/);
  });

  it('an unserved method on a known path: 405 with Allow, as declared', async () => {
    const response = await request(app.server).put('/posts/1').set('X-Forwarded-For', nextAddress()).send({});
    expect(response.status).toBe(405);
    // The document declares 405 on each operation of the path; check it against the GET's.
    expect(validator.check('get', '/posts/1', response, { anonymous: true })).toEqual([]);
  });

  it('lists as application/hal+json: a HAL collection, as declared', async () => {
    for (const url of ['/posts?limit=1', '/users?limit=1', `/users/${ids.alice}/posts`, '/posts/1/comments']) {
      await call('get', url, { headers: { Accept: 'application/hal+json' }, expect: 200 });
    }
  });

  it('an error asked for as text/html: an HTML page, as declared', async () => {
    const response = await call('get', '/posts/999999', { headers: { Accept: 'text/html' }, expect: 404 });
    expect(response.headers['content-type']).toMatch(/^text\/html/);
  });

  it('an error asked for as XML: application/problem+xml, as declared, on every kind of route', async () => {
    const notFound = await call('get', '/posts/999999', { headers: { Accept: 'application/xml' }, expect: 404 });
    expect(notFound.headers['content-type']).toMatch(/^application\/problem\+xml/);
    await call('post', '/tokens', { headers: { Accept: 'application/xml' }, body: { email: ALICE.email }, expect: 400 });
    await call('get', '/metrics', { headers: { Accept: 'application/xml' }, token: 'bad', expect: 200 });
    const notAllowed = await request(app.server).put('/metrics').set('X-Forwarded-For', nextAddress()).set('Accept', 'application/xml').send({});
    expect(notAllowed.status).toBe(405);
    expect(validator.check('get', '/metrics', notAllowed, { anonymous: true })).toEqual([]);
    await call('get', '/posts/1', { headers: { Accept: 'application/problem+xml' }, expect: 406 });
  });

  it('a 304 carries no Content-Type, as declared (no content)', async () => {
    const one = await call('get', '/posts/1', { expect: 200 });
    const response = await call('get', '/posts/1', { headers: { 'If-None-Match': one.headers.etag as string }, expect: 304 });
    expect(response.headers['content-type']).toBeUndefined();
  });

  // Last but the coverage check: the database is gone (and in memory, empty) after it.
  it('health: 200 with its checks; 503 with Retry-After when the database is gone', async () => {
    await call('get', '/health', { expect: 200 });
    await call('head', '/health', { expect: 200 });
    await call('get', '/health', { token: 'bad', expect: 401 });
    await call('get', '/metrics', { expect: 200 });
    await call('get', '/metrics', { token: 'bad', expect: 200 });
    await call('head', '/metrics', { expect: 200 });
    const dataSource = app.app.get(DataSource);
    await dataSource.destroy();
    try {
      await call('get', '/health', { expect: 503 });
      const xml = await call('get', '/health', { headers: { Accept: 'application/xml' }, expect: 503 });
      expect(xml.text).toMatch(/<checks><database><status>down<\/status><\/database>/);
    } finally {
      await dataSource.initialize();
    }
  });

  it('every operation of the document answered at least one success above, and every error status was seen', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(validator.document.paths)) {
      for (const method of Object.keys(item)) {
        const statuses = [...(validator.seen.get(`${method} ${path}`) ?? [])];
        if (!statuses.some((status) => status >= 200 && status < 300)) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    const seen = new Set([...validator.seen.values()].flatMap((statuses) => [...statuses]));
    for (const status of [304, 400, 401, 403, 404, 406, 409, 410, 412, 413, 414, 415, 429, 503]) expect(seen.has(status), String(status)).toBe(true);
  });

});
