import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from './support/auth.js';
import { killAllServers, startServer, tempWorkDir, type ServerProcess } from './support/server-process.js';
import { until } from './support/subscriptions.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * What a request does not need is not loaded at start-up (issues 27 and 43): the production build
 * on the default configuration (SQLite, no Redis, no OIDC, no webhook) is started on an existing
 * database with the module recorder, and the recorded files are checked for these packages and
 * files only, never for the whole set (it differs between Node versions and with the
 * better-sqlite3 build in use). Each is then used, and is loaded and works.
 */

const RECORDER = resolve('test/support/module-recorder.mjs');

/** Package or dist file → the part of a recorded file: URL that names it. */
const LAZY = {
  xmlbuilder2: '/node_modules/xmlbuilder2/',
  ioredis: '/node_modules/ioredis/',
  'graphql-redis-subscriptions': '/node_modules/graphql-redis-subscriptions/',
  pg: '/node_modules/pg/',
  'jose (the OIDC verifier)': '/node_modules/jose/',
  standardwebhooks: '/node_modules/standardwebhooks/',
  'the webhook sender': '/dist/src/webhooks/webhook-sender.js',
  'the OIDC verifier': '/dist/src/oidc/oidc-token.verifier.js',
  'the Redis bus': '/dist/src/events/redis-pub-sub.js',
  // Issue 43: v4's libraries, loaded on first use.
  'markdown-it': '/node_modules/markdown-it/',
  'sanitize-html': '/node_modules/sanitize-html/',
  'the content engine': '/dist/src/content/content-engine.js',
  sharp: '/node_modules/sharp/',
  '@aws-sdk/client-s3': '/node_modules/@aws-sdk/client-s3/',
  'the OpenTelemetry SDK': '/node_modules/@opentelemetry/sdk-node/',
} as const;

describe('lazy loading [sqlite, production build]', () => {
  let work: ReturnType<typeof tempWorkDir> | undefined;
  let server: ServerProcess | undefined;
  let modulesFile: string;
  const receiver = new Receiver();

  const loaded = (): string[] => (existsSync(modulesFile) ? readFileSync(modulesFile, 'utf8').split('\n') : []);
  const isLoaded = (part: string) => loaded().some((url) => url.includes(part));

  async function call(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${server!.url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  }

  beforeAll(async () => {
    work = tempWorkDir('blog-lazy-');
    modulesFile = join(work.dir, `modules-${randomBytes(4).toString('hex')}.txt`);
    await receiver.start();
    const database = `sqlite:${join(work.dir, 'blog.sqlite')}`;
    // A first start migrates and seeds the demo data (which renders its comments' Markdown): the
    // recorded start is on an existing database, as a restart in production is.
    const seeding = await startServer({ DATABASE_URL: database }, work.dir);
    seeding.child.kill('SIGTERM');
    await seeding.exited;
    server = await startServer(
      {
        NODE_OPTIONS: `--import=${RECORDER}`,
        RECORD_MODULES_TO: modulesFile,
        // xmlbuilder2 and pg are CommonJS, required when first used.
        RECORD_COMMONJS: 'true',
        DATABASE_URL: database,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_TIMEOUT_MS: '2000',
      },
      work.dir,
    );
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await Promise.race([server.exited, new Promise((done) => setTimeout(done, 10_000))]);
    }
    killAllServers();
    await receiver.stop();
    work?.remove();
  });

  it('loads none of them at start-up, nor for JSON and GraphQL requests', async () => {
    expect((await call('/health')).status).toBe(200);
    expect((await call('/posts')).status).toBe(200);
    const graphql = await call('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ post(id: 1) { title author { name } } }' }) });
    expect(graphql.status).toBe(200);
    expect(((await graphql.json()) as { data?: { post?: { title?: string } } }).data?.post?.title).toEqual(expect.any(String));

    // The recorder works: the service itself and a package it always needs are in the list.
    expect(isLoaded('/dist/src/server.js')).toBe(true);
    expect(isLoaded('/node_modules/graphql/')).toBe(true);
    const early = Object.entries(LAZY).filter(([, part]) => isLoaded(part)).map(([name]) => name);
    expect(early).toEqual([]);
  });

  it('loads xmlbuilder2 for the first XML answer, which is well formed (a resource and a problem)', async () => {
    const post = await call('/posts/1', { headers: { accept: 'application/xml' } });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await post.text()).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><post><id>1<\/id>/);
    expect(isLoaded(LAZY.xmlbuilder2)).toBe(true);

    const missing = await call('/posts/999999', { headers: { accept: 'application/xml' } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<problem xmlns="urn:ietf:rfc:7807">');
  });

  it('loads markdown-it and sanitize-html for the first Markdown body, which is rendered and sanitized', async () => {
    const token = ((await (await call('/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })).json()) as { accessToken: string }).accessToken;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await call('/posts', { method: 'POST', headers: auth, body: JSON.stringify({ title: `Markdown ${randomBytes(4).toString('hex')}`, body: '# Hi\n\n*there* <script>alert(1)</script>', bodyFormat: 'markdown' }) });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { bodyHtml?: string }).bodyHtml).toBe('<h1>Hi</h1>\n<p><em>there</em> </p>');
    expect(isLoaded(LAZY['markdown-it'])).toBe(true);
    expect(isLoaded(LAZY['sanitize-html'])).toBe(true);
    expect(isLoaded(LAZY['the content engine'])).toBe(true);
  });

  it('loads the webhook sender for the first delivery, which arrives signed', async () => {
    const token = ((await (await call('/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })).json()) as { accessToken: string }).accessToken;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const hook = await call('/webhooks', { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url(), types: ['POST_CREATED'] }) });
    expect(hook.status).toBe(201);
    const title = `Lazy ${randomBytes(4).toString('hex')}`;
    expect((await call('/posts', { method: 'POST', headers: auth, body: JSON.stringify({ title, body: 'Sent to a webhook' }) })).status).toBe(201);
    const receipt = await until('the delivery', () => receiver.receipts.find((candidate) => candidate.body.includes(title)));
    expect(receipt.headers['webhook-signature']).toMatch(/^v1,/);
    expect(isLoaded(LAZY['the webhook sender'])).toBe(true);
    expect(isLoaded(LAZY.standardwebhooks)).toBe(true);
  });
});
