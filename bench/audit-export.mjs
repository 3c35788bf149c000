/**
 * `node bench/audit-export.mjs` (after `npm run build`): issue 42's memory bound on the audit
 * log's export (CONTRACT §16: the resident memory grows by less than 50 MB however large the
 * export). The production build starts on a fresh SQLite file; --entries audit entries (200000)
 * are added to it in one statement (each with a realistic `changes`, address, user agent and
 * request id); once idle the server's RSS is read (VmRSS of /proc/<pid>/status); then GET /audit
 * with `Accept: application/x-ndjson` is read to the end, line by line and thrown away, while
 * the RSS is sampled every 50 ms. It prints the idle RSS, the peak during the export and that
 * peak above idle (`aboveIdleMb`, the figure to keep under 50), the lines and bytes read, and
 * the time. Not a test: a figure.
 *
 *   --entries <n>  audit entries in the log (200000)
 *   --delay <ms>   a slow reader: wait this long after each chunk read (0)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SERVICE_ENV, SERVICE_NODE_FLAGS, out } from './shared.mjs';

const { fetch } = globalThis;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { entries: { type: 'string', default: '200000' }, delay: { type: 'string', default: '0' } } });
const entries = Number(values.entries);
const delay = Number(values.delay);
if (!Number.isInteger(entries) || entries < 1) throw new Error('--entries takes a positive integer');

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const rssMb = async (pid) => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** `entries` rows, one second apart going back from now, in one statement (a recursive CTE). */
function fill(file) {
  const database = new Database(file);
  try {
    database.pragma('busy_timeout = 10000');
    database
      .prepare(
        `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ?)
         INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes, ip, user_agent, request_id)
         SELECT strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || g || ' seconds'), 1 + g % 50, 'token', 'posts.update', 'post', 1 + g % 1000,
           '{"title":{"from":"A title of some length, ' || g || '","to":"Another title of some length, ' || g || '"},"status":{"from":"draft","to":"published"}}',
           '203.0.113.' || (g % 250), 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
           'req-' || hex(randomblob(12))
         FROM s`,
      )
      .run(entries);
  } finally {
    database.close();
  }
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'audit-export-'));
const file = path.join(dir, 'blog.sqlite');
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const service = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(ROOT, 'dist/src/main.js')], {
  env: {
    ...process.env,
    ...SERVICE_ENV,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
    DATABASE_URL: `sqlite:${file}`,
    ADMIN_EMAIL: 'bench@example.com',
    ADMIN_PASSWORD: 'bench-password',
    RATE_LIMIT_MAX: '0',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
try {
  for (let tries = 0; ; tries++) {
    const ok = await fetch(`${url}/health`).then((response) => response.ok, () => false);
    if (ok) break;
    if (tries > 300) throw new Error('the service did not start');
    await sleep(100);
  }
  const filling = Date.now();
  fill(file);
  const fillSeconds = (Date.now() - filling) / 1000;
  const token = (await (await fetch(`${url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password' }) })).json()).accessToken;
  await sleep(2000);
  const idle = await rssMb(service.pid);
  let peak = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssMb(service.pid));
      await sleep(50);
    }
  })();
  const started = Date.now();
  const response = await fetch(`${url}/audit`, { headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' } });
  if (response.status !== 200) throw new Error(`GET /audit answered ${response.status}: ${await response.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.length;
    if (delay > 0) await sleep(delay);
    for (const byte of chunk) if (byte === 10) lines++;
  }
  const seconds = (Date.now() - started) / 1000;
  sampling = false;
  await sampler;
  out(
    JSON.stringify({
      entries,
      delayMs: delay,
      lines,
      exportMb: +(bytes / 1048576).toFixed(1),
      idleRssMb: +idle.toFixed(1),
      peakRssMb: +peak.toFixed(1),
      aboveIdleMb: +(peak - idle).toFixed(1),
      seconds,
      entriesPerSecond: Math.round(lines / seconds),
      fillSeconds,
      contentType: response.headers.get('content-type'),
    }),
  );
  // The sign-in above may have its own entry.
  if (lines < entries) throw new Error(`The export has ${lines} lines, the log at least ${entries} entries`);
} finally {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}
