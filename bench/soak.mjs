/**
 * `npm run soak`: the production build under a steady mixed load, then a check that it kept
 * every promise it made.
 *
 *  1. A fresh database (a SQLite file in a temp dir, or with --database a new PostgreSQL
 *     database beside the one named, dropped afterwards) and `node dist/src/main.js` on it
 *     (NODE_ENV=production, demo data, rate limits off, LOG_LEVEL=warn, PORT=0).
 *  2. A few authors sign up; then --connections clients (64) loop for --duration seconds (60)
 *     over a mix of reads and writes: GET /posts/{id}, GET /posts, the GraphQL post page,
 *     POST /posts, POST /posts/{id}/comments, PATCH and DELETE of the client's own posts.
 *     Every acknowledged write is recorded: 201 with its Location and body, 200 PATCH with its
 *     new title, 204 DELETE.
 *  3. The server's VmRSS is sampled every second.
 *  4. Afterwards: every acknowledged write reads back as acknowledged (the last title of each
 *     patched post, deleted posts and their comments 404), the row counts in the database are
 *     exactly what was acknowledged (nothing else was written), no 5xx and no failed request was
 *     seen, memory was flat after the warm-up (first vs last quarter of the samples after
 *     --warmup), and SIGTERM stops the server with exit code 0.
 *  5. A short report on stdout (progress on stderr); exit code 1 on any violation.
 *
 * Run `node bench/soak.mjs --help` for the flags. The script builds nothing: `npm run soak` does.
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { POST_PAGE_QUERY, SERVICE_ENV, SERVICE_NODE_FLAGS, checkDatabaseFlag, log, mulberry32, numericFlags, out, randomInt } from './shared.mjs';

const { fetch, AbortSignal } = globalThis;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_ENTRY = path.join(ROOT, 'dist', 'src', 'main.js');
const JWT_SECRET = 'soak-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const AUTHORS = 16;

const HELP = `Usage: npm run soak -- [flags]     (or: node bench/soak.mjs [flags] after npm run build)

  --duration S         load for S seconds (60)
  --connections N      concurrent clients (64)
  --warmup S           seconds left out of the memory comparison (10)
  --max-rss-growth P   a violation if the last quarter's average RSS is more than P % above the
                       first quarter's, after the warm-up (20)
  --database URL       postgres://user@host:port/db: a fresh database is created beside db and
                       dropped afterwards (default: a SQLite file in a temp dir)
  --seed N             the request mix's PRNG seed (1)
  --keep               keep the temp dir / database
`;

// ---------------------------------------------------------------------------------------------
// Options and cleanup

function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      'max-rss-growth': { type: 'string' },
      database: { type: 'string' },
      seed: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { number } = numericFlags(values);
  checkDatabaseFlag(values.database);
  const duration = number('duration', 60, 1, 24 * 3600);
  return {
    help: values.help === true,
    duration,
    connections: Math.round(number('connections', 64, 1, 10_000)),
    warmup: number('warmup', Math.min(10, duration / 4), 0, duration),
    maxRssGrowth: number('max-rss-growth', 20, 0, 10_000),
    database: values.database,
    seed: Math.round(number('seed', 1, 0, 2 ** 32 - 1)),
    keep: values.keep === true,
  };
}

const cleanups = [];
async function runCleanups() {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()();
    } catch (error) {
      log(`cleanup: ${error instanceof Error ? error.message : error}`);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`\nsoak: ${signal}; stopping everything it started`);
    void runCleanups().then(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// The service

async function prepareDatabase(options, tempDir) {
  if (!options.database) {
    const file = path.join(tempDir, 'soak.sqlite');
    return { kind: 'SQLite', url: `sqlite:${file}`, file, drop: async () => {} };
  }
  const { default: pg } = await import('pg');
  const name = `blog_soak_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: options.database });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const target = new URL(options.database);
  target.pathname = `/${name}`;
  return {
    kind: 'PostgreSQL',
    url: target.toString(),
    drop: async () => {
      if (options.keep) return log(`kept PostgreSQL database ${name}`);
      const client = new pg.Client({ connectionString: options.database });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The port a process listens on, from /proc (LOG_LEVEL=warn hides the "Listening on" line). */
