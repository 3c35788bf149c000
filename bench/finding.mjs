/**
 * `npm run bench:finding`: do search, tag filters, orders and date ranges cost the same on a
 * small blog and on a big one (CONTRACT §8)?
 *
 * For each size of --sizes (10,000 and 1,000,000 posts): a fresh database (a SQLite file, or with
 * --database a new PostgreSQL database beside the one named, dropped afterwards), migrated by the
 * service's first start, loaded by bench/finding-data.mjs (made-up words, so a search word is on
 * a bounded share of the posts, as a real term is; two tags per post); then the service starts
 * on it and autocannon measures each scenario (--rounds × --duration s) with one client by
 * default (--connections): latency as a reader sees it, not queueing on a saturated machine
 * (throughput is `npm run bench`'s job):
 *
 *   GET /posts?q=<a random word>          relevance order, with _search (a word is on ~200 posts)
 *   GET /posts?tag=<a random tag>         newest first (a tag on 1 % of the posts)
 *   GET /posts?tag=rare                   a tag on 1 post in 100,003
 *   GET /posts?tag=<a>&tag=<b>            two tags that share posts
 *   GET /posts?sort=title                 the first page of the title order
 *   GET /posts?sort=-updatedAt            recently updated
 *   GET /posts?publishedAfter=<random>    a date range, oldest of it first
 *
 * The table gives the mean and p99 latency per size and the ratio of the largest size to the
 * smallest; the exit code is 1 when a mean ratio is above --max-ratio (3) or a request failed.
 * Run `node bench/finding.mjs --help` for the flags; it builds nothing (`npm run bench:finding` does).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findingSizes, loadFindingPostgres, loadFindingSqlite, word } from './finding-data.mjs';
import { abort, cannon, cleanups, fmt, gitState, machine, measureRound, prepareDatabase, runScript, send, startService, summarize } from './run.mjs';
import { UsageError, checkDatabaseFlag, log, mulberry32, numericFlags, out, parseDatabaseUrl, randomInt } from './shared.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_ENTRY = path.join(ROOT, 'dist', 'src', 'main.js');

const HELP = `Usage: npm run bench:finding -- [flags]     (or: node bench/finding.mjs [flags] after npm run build)

  --sizes N,N (10000,1000000)  posts per database, smallest first
  --database postgres://…      a PostgreSQL server to make the databases on (default: SQLite files)
  --duration S (5)  --rounds N (2)  --connections N (1: the latency of one client)  --warmup S (1)
  --max-ratio R (3)            the largest size's mean latency over the smallest's, per scenario, that passes
  --out FILE (bench/results/finding.json)  --keep  --timeout MIN (60)
`;

function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sizes: { type: 'string' },
      database: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      'max-ratio': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { number, integer } = numericFlags(values);
  checkDatabaseFlag(values.database);
  const sizes = (values.sizes ?? '10000,1000000').split(',').map((size) => Number(size.replace(/_/g, '')));
  if (sizes.length < 2 || sizes.some((size) => !Number.isInteger(size) || size < 1000 || size > 10_000_000)) {
    throw new UsageError('--sizes must list at least two whole numbers of posts from 1000 to 10000000, e.g. 10000,1000000');
  }
  return {
    help: values.help === true,
    sizes: sizes.sort((a, b) => a - b),
    database: values.database,
    duration: number('duration', 5, 0.5, 3600),
    rounds: integer('rounds', 2, 1, 100),
    connections: integer('connections', 1, 1, 10_000),
    warmup: number('warmup', 1, 0, 600),
    maxRatio: number('max-ratio', 3, 1, 1000),
    out: path.resolve(values.out ?? path.join(ROOT, 'bench', 'results', 'finding.json')),
    keep: values.keep === true,
    timeoutMin: number('timeout', 60, 1, 24 * 60),
  };
}

/** The scenarios on a database of `posts` posts (the dataset's tags and words). */
function scenarioList(posts) {
  const { tags, words } = findingSizes({ posts });
  const get = (path) => ({ method: 'GET', path });
  // Published from 2024-01-01, one post a minute: a random point of that span.
  const span = posts * 60_000;
  const randomDate = (random) => new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * span * 0.9)).toISOString();
  return [
    { id: 'search', name: 'GET /posts?q=<word>', dynamic: true, request: (random) => get(`/posts?q=${word(randomInt(random, 0, words - 1))}&limit=20`) },
    { id: 'tag', name: 'GET /posts?tag=<tag>', dynamic: true, request: (random) => get(`/posts?tag=tag-${randomInt(random, 1, tags)}&limit=20`) },
    { id: 'rare-tag', name: 'GET /posts?tag=rare (1 post in 100,003)', request: () => get('/posts?tag=rare&limit=20') },
    {
      // Post g has tags 1 + g % T and 1 + 7g % T: tag a shares its posts with tag 1 + 7(a - 1) % T.
      id: 'two-tags',
      name: 'GET /posts?tag=<a>&tag=<b>',
      dynamic: true,
      request: (random) => {
        const a = randomInt(random, 1, tags);
        return get(`/posts?tag=tag-${a}&tag=tag-${1 + ((7 * (a - 1)) % tags)}&limit=20`);
      },
    },
    { id: 'title', name: 'GET /posts?sort=title', request: () => get('/posts?sort=title&limit=20') },
    { id: 'updated', name: 'GET /posts?sort=-updatedAt', request: () => get('/posts?sort=-updatedAt&limit=20') },
    { id: 'published-after', name: 'GET /posts?publishedAfter=<date>&sort=publishedAt', dynamic: true, request: (random) => get(`/posts?publishedAfter=${randomDate(random)}&sort=publishedAt&limit=20`) },
  ];
}

