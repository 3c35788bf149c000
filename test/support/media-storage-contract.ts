import { createCipheriv, createHash, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaStorage } from '../../src/media/storage/media-storage.js';

/**
 * What every MediaStorage driver must do (CONTRACT §14, "Storage"), run against a real store:
 *
 *   describeMediaStorageContract('filesystem', async () => ({ storage, cleanup: () => rm(dir) }));
 *
 * `make` runs once for the suite; each test writes under its own fresh prefix, so the store may
 * be shared and need not start empty. Keys are of the kind the service makes (segments of
 * letters, digits, `.`, `_`, `-`), and every listed prefix ends in `/`.
 */
export function describeMediaStorageContract(
  name: string,
  make: () => Promise<{ storage: MediaStorage; cleanup(): Promise<void> }>,
): void {
  describe(`MediaStorage contract: ${name}`, () => {
    let storage: MediaStorage;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ storage, cleanup } = await make());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    /** A prefix no other test writes under. */
    const fresh = (): string => `contract/${randomUUID()}`;

    it('stores a body and gives back its size, a validator and its bytes', async () => {
      const key = `${fresh()}/original`;
      const bytes = pseudoRandom(1000);
      const put = await storage.put(key, Readable.from([bytes]), 'image/png');
      expect(put.size).toBe(1000);
      expect(put.etag).toEqual(expect.any(String));
      expect(put.etag.length).toBeGreaterThan(0);
      expect(await storage.stat(key)).toEqual({ size: 1000, etag: put.etag });
      expect(await readAll(await storage.read(key))).toEqual(bytes);
    });

    it('reads the first byte, the last byte, a middle range and the whole as a range', async () => {
      const key = `${fresh()}/original`;
      const bytes = pseudoRandom(4096);
      await storage.put(key, Readable.from([bytes]), 'image/png');
      expect(await readAll(await storage.read(key, { start: 0, end: 0 }))).toEqual(bytes.subarray(0, 1));
      expect(await readAll(await storage.read(key, { start: 4095, end: 4095 }))).toEqual(bytes.subarray(4095));
      expect(await readAll(await storage.read(key, { start: 100, end: 2099 }))).toEqual(bytes.subarray(100, 2100));
      expect(await readAll(await storage.read(key, { start: 0, end: 4095 }))).toEqual(bytes);
    });

    it('moves an object to another key (over one there): the bytes under the new key, none under the old; a missing one is null', async () => {
      const prefix = fresh();
      const bytes = pseudoRandom(3000);
      await storage.put(`${prefix}/tmp.clean`, Readable.from([bytes]), 'image/png');
      await storage.put(`${prefix}/original`, Readable.from([pseudoRandom(10)]), 'image/png');
      const moved = await storage.move(`${prefix}/tmp.clean`, `${prefix}/original`, 'image/png');
      expect(moved?.size).toBe(3000);
      expect(await storage.stat(`${prefix}/original`)).toEqual(moved);
      expect(await readAll(await storage.read(`${prefix}/original`))).toEqual(bytes);
      expect(await storage.stat(`${prefix}/tmp.clean`)).toBeNull();
      expect(await storage.move(`${prefix}/tmp.clean`, `${prefix}/other`, 'image/png')).toBeNull();
      expect(await storage.stat(`${prefix}/other`)).toBeNull();
    });

    it('putFile, where the driver offers it, makes the written file the object; a failed write leaves nothing', async () => {
      const key = `${fresh()}/w320.webp`;
      const bytes = pseudoRandom(2000);
      const direct = storage.putFile(key, (path) => writeFile(path, bytes));
      if (direct === null) return expect(storage.localPath(key)).toBeNull();
      expect((await direct).size).toBe(2000);
      expect(await readAll(await storage.read(key))).toEqual(bytes);
      const failed = `${fresh()}/w768.webp`;
      await expect(storage.putFile(failed, async (path) => {
        await writeFile(path, bytes);
        throw new Error('the encoder failed');
      })).rejects.toThrow('the encoder failed');
      expect(await storage.stat(failed)).toBeNull();
      expect(await storage.list(failed.slice(0, failed.lastIndexOf('/') + 1))[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    });

    it('stores an empty body', async () => {
      const key = `${fresh()}/original`;
      const put = await storage.put(key, Readable.from([]), 'image/png');
      expect(put.size).toBe(0);
      expect((await storage.stat(key))?.size).toBe(0);
      expect((await readAll(await storage.read(key))).length).toBe(0);
    });

    it('streams a 25 MiB body in and out unchanged, and reads ranges deep inside it', async () => {
      const key = `${fresh()}/original`;
      const size = 25 * 1024 * 1024;
      const body = generated(size);
      const put = await storage.put(key, body.stream, 'image/jpeg');
      expect(put.size).toBe(size);
      expect(await storage.stat(key)).toEqual({ size, etag: put.etag });
      const stored = await storage.read(key);
      expect(await sha256(stored)).toBe(body.sha256());
      // Around 8 MiB and 16 MiB (where multipart drivers cut their parts) and the last bytes.
      const whole = generatedBytes(size);
      for (const range of [
        { start: 8 * 1024 * 1024 - 10, end: 8 * 1024 * 1024 + 9 },
        { start: 16 * 1024 * 1024 - 1, end: 16 * 1024 * 1024 },
        { start: size - 3, end: size - 1 },
      ]) {
        expect(await readAll(await storage.read(key, range))).toEqual(whole.subarray(range.start, range.end + 1));
      }
    });

    it('overwrites an object of the same key', async () => {
      const key = `${fresh()}/original`;
      const first = await storage.put(key, Readable.from([pseudoRandom(500, 1)]), 'image/png');
      const replacement = pseudoRandom(700, 2);
      const second = await storage.put(key, Readable.from([replacement]), 'image/webp');
      expect(second.size).toBe(700);
      expect(second.etag).not.toBe(first.etag);
      expect(await storage.stat(key)).toEqual({ size: 700, etag: second.etag });
      expect(await readAll(await storage.read(key))).toEqual(replacement);
    });

    it('deletes an object, and deleting one that is not there does nothing', async () => {
      const prefix = fresh();
      const key = `${prefix}/original`;
      await storage.put(key, Readable.from([pseudoRandom(10)]), 'image/png');
      await storage.delete(key);
      expect(await storage.stat(key)).toBeNull();
      expect(await storage.read(key)).toBeNull();
      await expect(storage.delete(key)).resolves.toBeUndefined();
      await expect(storage.delete(`${prefix}/never-written`)).resolves.toBeUndefined();
      expect(await listed(storage, `${prefix}/`)).toEqual([]);
    });

    it('answers null for a key that was never written, whole or ranged', async () => {
      const key = `${fresh()}/missing`;
      expect(await storage.stat(key)).toBeNull();
      expect(await storage.read(key)).toBeNull();
      expect(await storage.read(key, { start: 0, end: 9 })).toBeNull();
    });

    it('lists the keys under a prefix, at any depth, and none beside it', async () => {
      const base = fresh();
      const keys = [`${base}/media/1/original`, `${base}/media/1/w320.webp`, `${base}/media/2/original`];
      for (const key of [...keys, `${base}/media-other/1/original`, `${base}/other/media/1/original`]) {
        await storage.put(key, Readable.from([pseudoRandom(16)]), 'image/png');
      }
      const entries = await collect(storage.list(`${base}/media/`));
      expect(entries.map((entry) => entry.key).sort()).toEqual(keys);
      for (const entry of entries) {
        expect(entry.modifiedAt).toBeInstanceOf(Date);
        expect(Number.isNaN(entry.modifiedAt.getTime())).toBe(false);
      }
      expect(await listed(storage, `${base}/media/1/`)).toEqual(keys.slice(0, 2));
      expect(await listed(storage, `${base}/nothing/`)).toEqual([]);
    });

    it('keeps keys with several `/` apart from their neighbours', async () => {
      const base = fresh();
      const deep = `${base}/a/b/c/d.webp`;
      const shallow = `${base}/a/b`;
      await storage.put(deep, Readable.from([Buffer.from('deep')]), 'image/webp');
      expect(await storage.stat(shallow)).toBeNull();
      await storage.put(`${base}/a/b.webp`, Readable.from([Buffer.from('beside')]), 'image/webp');
      expect((await readAll(await storage.read(deep))).toString()).toBe('deep');
      expect(await listed(storage, `${base}/a/b/`)).toEqual([deep]);
    });

    for (const [what, sent] of [
      ['after a few bytes', 1024],
      ['after 12 MiB (beyond a multipart part)', 12 * 1024 * 1024],
    ] as const) {
      it(`leaves no object when the body fails ${what}`, async () => {
        const prefix = fresh();
        const key = `${prefix}/original`;
        await expect(storage.put(key, failing(sent), 'image/png')).rejects.toThrow('the body failed');
        expect(await storage.stat(key)).toBeNull();
        expect(await storage.read(key)).toBeNull();
        expect(await listed(storage, `${prefix}/`)).toEqual([]);
      });
    }

    it('keeps the old object when a body that would replace it fails', async () => {
      const key = `${fresh()}/original`;
      const old = pseudoRandom(300);
      const put = await storage.put(key, Readable.from([old]), 'image/png');
      await expect(storage.put(key, failing(9 * 1024 * 1024), 'image/png')).rejects.toThrow('the body failed');
      expect(await storage.stat(key)).toEqual({ size: 300, etag: put.etag });
      expect(await readAll(await storage.read(key))).toEqual(old);
    });
  });
}