async function listeningPort(pid) {
  const inodes = new Set();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(link);
    if (match) inodes.add(match[1]);
  }
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9])) return parseInt(fields[1].split(':')[1], 16);
    }
  }
  return null;
}

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : null;
}

async function startService(databaseUrl) {
  const env = { ...process.env };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'METRICS_ENABLED', 'GRAPHQL_PERSISTED_QUERIES', 'GRAPHQL_PERSISTED_QUERIES_FILE', 'TRUST_PROXY']) delete env[name];
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, SERVICE_ENTRY], {
    cwd: ROOT,
    env: {
      ...env,
      ...SERVICE_ENV,
      NODE_ENV: 'production',
      JWT_SECRET,
      DATABASE_URL: databaseUrl,
      SEED_DEMO_DATA: 'true',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_AUTH_MAX: '0',
      RATE_LIMIT_COMMENTS_MAX: '0',
      RATE_LIMIT_TAGS_MAX: '0',
      RATE_LIMIT_COST_MAX: '0',
      RATE_LIMIT_SEARCH_MAX: '0',
      LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const service = { child, lines: [], exitCode: null, signal: null, errorLines: 0 };
  service.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      service.exitCode = code;
      service.signal = signal;
      resolve({ code, signal });
    }),
  );
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() === '') continue;
        if (/"level":(50|60)/.test(line)) service.errorLines += 1;
        service.lines.push(line);
        if (service.lines.length > 50) service.lines.shift();
      }
    });
  }
  service.stop = async () => {
    if (service.exitCode !== null || service.signal !== null) return service.exited;
    child.kill('SIGTERM');
    const result = await Promise.race([service.exited, sleep(15_000).then(() => null)]);
    if (result) return result;
    log('the service did not stop within 15 s of SIGTERM: killing it');
    child.kill('SIGKILL');
    return service.exited;
  };
  cleanups.push(() => service.stop());

  const deadline = performance.now() + 90_000;
  for (;;) {
    if (service.exitCode !== null) throw new Error(`the service exited (${service.exitCode}) before it was ready:\n${service.lines.join('\n')}`);
    const port = await listeningPort(child.pid);
    if (port !== null) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) return Object.assign(service, { port });
      } catch {
        // not yet
      }
    }
    if (performance.now() > deadline) throw new Error(`the service was not ready within 90 s:\n${service.lines.join('\n')}`);
    await sleep(20);
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

function client(port, connections) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  cleanups.push(() => agent.destroy());
  return (method, urlPath, { token, body } = {}) =>
    new Promise((resolve) => {
      const headers = { accept: 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      const payload = body === undefined ? undefined : JSON.stringify(body);
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const started = performance.now();
      const req = httpRequest({ host: '127.0.0.1', port, method, path: urlPath, agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let json;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json, ms: performance.now() - started });
        });
        res.on('error', (error) => resolve({ status: 0, error: error.message, ms: performance.now() - started }));
      });
      req.on('error', (error) => resolve({ status: 0, error: error.code ?? error.message, ms: performance.now() - started }));
      req.end(payload);
    });
}

// ---------------------------------------------------------------------------------------------
// Database counts (read directly, not through the service)

