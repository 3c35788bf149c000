import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_PART_SIZE, S3MediaStorage } from '../src/media/storage/s3-media-storage.js';
import { describeMediaStorageContract } from './support/media-storage-contract.js';
import { startS3Store } from './support/s3-store.js';

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

async function collectKeys(entries: AsyncIterable<{ key: string }>): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of entries) keys.push(entry.key);
  return keys;
}
