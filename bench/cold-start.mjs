/**
 * Start-up and memory of the production build on an existing database (issue 43: cold start
 * <= 1.0 s, idle RSS <= 130 MB, on Node 20 and on Node 24):
 *
 *  - cold start: spawn `node dist/src/main.js` (the bench's env) → first 200 on GET /health;
 *    one unmeasured start first (the page cache, Node's compile cache), then the median of `runs`;
 *  - idle RSS: one more start, a few requests (REST, GraphQL), 2 s idle, VmRSS of /proc/<pid>/status;
 *  - modules: one more start with test/support/module-recorder.mjs (`--import`), the distinct
 *    files (ES modules and CommonJS, node_modules and dist; Node's built-ins not counted) loaded
 *    once /health answers. Measured apart: the recorder's loader thread slows the start.
 *
 * The scenario `cold-start` of bench/run.mjs (`--scenarios cold-start`) sets report.coldStart.
 * As a script: `node bench/cold-start.mjs [--runs 5] [--database postgres://…] [--node 24]` (after
 * `npm run build`) makes its own database with the bench dataset and prints the figures; with
 * --node N the service runs on Node N (installed once under the temp dir, bench/peer.mjs).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_SIZES, loadDataset } from './dataset.mjs';
import { POST_PAGE_QUERY, checkDatabaseFlag, log, numericFlags, out } from './shared.mjs';
// A cycle (run.mjs imports this file): only used inside functions, after both have loaded.
import { THIS_NODE, cleanups, cpuMicros, prepareDatabase, rssMb, runScript, send, startService } from './run.mjs';
import { installNode } from './peer.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDER = path.join(ROOT, 'test', 'support', 'module-recorder.mjs');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** What a first visitor does: the list, a post, its comments, the GraphQL post page. */
async function someRequests(url) {
  const requests = [
    { method: 'GET', path: '/health' },
    { method: 'GET', path: '/posts' },
    { method: 'GET', path: '/posts/1' },
    { method: 'GET', path: '/posts/1/comments' },
    { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: POST_PAGE_QUERY, variables: { id: 1 } }) },
  ];
  for (const request of requests) {
    const response = await send(url, request);
    if (response.status !== 200) throw new Error(`${request.method} ${request.path} answered HTTP ${response.status}: ${response.body.slice(0, 200)}`);
  }
}

/** Distinct files in a module-recorder list (a file can be recorded by both of its hooks). */
export function countModules(text) {
  const files = new Set(
    text
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => url.replace(/[?#].*$/, '')),
  );
  return files.size;
}

/**
 * Measures on `databaseUrl` (migrated, with data), the service run by `node` (installNode's
 * `{ command, version }`; this Node by default). `extraEnv` is added to the bench's service env.
 * Returns { medianMs, runsMs, cpuMs (median CPU time until ready), idleRssMb, modules, node }.
 */
export async function measureColdStart({ databaseUrl, runs = 5, extraEnv = {}, node = THIS_NODE }) {
  const start = async (label, env = {}) => {
    const service = await startService(databaseUrl, label, { ...extraEnv, ...env }, node);
    return service;
  };
  log(`cold start: ${runs} + 1 starts on ${databaseUrl.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL'}…`);
  const warm = await start('service (cold start, unmeasured)');
  await warm.stop();
  const runsMs = [];
  // CPU time (user + system) of the process until ready: on a busy machine, the wall-clock time
  // mostly says how long it waited for a core; this says how much work the start is.
  const runsCpuMs = [];
  for (let run = 1; run <= runs; run++) {
    const service = await start(`service (cold start ${run})`);
    runsMs.push(Math.round(service.coldStartMs));
    const cpu = await cpuMicros(service.child.pid);
    if (cpu !== null) runsCpuMs.push(Math.round(cpu / 1000));
    await service.stop();
  }

  const idle = await start('service (idle RSS)');
  await someRequests(idle.url);
  await sleep(2000);
  const idleRssMb = await rssMb(idle.child.pid);
  await idle.stop();

  let modules = null;
  if (existsSync(RECORDER)) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blog-modules-'));
    try {
      const file = path.join(dir, 'modules.txt');
      const recorded = await start('service (module count)', { NODE_OPTIONS: `--import=${pathToFileURL(RECORDER).href}`, RECORD_MODULES_TO: file, RECORD_COMMONJS: 'true' });
      modules = countModules(await readFile(file, 'utf8').catch(() => ''));
      await recorded.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const result = { medianMs: median(runsMs), runsMs, cpuMs: runsCpuMs.length > 0 ? median(runsCpuMs) : null, idleRssMb: idleRssMb === null ? null : Math.round(idleRssMb * 10) / 10, modules, node: node.version };
  log(`cold start: median ${result.medianMs} ms (runs ${runsMs.join(', ')} ms; CPU ${result.cpuMs} ms), load average ${os.loadavg()[0].toFixed(1)}, idle RSS ${result.idleRssMb} MB, ${modules ?? 'n/a'} modules (Node ${node.version})`);
  return result;
}

/** The markdown line of bench/run.mjs's report. */
export function coldStartLine(coldStart) {
  if (!coldStart) return null;
  return (
    `- Start-up (existing database, Node ${coldStart.node}): cold start median ${coldStart.medianMs} ms of ${coldStart.runsMs.length} ` +
    `(${coldStart.runsMs.join(', ')} ms; target <= 1,000; CPU time until ready ${coldStart.cpuMs ?? 'n/a'} ms), idle RSS ${coldStart.idleRssMb} MB (target <= 130), ${coldStart.modules ?? 'n/a'} modules loaded`
  );
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: { runs: { type: 'string' }, database: { type: 'string' }, node: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    out('Usage: node bench/cold-start.mjs [--runs N (5)] [--database postgres://user@host:port/db] [--node MAJOR (this Node)]   (after npm run build)');
    return 0;
  }
  checkDatabaseFlag(values.database);
  const runs = numericFlags(values).integer('runs', 5, 1, 50);
  const node = await installNode(numericFlags(values).integer('node', Number(process.versions.node.split('.')[0]), 20, 99), { cleanups });
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'blog-cold-start-'));
  try {
    const database = await prepareDatabase({ database: values.database, keep: false }, tempDir);
    try {
      const migrating = await startService(database.url, 'service (migrations)', {}, node);
      await migrating.stop();
      await loadDataset(database.url, { ...DEFAULT_SIZES });
      const result = await measureColdStart({ databaseUrl: database.url, runs, node });
      out(coldStartLine(result));
      out(JSON.stringify(result));
    } finally {
      await database.drop();
    }
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runScript('cold start', main);
