/**
 * `node bench/search-dos.mjs` (after `npm run build`): issue 36's search as a denial of service,
 * replayed. A fresh database (a SQLite file, or with --database a new PostgreSQL database beside
 * the one named, dropped afterwards) gets --posts posts of the bench dataset (~1 KB each); the
 * service starts on it with its production settings (rate limits as shipped, the response cache
 * on, TRUST_PROXY=true so that each client below has an address of its own); then for
 * --duration s, --clients clients each send, one after the other,
 *
 *   GET /posts?q=<w w w … w -xN: one word of the posts repeated up to 199 characters>&limit=<1…50, varying>
 *
 * (the varying limit and the excluded word xN, N counting up, defeat the response cache), while
 * one more client asks GET /health every 100 ms. It prints /health's latency (median, p95, max) and the attack's answers by status.
 *
 *   --root <dir>         the checkout whose build (dir/dist/src/main.js) runs (default: this one): main's for a before figure
 *   --database <url>     postgres://… (default: a SQLite file in a temp dir)
 *   --clients <n>        attacking clients (4)      --duration <s>   seconds (10)      --posts <n>   posts (406)
 *   --env NAME=value     a setting for the service, repeatable (e.g. --env RATE_LIMIT_SEARCH_MAX=0: the work bound alone)
 *   --control            the same clients without a search: GET /posts?publishedBefore=<2100-01-01 + N ms>&limit=<1…50>,
 *                        a page of posts each (the cache defeated the same way): what any list costs /health
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SEARCH_WORDS, loadDataset } from './dataset.mjs';
import { cleanups, prepareDatabase, runScript } from './run.mjs';
import { SERVICE_ENV, SERVICE_NODE_FLAGS, UsageError, log, out } from './shared.mjs';

const { fetch } = globalThis;
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function options() {
  const { values } = parseArgs({
    options: {
      root: { type: 'string', default: HERE },
      database: { type: 'string' },
      clients: { type: 'string', default: '4' },
      duration: { type: 'string', default: '10' },
      posts: { type: 'string', default: '406' },
      env: { type: 'string', multiple: true, default: [] },
      control: { type: 'boolean', default: false },
    },
  });
  const number = (name) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} takes a positive integer`);
    return value;
  };
  const env = {};
  for (const pair of values.env) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--env takes NAME=value, not ${pair}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { root: path.resolve(values.root), database: values.database, clients: number('clients'), durationS: number('duration'), posts: number('posts'), env, control: values.control };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The service of `root` on `databaseUrl`, ready once /health answers 200. */
async function startService(root, databaseUrl, env) {
  const port = await freePort();
  const entry = path.join(root, 'dist', 'src', 'main.js');
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, entry], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      ...SERVICE_ENV,
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-search-dos-secret-0123456789abcdef',
      DATABASE_URL: databaseUrl,
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      TRUST_PROXY: 'true',
      ...env,
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
  };
  cleanups.push(stop);
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
    if (ok) return { url, stop };
  }
  throw new Error(`the service did not answer /health within 60 s: ${stderr}`);
}

/** The search word found in the most posts (GraphQL totalCount), from a probing address of its own. */
async function commonestWord(url) {
  let best = { word: SEARCH_WORDS[0], count: -1 };
  for (const word of SEARCH_WORDS.slice(0, 30)) {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.254' },
      body: JSON.stringify({ query: 'query($q: String) { posts(search: $q) { totalCount } }', variables: { q: word } }),
    });
    const count = (await response.json()).data?.posts?.totalCount ?? -1;
    if (count > best.count) best = { word, count };
  }
  return best;
}

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

async function main() {
  const opts = options();
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'search-dos-'));
  cleanups.push(() => rm(tempDir, { recursive: true, force: true }));
  const database = await prepareDatabase({ database: opts.database }, tempDir);
  cleanups.push(() => database.drop());
  log(`search-dos: ${database.describe}; the build of ${opts.root}`);
  // The schema: the service's own migrations; then the dataset, then the service again.
  await (await startService(opts.root, database.url, opts.env)).stop();
  await loadDataset(database.url, { users: 20, posts: opts.posts, commentsPerPost: 0, markdownPosts: 0 });
  const service = await startService(opts.root, database.url, opts.env);
  const { word, count } = await commonestWord(service.url);
  // Room for " -x" and a counter of up to 6 digits: 199 characters at most.
  const repeated = Array.from({ length: Math.floor((199 - 9) / (word.length + 1)) }, () => word).join(' ');
  log(`search-dos: "${word}" is in ${count} of ${opts.posts} posts; q = "${word} …" ×${repeated.split(' ').length} -xN (${repeated.length + 9} characters at most)`);

  const statuses = new Map();
  const searchMs = [];
  const healthMs = [];
  let healthFailures = 0;
  const until = performance.now() + opts.durationS * 1000;
  const attacker = async (index) => {
    for (let sent = 0; performance.now() < until; sent += 1) {
      const n = sent * opts.clients + index;
      const limit = 1 + (n % 50);
      const started = performance.now();
      const query = opts.control ? `publishedBefore=${new Date(Date.UTC(2100, 0, 1) + n).toISOString()}` : `q=${encodeURIComponent(`${repeated} -x${n}`)}`;
      const status = await fetch(`${service.url}/posts?${query}&limit=${limit}`, { headers: { 'x-forwarded-for': `198.51.100.${index + 1}` } }).then(
        async (response) => (await response.arrayBuffer(), response.status),
        () => 'error',
      );
      searchMs.push(performance.now() - started);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // A refused client comes back at once, as an attacker would.
    }
  };
  const prober = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const ok = await fetch(`${service.url}/health`, { headers: { 'x-forwarded-for': '203.0.113.1' } }).then(
        async (response) => (await response.arrayBuffer(), response.ok),
        () => false,
      );
      healthMs.push(performance.now() - started);
      if (!ok) healthFailures += 1;
      await sleep(100);
    }
  };
  await Promise.all([...Array.from({ length: opts.clients }, (_, index) => attacker(index)), prober()]);
  await service.stop();

  const health = [...healthMs].sort((a, b) => a - b);
  const searches = [...searchMs].sort((a, b) => a - b);
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  const byStatus = [...statuses.entries()].sort().map(([status, n]) => `${status}: ${n}`).join(', ');
  const fivexx = [...statuses.entries()].filter(([status]) => typeof status === 'number' && status >= 500).reduce((sum, [, n]) => sum + n, 0);
  out(`${database.kind}, ${opts.posts} posts, ${opts.clients} clients × ${opts.durationS} s${opts.control ? ', control (no search)' : ''}, build of ${opts.root}${Object.keys(opts.env).length ? `, ${Object.entries(opts.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`);
  out(`  /health: ${health.length} probes, median ${fmt(percentile(health, 50))}, p95 ${fmt(percentile(health, 95))}, max ${fmt(health.at(-1) ?? NaN)}, ${healthFailures} not 200`);
  out(`  ${opts.control ? 'lists' : 'searches'}: ${searches.length} (${(searches.length / opts.durationS).toFixed(1)}/s), median ${fmt(percentile(searches, 50))}, p95 ${fmt(percentile(searches, 95))}; by status ${byStatus}; 5xx: ${fivexx}`);
  return 0;
}

runScript('search-dos', main);
