/**
 * The README's quick start, end to end, on whatever Node runs this script: the production build
 * (`dist/src/main.js`) is started with this same Node binary on a fresh SQLite file with the demo
 * data, then the first HTTP and GraphQL examples of the user docs (README.md, docs/http-api.md,
 * docs/graphql.md) run against it, then SIGTERM must stop it with exit code 0. (Every shell block
 * of the docs runs as written in test/readme-walkthrough.e2e-spec.ts.) `.ci/run` runs it on Node 24 (the suite itself runs on the machine's Node).
 *
 *   npm run build && node test/readme-smoke.mjs
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const { fetch, AbortSignal } = globalThis;
const say = (line) => process.stdout.write(`${line}\n`);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const steps = [];
async function step(name, work) {
  await work();
  steps.push(name);
  say(`  ok  ${name}`);
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'readme-smoke-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
  cwd: ROOT,
  env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'blog.sqlite')}`, JWT_SECRET: 'readme-smoke-secret-0123456789-abcdefghijkl', LOG_LEVEL: 'warn', REDIS_URL: '' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

const call = async (method, url, { body, token, accept, headers = {} } = {}) => {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...(accept ? { accept } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
};

try {
  say(`README smoke on Node ${process.version}`);
  await step('the service starts on an empty SQLite file and answers /health', async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await call('GET', '/health').then((r) => r.status, () => 0);
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`/health did not answer 200 within 30 s (last: ${status})`);
      await sleep(200);
    }
  });

  let token;
  await step('POST /tokens signs the demo author in', async () => {
    const response = await call('POST', '/tokens', { body: { email: 'alice@example.com', password: 'alice-password' } });
    assert.equal(response.status, 201, response.text);
    token = response.json().accessToken;
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  let location;
  await step('POST /posts: 201 with Location', async () => {
    const response = await call('POST', '/posts', { token, body: { title: 'Hello', body: 'First post' } });
    assert.equal(response.status, 201, response.text);
    location = response.headers.get('location');
    assert.match(location, /^\/posts\/\d+$/);
  });

  await step('the post in JSON, XML and HTML', async () => {
    const json = await call('GET', location);
    assert.equal(json.status, 200);
    assert.equal(json.json().title, 'Hello');
    const xml = await call('GET', location, { accept: 'application/xml' });
    assert.match(xml.headers.get('content-type'), /^application\/xml/);
    assert.match(xml.text, /<title>Hello<\/title>/);
    const html = await call('GET', location, { accept: 'text/html' });
    assert.match(html.headers.get('content-type'), /^text\/html/);
    assert.match(html.text, /<h1>Hello<\/h1>/);
  });

  await step('lists page by cursor through the Link header', async () => {
    const first = await call('GET', '/posts?limit=2');
    assert.equal(first.status, 200);
    assert.equal(first.json().length, 2);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(next, 'a Link rel="next" header');
    assert.equal((await call('GET', next)).status, 200);
  });

  await step('a stale If-Match is 412; a fresh one is 200', async () => {
    const etag = (await call('GET', location)).headers.get('etag');
    assert.equal((await call('PATCH', location, { token, body: { title: 'Hello again' }, headers: { 'if-match': etag } })).status, 200);
    assert.equal((await call('PATCH', location, { token, body: { title: 'Too late' }, headers: { 'if-match': etag } })).status, 412);
  });

  await step('a comment, then DELETE the post: 204', async () => {
    assert.equal((await call('POST', `${location}/comments`, { token, body: { body: 'Nice' } })).status, 201);
    assert.equal((await call('DELETE', location, { token })).status, 204);
    assert.equal((await call('GET', location)).status, 404);
  });

  await step('GraphQL: the post page of a demo post, in one request', async () => {
    const query = '{ posts(first: 1) { nodes { id title author { name } comments { body author { name } } } } }';
    const response = await call('POST', '/graphql', { body: { query } });
    assert.equal(response.status, 200, response.text);
    const body = response.json();
    assert.equal(body.errors, undefined, response.text);
    assert.equal(body.data.posts.nodes.length, 1);
    assert.equal(typeof body.data.posts.nodes[0].author.name, 'string');
  });

  await step('GraphQL: createPost with the token', async () => {
    const response = await call('POST', '/graphql', { token, body: { query: 'mutation($input: CreatePostInput!) { createPost(input: $input) { id title } }', variables: { input: { title: 'Via GraphQL', body: 'Hi' } } } });
    assert.equal(response.json().data?.createPost?.title, 'Via GraphQL', response.text);
  });

  await step('SIGTERM: the service drains and exits 0', async () => {
    child.kill('SIGTERM');
    const { code, signal } = await Promise.race([exited, sleep(15_000).then(() => ({ code: 'timeout', signal: null }))]);
    assert.equal(code, 0, `exit ${code} ${signal ?? ''}`);
  });
  say(`README smoke: all ${steps.length} steps passed on Node ${process.version}`);
} catch (error) {
  process.stderr.write(`README smoke failed after ${steps.length} steps on Node ${process.version}: ${error?.stack ?? error}\n`);
  child.kill('SIGKILL');
  process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