/** Bytes that differ per `seed`, fixed per call. */
function pseudoRandom(size: number, seed = 0): Buffer {
  return keystream(seed).update(Buffer.alloc(size));
}

/** AES-CTR over zeros: a fast, repeatable byte sequence for large bodies. */
function keystream(seed: number) {
  const key = createHash('sha256').update(`media-storage-contract-${seed}`).digest().subarray(0, 16);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
}

const CHUNK = 64 * 1024;

/**
 * A body of `size` bytes made as it is read (never held whole), with the sha256 of what it gave.
 * Its chunks are 64 KiB, so a driver must reassemble them into its own parts.
 */
function generated(size: number): { stream: Readable; sha256(): string } {
  const cipher = keystream(25);
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const chunk = cipher.update(Buffer.alloc(Math.min(CHUNK, size - sent)));
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.copy().digest('hex') };
}

/** The same bytes as `generated(size)`, in one buffer, to compare ranges with. */
function generatedBytes(size: number): Buffer {
  return keystream(25).update(Buffer.alloc(size));
}

/** A body that sends `size` bytes and then fails, as an upload whose client goes away does. */
function failing(size: number): Readable {
  const cipher = keystream(7);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.destroy(new Error('the body failed half-way'));
        return;
      }
      const chunk = cipher.update(Buffer.alloc(Math.min(CHUNK, size - sent)));
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

async function readAll(stream: Readable | null): Promise<Buffer> {
  expect(stream).not.toBeNull();
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function sha256(stream: Readable | null): Promise<string> {
  expect(stream).not.toBeNull();
  const hash = createHash('sha256');
  for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function listed(storage: MediaStorage, prefix: string): Promise<string[]> {
  return (await collect(storage.list(prefix))).map((entry) => entry.key).sort();
}
