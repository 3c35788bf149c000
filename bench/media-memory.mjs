/**
 * `node bench/media-memory.mjs` (after `npm run build`): issue 40's memory bound on uploads. The
 * production build starts on a fresh SQLite file with its own MEDIA_DIR; once idle its RSS is read
 * (VmRSS of /proc/<pid>/status); then --uploads clients (20) each upload one --mb MiB JPEG (20, a
 * noise image made by sharp) at the same time, as raw image/jpeg bodies, while the RSS is sampled
 * every 50 ms. It prints the idle RSS, the peak while the uploads are answered and that peak above
 * idle, the answers by status, and then the peak above idle until every variant is made
 * (`withVariantsAboveIdleMb`: the background work that follows, which shares the uploads'
 * MEDIA_CONCURRENCY slots).
 *
 *   --uploads <n>  concurrent uploads (20)     --mb <n>  size of each file in MiB (20)
 */
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { SERVICE_ENV, SERVICE_NODE_FLAGS, out } from './shared.mjs';

const { fetch } = globalThis;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { uploads: { type: 'string', default: '20' }, mb: { type: 'string', default: '20' } } });
const uploads = Number(values.uploads);
const megabytes = Number(values.mb);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const rssMb = async (pid) => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** A JPEG of about `megabytes` MiB: noise does not compress (about 1.3 bytes a pixel at quality 100). */
async function bigJpeg() {
  const side = Math.round(Math.sqrt((megabytes * 1024 * 1024) / 1.3));
  const raw = Buffer.alloc(side * side * 3);
  for (let index = 0; index < raw.length; index++) raw[index] = (index * 2654435761) >>> 24;
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 100 }).toBuffer();
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'media-memory-'));
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
    DATABASE_URL: `sqlite:${path.join(dir, 'blog.sqlite')}`,
    ADMIN_EMAIL: 'bench@example.com',
    ADMIN_PASSWORD: 'bench-password',
    MEDIA_DIR: path.join(dir, 'media'),
    MEDIA_MAX_BYTES: String(megabytes * 1024 * 1024 + 1024 * 1024),
    MEDIA_MAX_PIXELS: '100000000',
    RATE_LIMIT_MAX: '0',
    RATE_LIMIT_UPLOADS_MAX: '0',
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
  const token = (await (await fetch(`${url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password' }) })).json()).accessToken;
  const file = await bigJpeg();
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
  const statuses = await Promise.all(
    Array.from({ length: uploads }, () =>
      fetch(`${url}/media`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/jpeg' }, body: file }).then((response) => response.status),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  const uploadPeak = peak;
  // Every item has all four default variants (the image is wider than 1920): wait for them.
  for (let tries = 0; tries < 600; tries++) {
    const items = await (await fetch(`${url}/media?limit=100`, { headers: { authorization: `Bearer ${token}` } })).json();
    if (items.length >= uploads && items.every((item) => item.variants.length === 4)) break;
    await sleep(200);
  }
  sampling = false;
  await sampler;
  const byStatus = {};
  for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
  out(JSON.stringify({ uploads, fileMiB: +(file.length / 1048576).toFixed(1), idleRssMb: +idle.toFixed(1), peakRssMb: +uploadPeak.toFixed(1), aboveIdleMb: +(uploadPeak - idle).toFixed(1), seconds, statuses: byStatus, withVariantsAboveIdleMb: +(peak - idle).toFixed(1) }));
} finally {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}