async function countRows(database) {
  const sql = 'SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM comments) AS comments';
  if (database.file) {
    const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
    const db = new Database(database.file, { readonly: true });
    try {
      const row = db.prepare(sql).get();
      return { users: Number(row.users), posts: Number(row.posts), comments: Number(row.comments) };
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query(sql);
    return { users: Number(rows[0].users), posts: Number(rows[0].posts), comments: Number(rows[0].comments) };
  } finally {
    await db.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The run

const percentile = (sorted, p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
const average = (values) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);

async function main() {
  let options;
  try {
    options = readOptions(process.argv.slice(2));
  } catch (error) {
    log(`${error.message}\n\n${HELP}`);
    return 2;
  }
  if (options.help) {
    out(HELP);
    return 0;
  }
  if (!existsSync(SERVICE_ENTRY)) {
    log(`${path.relative(ROOT, SERVICE_ENTRY)} is missing: run \`npm run build\` first (\`npm run soak\` does).`);
    return 1;
  }
  const violations = [];
  const violate = (text) => {
    if (violations.length < 200) violations.push(text);
    else if (violations.length === 200) violations.push('… (more violations not listed)');
  };

  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'blog-soak-'));
  cleanups.push(() => (options.keep ? log(`kept ${tempDir}`) : rm(tempDir, { recursive: true, force: true })));
  const database = await prepareDatabase(options, tempDir);
  cleanups.push(() => database.drop());
  log(`soak: ${database.kind}, ${options.connections} clients for ${options.duration} s`);

  const service = await startService(database.url);
  const call = client(service.port, options.connections);
  const initial = await countRows(database);

  // Authors: each client writes as one of them and only changes its own posts.
  const run = randomBytes(3).toString('hex');
  const authors = [];
  for (let index = 0; index < AUTHORS; index += 1) {
    const email = `soak-${run}-${index}@soak.example`;
    const created = await call('POST', '/users', { body: { name: `Soak author ${index}`, email, password: 'soak-password' } });
    if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
    const token = await call('POST', '/tokens', { body: { email, password: 'soak-password' } });
    if (token.status !== 201) throw new Error(`sign-in failed: ${token.status} ${token.text}`);
    authors.push({ id: created.json.id, token: token.json.accessToken });
  }

  // What the service acknowledged.
  const posts = new Map(); // id → { title, body, authorId, deleted, deleting }
  const comments = new Map(); // id → { postId, body }
  for (let id = 1; id <= initial.posts; id += 1) posts.set(id, { seed: true, deleted: false, deleting: false });
  const liveIds = [...posts.keys()];
  const stats = { requests: 0, byKind: {}, statuses: {}, latencies: [], fiveHundreds: 0, failures: 0 };
  const acknowledged = { postsCreated: 0, commentsCreated: 0, patches: 0, deletes: 0 };

  const record = (kind, response) => {
    stats.requests += 1;
    stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
    stats.statuses[response.status] = (stats.statuses[response.status] ?? 0) + 1;
    if (stats.latencies.length < 2_000_000) stats.latencies.push(response.ms);
    if (response.ms > (stats.slowest?.ms ?? 0)) stats.slowest = { kind, ms: response.ms, at: (performance.now() - loadStart) / 1000 };
    if (response.status >= 500) {
      stats.fiveHundreds += 1;
      violate(`${kind}: ${response.status} ${response.text?.slice(0, 200)}`);
    } else if (response.status === 0) {
      stats.failures += 1;
      violate(`${kind}: request failed (${response.error})`);
    }
  };
  /** A 404 for a post is fine only if it is being (or was) deleted. */
  const goneOk = (id) => {
    const post = posts.get(id);
    return post !== undefined && (post.deleted || post.deleting);
  };

  let loadStart = performance.now();
  const random = mulberry32(options.seed);
  const endAt = performance.now() + options.duration * 1000;
  let sequence = 0;

  async function worker(index) {
    const author = authors[index % authors.length];
    const own = [];
    while (performance.now() < endAt) {
      sequence += 1;
      const n = sequence;
      const roll = random();
      const anyId = () => liveIds[randomInt(random, 0, liveIds.length - 1)];
      if (roll < 0.36) {
        const id = anyId();
        const response = await call('GET', `/posts/${id}`);
        record('GET /posts/{id}', response);
        if (response.status === 404 && !goneOk(id)) violate(`GET /posts/${id}: 404 for a live post`);
        else if (response.status !== 200 && response.status !== 404 && response.status < 500 && response.status !== 0) violate(`GET /posts/${id}: ${response.status}`);
      } else if (roll < 0.5) {
        const response = await call('GET', '/posts?limit=20');
        record('GET /posts', response);
        if (response.status !== 200 && response.status < 500 && response.status !== 0) violate(`GET /posts: ${response.status}`);
      } else if (roll < 0.62) {
        const id = anyId();
        const response = await call('POST', '/graphql', { body: { query: POST_PAGE_QUERY, variables: { id } } });
        record('GraphQL post page', response);
        if (response.status === 200 && response.json?.errors) violate(`GraphQL post page ${id}: ${JSON.stringify(response.json.errors).slice(0, 200)}`);
        else if (response.status === 200 && response.json?.data?.post === null && !goneOk(id)) violate(`GraphQL post ${id}: null for a live post`);
        else if (response.status !== 200 && response.status < 500 && response.status !== 0) violate(`GraphQL post page: ${response.status}`);
      } else if (roll < 0.75) {
        const sent = { title: `Soak ${run} post ${n}`, body: `Written by client ${index} as request ${n}. ${'Lorem ipsum '.repeat(randomInt(random, 1, 40))}` };
        const response = await call('POST', '/posts', { token: author.token, body: sent });
        record('POST /posts', response);
        if (response.status === 201) {
          const id = response.json?.id;
          if (response.headers.location !== `/posts/${id}` || response.json.title !== sent.title || response.json.body !== sent.body || response.json.authorId !== author.id) {
            violate(`POST /posts: 201 with an unexpected answer: ${response.headers.location} ${response.text.slice(0, 200)}`);
          }
          posts.set(id, { title: sent.title, body: sent.body, authorId: author.id, deleted: false, deleting: false });
          liveIds.push(id);
          own.push(id);
          acknowledged.postsCreated += 1;
        } else if (response.status < 500 && response.status !== 0) violate(`POST /posts: ${response.status} ${response.text.slice(0, 200)}`);
      } else if (roll < 0.88) {
        const postId = anyId();
        const sent = { body: `Soak ${run} comment ${n} by client ${index}` };
        const response = await call('POST', `/posts/${postId}/comments`, { token: author.token, body: sent });
        record('POST /posts/{id}/comments', response);
        if (response.status === 201) {
          const id = response.json?.id;
          if (response.headers.location !== `/comments/${id}` || response.json.body !== sent.body || response.json.postId !== postId) {
            violate(`POST comment: 201 with an unexpected answer: ${response.headers.location} ${response.text.slice(0, 200)}`);
          }
          comments.set(id, { postId, body: sent.body });
          acknowledged.commentsCreated += 1;
        } else if (response.status === 404 && goneOk(postId)) {
          // The post was being deleted: fine.
        } else if (response.status < 500 && response.status !== 0) violate(`POST /posts/${postId}/comments: ${response.status} ${response.text.slice(0, 200)}`);
      } else if (roll < 0.97) {
        if (own.length === 0) continue;
        const id = own[randomInt(random, 0, own.length - 1)];
        const title = `Soak ${run} post ${id} patched at ${n}`;
        const response = await call('PATCH', `/posts/${id}`, { token: author.token, body: { title } });
        record('PATCH /posts/{id}', response);
        if (response.status === 200) {
          if (response.json?.title !== title) violate(`PATCH /posts/${id}: 200 with title ${response.json?.title}`);
          posts.get(id).title = title;
          acknowledged.patches += 1;
        } else if (response.status < 500 && response.status !== 0) violate(`PATCH /posts/${id}: ${response.status} ${response.text.slice(0, 200)}`);
      } else {
        if (own.length === 0) continue;
        const id = own.splice(randomInt(random, 0, own.length - 1), 1)[0];
        const post = posts.get(id);
        post.deleting = true;
        const response = await call('DELETE', `/posts/${id}`, { token: author.token });
        record('DELETE /posts/{id}', response);
        if (response.status === 204) {
          post.deleted = true;
          acknowledged.deletes += 1;
        } else if (response.status < 500 && response.status !== 0) violate(`DELETE /posts/${id}: ${response.status} ${response.text.slice(0, 200)}`);
      }
    }
  }

  // Memory, once a second, from the start of the load.
  const rss = [];
  loadStart = performance.now();
  let sampling = true;
  const heap = [];
  const sampler = (async () => {
    while (sampling) {
      const t = (performance.now() - loadStart) / 1000;
      const mb = await rssMb(service.child.pid);
      if (mb !== null) rss.push({ t, mb });
      // The V8 heap in use, from /metrics (information: RSS is what is judged).
      const metrics = await call('GET', '/metrics');
      const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics.text ?? '');
      if (match) heap.push({ t, mb: Number(match[1]) / 1048576 });
      await sleep(1000);
    }
  })();
  const progress = setInterval(
    () => log(`  ${Math.round((performance.now() - loadStart) / 1000)} s: ${stats.requests} requests, RSS ${rss.at(-1)?.mb.toFixed(0) ?? '?'} MB, heap ${heap.at(-1)?.mb.toFixed(0) ?? '?'} MB`),
    10_000,
  );
  await Promise.all(Array.from({ length: options.connections }, (_, index) => worker(index)));
  const loadSeconds = (performance.now() - loadStart) / 1000;
  clearInterval(progress);
  sampling = false;
  await sampler;
  log(`soak: load done (${stats.requests} requests in ${loadSeconds.toFixed(1)} s); verifying`);

  // ---- Every acknowledged write reads back as acknowledged.
  let checkedPosts = 0;
  let checkedComments = 0;
  const verify = client(service.port, 16);
  const postEntries = [...posts.entries()].filter(([, post]) => !post.seed);
  const commentEntries = [...comments.entries()];
  const queue = [...postEntries.map((entry) => ['post', ...entry]), ...commentEntries.map((entry) => ['comment', ...entry])];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let item = queue.pop(); item !== undefined; item = queue.pop()) {
        const [kind, id, expected] = item;
        if (kind === 'post') {
          const response = await verify('GET', `/posts/${id}`);
          checkedPosts += 1;
          if (expected.deleted) {
            if (response.status !== 404) violate(`post ${id} was deleted (204) but reads ${response.status}`);
          } else if (response.status !== 200) {
            violate(`post ${id} was acknowledged but reads ${response.status}`);
          } else if (response.json.title !== expected.title || response.json.body !== expected.body || response.json.authorId !== expected.authorId) {
            violate(`post ${id} reads ${JSON.stringify(response.json.title)}, acknowledged ${JSON.stringify(expected.title)}`);
          }
        } else {
          const response = await verify('GET', `/comments/${id}`);
          checkedComments += 1;
          const postDeleted = posts.get(expected.postId)?.deleted === true;
          if (postDeleted) {
            if (response.status !== 404) violate(`comment ${id} on deleted post ${expected.postId} reads ${response.status}`);
          } else if (response.status !== 200) {
            violate(`comment ${id} was acknowledged but reads ${response.status}`);
          } else if (response.json.body !== expected.body || response.json.postId !== expected.postId) {
            violate(`comment ${id} reads ${JSON.stringify(response.json.body)}, acknowledged ${JSON.stringify(expected.body)}`);
          }
        }
      }
    }),
  );

  // ---- Nothing else was written: the tables hold exactly what was acknowledged.
  const livePostsCreated = postEntries.filter(([, post]) => !post.deleted).length;
  const liveComments = commentEntries.filter(([, comment]) => posts.get(comment.postId)?.deleted !== true).length;
  const expectedCounts = { users: initial.users + AUTHORS, posts: initial.posts + livePostsCreated, comments: initial.comments + liveComments };
  const counts = await countRows(database);
  for (const table of ['users', 'posts', 'comments']) {
    if (counts[table] !== expectedCounts[table]) violate(`${table}: ${counts[table]} rows, ${expectedCounts[table]} acknowledged`);
  }

  // ---- Memory after the warm-up: first quarter against last quarter.
  const steady = rss.filter((sample) => sample.t >= options.warmup);
  const quarter = Math.max(1, Math.floor(steady.length / 4));
  const firstQuarter = average(steady.slice(0, quarter).map((sample) => sample.mb));
  const lastQuarter = average(steady.slice(-quarter).map((sample) => sample.mb));
  const growth = firstQuarter > 0 ? ((lastQuarter - firstQuarter) / firstQuarter) * 100 : 0;
  const steadyHeap = heap.filter((sample) => sample.t >= options.warmup);
  const heapQuarter = Math.max(1, Math.floor(steadyHeap.length / 4));
  const heapFirst = average(steadyHeap.slice(0, heapQuarter).map((sample) => sample.mb));
  const heapLast = average(steadyHeap.slice(-heapQuarter).map((sample) => sample.mb));
  if (steady.length < 4) violate(`too few RSS samples after the warm-up (${steady.length})`);
  else if (growth > options.maxRssGrowth) violate(`RSS grew ${growth.toFixed(1)} % from the first to the last quarter (limit ${options.maxRssGrowth} %)`);

  // ---- It stops cleanly.
  const exit = await service.stop();
  if (exit.code !== 0) violate(`SIGTERM: exit ${exit.code ?? exit.signal}`);
  if (service.errorLines > 0) violate(`${service.errorLines} error lines in the service's log, e.g. ${service.lines.find((line) => /"level":(50|60)/.test(line))?.slice(0, 300)}`);

  // ---- Report
  const latencies = stats.latencies.sort((a, b) => a - b);
  out(`# Soak: ${database.kind}, ${options.connections} clients, ${loadSeconds.toFixed(0)} s`);
  out('');
  out(`requests       ${stats.requests} (${(stats.requests / loadSeconds).toFixed(0)}/s); latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(0)} ms`);
  out(`slowest        ${stats.slowest ? `${stats.slowest.kind}, ${stats.slowest.ms.toFixed(0)} ms, ${stats.slowest.at.toFixed(1)} s into the run` : '-'}`);
  out(`by kind        ${Object.entries(stats.byKind).map(([kind, count]) => `${kind} ${count}`).join(', ')}`);
  out(`statuses       ${Object.entries(stats.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}`);
  out(`5xx            ${stats.fiveHundreds}; failed requests ${stats.failures}`);
  out(`acknowledged   ${acknowledged.postsCreated} posts created, ${acknowledged.commentsCreated} comments created, ${acknowledged.patches} PATCHes, ${acknowledged.deletes} DELETEs`);
  out(`verified       ${checkedPosts} posts and ${checkedComments} comments read back as acknowledged`);
  out(`rows           users ${counts.users}/${expectedCounts.users}, posts ${counts.posts}/${expectedCounts.posts}, comments ${counts.comments}/${expectedCounts.comments} (found/acknowledged)`);
  out(`memory (RSS)   ${rss.length} samples; after ${options.warmup} s warm-up: first quarter ${firstQuarter.toFixed(1)} MB, last quarter ${lastQuarter.toFixed(1)} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %); max ${Math.max(...rss.map((sample) => sample.mb)).toFixed(1)} MB`);
  out(`memory (heap)  V8 heap used, same quarters: ${heapFirst.toFixed(1)} MB, ${heapLast.toFixed(1)} MB`);
  out(`shutdown       SIGTERM → exit ${exit.code ?? exit.signal}`);
  out('');
  if (violations.length > 0) {
    out(`FAILED: ${violations.length} violation(s)`);
    for (const violation of violations.slice(0, 50)) out(`  - ${violation}`);
    return 1;
  }
  out('OK: every acknowledged write is there as acknowledged, nothing else was written, no 5xx, memory flat');
  return 0;
}

main().then(
  async (code) => {
    await runCleanups();
    process.exit(code);
  },
  async (error) => {
    log(`\nsoak failed: ${error instanceof Error ? error.stack : error}`);
    await runCleanups();
    process.exit(1);
  },
);
