import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { S3MediaStorageOptions } from '../../src/media/storage/s3-media-storage.js';

/**
 * A real S3-compatible server on loopback for a spec: s3rver, with one bucket `media`, keeping
 * its objects in a temporary directory, taking any request signed with its key `S3RVER`.
 *
 * It runs in a child process of its own, started with `--openssl-legacy-provider`: s3rver makes
 * its ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only has in that provider
 * (without it every second page is a 500). The child exits when its stdin closes, so it does not
 * outlive the spec even if the spec is killed.
 */
export async function startS3Store(): Promise<{ options: S3MediaStorageOptions; stop(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD, directory], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const port = await portOf(child);
    return {
      options: {
        endpoint: `http://127.0.0.1:${port}`,
        bucket: 'media',
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      },
      async stop() {
        await stopChild(child);
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopChild(child);
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

const CHILD = `
const S3rver = require('s3rver');
const server = new S3rver({
  port: 0, address: '127.0.0.1', silent: true, directory: process.argv[1],
  configureBuckets: [{ name: 'media' }],
});
server.run().then((address) => console.log(JSON.stringify({ port: address.port })));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

async function portOf(child: ChildProcess): Promise<number> {
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`s3rver exited (${String(code)}) before it listened`);
  });
  const listening = (async () => {
    for await (const line of lines) {
      const parsed = JSON.parse(line) as { port?: number };
      if (typeof parsed.port === 'number') return parsed.port;
    }
    throw new Error('s3rver closed its output before it listened');
  })();
  return Promise.race([listening, exited]);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin?.end();
  await exited;
}
