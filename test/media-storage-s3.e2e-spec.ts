import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_PART_SIZE, S3MediaStorage } from '../src/media/storage/s3-media-storage.js';
import { describeMediaStorageContract } from './support/media-storage-contract.js';
import { startS3Store } from './support/s3-store.js';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The S3 driver against a real S3-compatible server on loopback (s3rver, see ./support/s3-store.ts). */
describeMediaStorageContract('s3 (s3rver)', async () => {
  const store = await startS3Store();
  const storage = new S3MediaStorage(store.options);
  return {
    storage,
    async cleanup() {
      storage.close();
      await store.stop();
    },
  };
});

describe('S3MediaStorage beyond the contract (s3rver)', () => {
  let store: Awaited<ReturnType<typeof startS3Store>>;
  beforeAll(async () => {
    store = await startS3Store();
  });
  afterAll(async () => {
    await store.stop();
  });

  it('follows ListObjectsV2 across pages', async () => {
    const storage = new S3MediaStorage({ ...store.options, listPageSize: 2 });
    try {
      const keys = ['paged/1/original', 'paged/2/original', 'paged/3/original', 'paged/4/original', 'paged/5/original'];
      for (const key of keys) await storage.put(key, Readable.from([Buffer.from(key)]), 'image/png');
      expect((await collectKeys(storage.list('paged/'))).sort()).toEqual(keys);
    } finally {
      storage.close();
    }
  });

  for (const [what, size] of [
    ['one byte short of a part (one PutObject)', S3_PART_SIZE - 1],
    ['exactly one part', S3_PART_SIZE],
    ['one byte past a part (a last part of one byte)', S3_PART_SIZE + 1],
    ['exactly two parts', 2 * S3_PART_SIZE],
  ] as const) {
    it(`stores a body of ${what} unchanged`, async () => {
      const storage = new S3MediaStorage(store.options);
      try {
        const bytes = Buffer.alloc(size);
        for (let i = 0; i + 4 <= size; i += 4096) bytes.writeUInt32BE(i, i);
        const key = `edges/${size}/original`;
        // Chunks of an odd size, so that part boundaries fall inside them.
        const chunks = function* () {
          for (let i = 0; i < size; i += 100_003) yield bytes.subarray(i, i + 100_003);
        };
        const put = await storage.put(key, Readable.from(chunks()), 'image/png');
        expect(put.size).toBe(size);
        expect((await storage.stat(key))?.size).toBe(size);
        const hash = createHash('sha256');
        for await (const chunk of (await storage.read(key)) as AsyncIterable<Buffer>) hash.update(chunk);
        expect(hash.digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
      } finally {
        storage.close();
      }
    });
  }

  it('answers a store that is not there with an error, not a null', async () => {
    const storage = new S3MediaStorage({ ...store.options, endpoint: 'http://127.0.0.1:9', bucket: 'media' });
    try {
      await expect(storage.stat('media/1/original')).rejects.toThrow();
      await expect(storage.read('media/1/original')).rejects.toThrow();
    } finally {
      storage.close();
    }
  });

  it('answers a bucket that does not exist with an error, not a null', async () => {
    const storage = new S3MediaStorage({ ...store.options, bucket: 'no-such-bucket' });
    try {
      await expect(storage.read('media/1/original')).rejects.toThrow(expect.objectContaining({ name: 'NoSuchBucket' }));
      await expect(storage.put('media/1/original', Readable.from([Buffer.from('x')]), 'image/png')).rejects.toThrow();
      await expect(storage.delete('media/1/original')).rejects.toThrow();
      await expect(collectKeys(storage.list('media/'))).rejects.toThrow();
    } finally {
      storage.close();
    }
  });
});

describe('S3MediaStorage against a store that misbehaves (s3rver behind a recording proxy)', () => {
  let store: Awaited<ReturnType<typeof startS3Store>>;
  let proxy: RecordingProxy;
  beforeAll(async () => {
    store = await startS3Store();
    proxy = await RecordingProxy.start(store.options.endpoint!);
  });
  afterAll(async () => {
    await proxy.stop();
    await store.stop();
  });

  it('cuts the asked range from a store that ignores Range and sends the whole object', async () => {
    const storage = new S3MediaStorage({ ...store.options, endpoint: proxy.url });
    try {
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await storage.put('ignored-range/1/original', Readable.from([bytes]), 'image/png');
      proxy.ignoreRange = true;
      for (const range of [
        { start: 0, end: 0 },
        { start: 17, end: 200 },
        { start: 255, end: 255 },
      ]) {
        const chunks: Buffer[] = [];
        for await (const chunk of (await storage.read('ignored-range/1/original', range)) as AsyncIterable<Buffer>) chunks.push(chunk);
        expect(Buffer.concat(chunks)).toEqual(bytes.subarray(range.start, range.end + 1));
      }
      expect(proxy.requests.at(-1)?.method).toBe('GET');
    } finally {
      proxy.ignoreRange = false;
      storage.close();
    }
  });

  it('reads a big body no further ahead of the store than two parts', async () => {
    const storage = new S3MediaStorage({ ...store.options, endpoint: proxy.url });
    try {
      const total = 40 * 1024 * 1024;
      let produced = 0;
      let furthestAhead = 0;
      const startedAt = proxy.bodyBytes;
      const body = new Readable({
        read() {
          // How much of the body has been read but has not reached the store: what the driver holds.
          furthestAhead = Math.max(furthestAhead, produced - (proxy.bodyBytes - startedAt));
          const chunk = Buffer.alloc(Math.min(64 * 1024, total - produced), 3);
          produced += chunk.length;
          this.push(chunk.length > 0 ? chunk : null);
        },
      });
      const put = await storage.put('bounded/1/original', body, 'image/png');
      expect(put.size).toBe(total);
      expect(proxy.bodyBytes - startedAt).toBe(total);
      expect(furthestAhead).toBeGreaterThanOrEqual(S3_PART_SIZE);
      expect(furthestAhead).toBeLessThanOrEqual(2 * S3_PART_SIZE);
    } finally {
      storage.close();
    }
  });

  it('aborts the multipart upload when the body fails, and sends no completion', async () => {
    const storage = new S3MediaStorage({ ...store.options, endpoint: proxy.url });
    try {
      proxy.requests.length = 0;
      const body = failingAfter(S3_PART_SIZE + 1024);
      await expect(storage.put('aborted/1/original', body, 'image/png')).rejects.toThrow('the body failed');
      const started = proxy.requests.find((seen) => seen.method === 'POST' && seen.query.has('uploads'));
      expect(started).toBeDefined();
      const uploadId = proxy.requests.find((seen) => seen.method === 'PUT' && seen.query.has('uploadId'))?.query.get('uploadId');
      expect(uploadId).toEqual(expect.any(String));
      expect(proxy.requests.filter((seen) => seen.method === 'DELETE').map((seen) => [seen.path, seen.query.get('uploadId')])).toEqual([
        ['/media/aborted/1/original', uploadId],
      ]);
      expect(proxy.requests.some((seen) => seen.method === 'POST' && seen.query.has('uploadId'))).toBe(false);
      expect(await storage.stat('aborted/1/original')).toBeNull();
    } finally {
      storage.close();
    }
  });

  it('aborts when the store refuses a part, stops reading the body and leaves no object', async () => {
    const storage = new S3MediaStorage({ ...store.options, endpoint: proxy.url });
    try {
      proxy.requests.length = 0;
      proxy.refuse = (seen) => seen.method === 'PUT' && seen.query.get('partNumber') === '2';
      let produced = 0;
      const total = 4 * S3_PART_SIZE;
      const body = new Readable({
        read() {
          const chunk = Buffer.alloc(Math.min(64 * 1024, total - produced), 1);
          produced += chunk.length;
          this.push(chunk.length > 0 ? chunk : null);
        },
      });
      await expect(storage.put('refused/1/original', body, 'image/png')).rejects.toThrow();
      expect(body.destroyed).toBe(true);
      expect(produced).toBeLessThan(total);
      expect(proxy.requests.filter((seen) => seen.method === 'DELETE' && seen.query.has('uploadId'))).toHaveLength(1);
      expect(await storage.stat('refused/1/original')).toBeNull();
    } finally {
      proxy.refuse = () => false;
      storage.close();
    }
  });
});

/** A body that sends `size` bytes and then fails. */
function failingAfter(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.destroy(new Error('the body failed half-way'));
        return;
      }
      const chunk = Buffer.alloc(Math.min(64 * 1024, size - sent), 2);
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

/**
 * An HTTP proxy in front of the store that records each request's method, path and query, and
 * answers the ones `refuse` picks with a 400 error of S3's own shape (which the SDK does not retry).
 * The SDK signs with SigV4, which s3rver does not check, so the proxy may change headers.
 */
class RecordingProxy {
  readonly requests: SeenRequest[] = [];
  refuse: (seen: SeenRequest) => boolean = () => false;
  /** Bytes of PUT bodies (objects and parts) that reached the proxy so far. */
  bodyBytes = 0;
  /** Drops the Range header of every request, as a store that does not do ranges would. */
  ignoreRange = false;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<RecordingProxy> {
    const holder: { proxy?: RecordingProxy } = {};
    const server = createServer((incoming, outgoing) => holder.proxy!.forward(incoming, outgoing, new URL(target)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    holder.proxy = new RecordingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return holder.proxy;
  }

  private forward(incoming: IncomingMessage, outgoing: ServerResponse, target: URL): void {
    const url = new URL(incoming.url ?? '/', 'http://proxy');
    const seen = { method: incoming.method ?? 'GET', path: decodeURIComponent(url.pathname), query: url.searchParams };
    this.requests.push(seen);
    if (this.refuse(seen)) {
      incoming.resume();
      outgoing.writeHead(400, { 'content-type': 'application/xml' });
      outgoing.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidArgument</Code><Message>refused by the test</Message></Error>');
      return;
    }
    const headers = { ...incoming.headers };
    if (this.ignoreRange) delete headers.range;
    const upstream = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    if (seen.method === 'PUT') incoming.on('data', (chunk: Buffer) => (this.bodyBytes += chunk.length));
    incoming.pipe(upstream);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

async function collectKeys(entries: AsyncIterable<{ key: string }>): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of entries) keys.push(entry.key);
  return keys;
}

/** The application with MEDIA_STORAGE=s3: an upload, its variants and its deletion go through the bucket. */
describe('media through the application on S3 (s3rver)', () => {
  let store: Awaited<ReturnType<typeof startS3Store>>;
  let app: TestApp;
  let storage: S3MediaStorage;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    store = await startS3Store();
    storage = new S3MediaStorage(store.options);
    // The SDK reads the standard variables, as it would in production.
    process.env.AWS_ACCESS_KEY_ID = store.options.credentials!.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = store.options.credentials!.secretAccessKey;
    app = await startTestApp('sqlite', {
      env: { MEDIA_STORAGE: 's3', S3_ENDPOINT: store.options.endpoint!, S3_BUCKET: store.options.bucket, S3_REGION: store.options.region, S3_FORCE_PATH_STYLE: 'true', MEDIA_VARIANT_WIDTHS: '32' },
    });
  });
  afterAll(async () => {
    await app?.close();
    storage?.close();
    await store?.stop();
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('stores the original and its variant in the bucket, serves them from it, and deletes them with the item', async () => {
    const token = await tokenFor(app, ALICE);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2288aa' } }).png().toBuffer();
    const created = await supertest(app.server).post('/media').set(bearer(token)).set('content-type', 'image/png').set('content-disposition', 'attachment; filename="s3.png"').send(png);
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    const keys = async () => {
      const found: string[] = [];
      for await (const entry of storage.list(`media/${id}/`)) found.push(entry.key);
      return found.sort();
    };
    expect(await keys()).toContain(`media/${id}/original`);
    const file = await supertest(app.server).get(`/media/${id}/file`).set(bearer(token)).buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(file.status).toBe(200);
    expect((await sharp(file.body as Buffer).metadata()).width).toBe(64);
    // The variant worker writes its WebP to the bucket too.
    const deadline = Date.now() + 20_000;
    while ((await keys()).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await keys()).length).toBe(2);
    await supertest(app.server).delete(`/media/${id}`).set(bearer(token)).expect(204);
    expect(await keys()).toEqual([]);
  });
});