async function loadInto(url, posts) {
  const database = parseDatabaseUrl(url);
  if (database.type === 'postgres') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await loadFindingPostgres(client, { posts });
    } finally {
      await client.end();
    }
    return;
  }
  const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
  const db = new Database(database.url);
  try {
    db.pragma('journal_mode = WAL');
    loadFindingSqlite(db, { posts });
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

async function measureSize(options, posts, tempDir) {
  const database = await prepareDatabase({ ...options }, tempDir);
  const dropDatabase = () => database.drop();
  cleanups.push(dropDatabase);
  log(`finding: ${fmt.int(posts)} posts on ${database.describe}`);
  const migrating = await startService(database.url, 'service (migrations)');
  await migrating.stop();
  const started = Date.now();
  await loadInto(database.url, posts);
  const loadMs = Date.now() - started;
  log(`  loaded in ${(loadMs / 1000).toFixed(1)} s`);
  const service = await startService(database.url, 'service');
  const target = { name: 'service', url: service.url, pid: service.child.pid };
  const scenarios = scenarioList(posts);
  const results = {};
  try {
    for (const scenario of scenarios) {
      const response = await send(service.url, scenario.request(mulberry32(1), 0, 'service'));
      if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status} ${String(response.body).slice(0, 300)}`);
    }
    let seed = 1000;
    if (options.warmup > 0) for (const scenario of scenarios) await cannon(scenario, target, options.warmup, seed++, options.connections);
    const rounds = new Map(scenarios.map((scenario) => [scenario.id, []]));
    for (let round = 1; round <= options.rounds; round++) {
      for (const scenario of scenarios) {
        const result = await measureRound(scenario, target, options, seed++);
        rounds.get(scenario.id).push(result);
        log(`  round ${round} ${scenario.name.padEnd(48)} ${fmt.int(result.reqPerSec).padStart(7)} req/s  p50 ${fmt.ms(result.p50)} ms  p99 ${fmt.ms(result.p99)} ms  errors ${result.errors}`);
      }
    }
    for (const scenario of scenarios) results[scenario.id] = { ...summarize(rounds.get(scenario.id), target, options), connections: options.connections };
  } finally {
    await service.stop();
    cleanups.splice(cleanups.indexOf(dropDatabase), 1);
    await dropDatabase();
  }
  return { posts, database: database.kind, loadMs, results };
}

/** Milliseconds per request of one client: with C clients each waits C / (req/s). */
const meanMs = (result, connections = result.connections) => (1000 * connections) / result.reqPerSec;

function renderMarkdown(report, scenarios) {
  const sizes = report.sizes;
  const smallest = sizes[0];
  const largest = sizes[sizes.length - 1];
  const lines = [`# Finding content: ${sizes.map((size) => fmt.int(size.posts)).join(' vs ')} posts (${smallest.database})`, ''];
  lines.push(`- ${report.machine.cores} × ${report.machine.cpu}, Node ${report.machine.node}; ${report.options.connections} connections, ${report.options.rounds} round(s) of ${report.options.duration} s`);
  lines.push('');
  lines.push(`| Scenario | ${sizes.map((size) => `${fmt.int(size.posts)}: req/s · mean · p99 ms`).join(' | ')} | mean ratio | p99 ratio |`);
  lines.push(`|---|${sizes.map(() => '---:').join('|')}|---:|---:|`);
  for (const scenario of scenarios) {
    const cells = sizes.map((size) => {
      const r = size.results[scenario.id];
      return `${fmt.int(r.reqPerSec)} · ${(meanMs(r)).toFixed(2)} · ${fmt.ms(r.p99)}`;
    });
    const ratio = report.ratios[scenario.id];
    lines.push(`| ${scenario.name} | ${cells.join(' | ')} | ${ratio.mean.toFixed(2)} | ${ratio.p99.toFixed(2)} |`);
  }
  lines.push('', `Ratios: ${fmt.int(largest.posts)} posts over ${fmt.int(smallest.posts)}. Mean latency: the time per request of --connections clients (1 / req/s per client), finer than autocannon's whole-millisecond percentiles; a p99 of 0 ms counts as 1 ms.`);
  for (const note of report.notes) lines.push(`- ${note}`);
  return lines.join('\n');
}

async function main() {
  let options;
  try {
    options = readOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    log(`${error.message}\n\n${HELP}`);
    return 2;
  }
  if (options.help) {
    out(HELP);
    return 0;
  }
  setTimeout(() => void abort(`timed out after ${options.timeoutMin} min`, 1), options.timeoutMin * 60_000).unref();
  if (!existsSync(SERVICE_ENTRY)) {
    log(`${path.relative(ROOT, SERVICE_ENTRY)} is missing: run \`npm run build\` first (\`npm run bench:finding\` does).`);
    return 1;
  }
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'blog-finding-'));
  cleanups.push(() => (options.keep ? log(`kept ${tempDir}`) : rm(tempDir, { recursive: true, force: true })));
  const report = { startedAt: new Date().toISOString(), machine: machine(), git: gitState(), options: { ...options, database: options.database ? 'postgres' : 'sqlite' }, sizes: [], notes: [] };
  for (const posts of options.sizes) report.sizes.push(await measureSize(options, posts, tempDir));

  const scenarios = scenarioList(options.sizes[0]);
  const smallest = report.sizes[0];
  const largest = report.sizes[report.sizes.length - 1];
  report.ratios = Object.fromEntries(
    scenarios.map((scenario) => {
      const small = smallest.results[scenario.id];
      const large = largest.results[scenario.id];
      return [scenario.id, { mean: meanMs(large) / meanMs(small), p99: Math.max(large.p99, 1) / Math.max(small.p99, 1) }];
    }),
  );
  const over = scenarios.filter((scenario) => report.ratios[scenario.id].mean > options.maxRatio);
  const failed = report.sizes.some((size) => Object.values(size.results).some((result) => result.errors > 0));
  if (over.length > 0) report.notes.push(`mean latency ratio above ${options.maxRatio}: ${over.map((scenario) => scenario.name).join(', ')}`);
  if (failed) report.notes.push('Some requests failed (see bench/results/finding.json).');
  report.finishedAt = new Date().toISOString();
  out(renderMarkdown(report, scenarios));
  await mkdir(path.dirname(options.out), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(report, null, 2)}\n`);
  log(`\nfinding: results in ${path.relative(process.cwd(), options.out) || options.out}`);
  return over.length === 0 && !failed ? 0 : 1;
}

runScript('finding', main);
