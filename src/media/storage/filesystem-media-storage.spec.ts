import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeMediaStorageContract } from '../../../test/support/media-storage-contract.js';
import { FilesystemMediaStorage } from './filesystem-media-storage.js';

describeMediaStorageContract('filesystem', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'media-contract-'));
  return { storage: new FilesystemMediaStorage(directory), cleanup: () => rm(directory, { recursive: true, force: true }) };
});

describe('FilesystemMediaStorage', () => {
  let directory: string;
  let storage: FilesystemMediaStorage;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'media-storage-'));
    storage = new FilesystemMediaStorage(directory);
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('puts, stats, reads whole and by range, lists and deletes', async () => {
    const stored = await storage.put('media/1/original', Readable.from([Buffer.from('hello '), Buffer.from('world')]), 'image/png');
    expect(stored.size).toBe(11);
    expect(await storage.stat('media/1/original')).toEqual(stored);
    expect(await text((await storage.read('media/1/original'))!)).toBe('hello world');
    expect(await text((await storage.read('media/1/original', { start: 6, end: 10 }))!)).toBe('world');
    const keys = [];
    for await (const entry of storage.list('media/')) keys.push(entry.key);
    expect(keys).toEqual(['media/1/original']);
    await storage.delete('media/1/original');
    expect(await storage.stat('media/1/original')).toBeNull();
    expect(await storage.read('media/1/original')).toBeNull();
    await storage.delete('media/1/original');
  });

  it('a failed stream leaves nothing behind, not even its temporary file', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put('media/2/original', failing, 'image/png')).rejects.toThrow('client went away');
    expect(await storage.stat('media/2/original')).toBeNull();
    expect(await readdir(join(directory, 'media/2'))).toEqual([]);
  });

  it('overwrites an object of the same key, and its ETag changes with its size', async () => {
    const first = await storage.put('a/b', Readable.from([Buffer.from('one')]), 'image/png');
    const second = await storage.put('a/b', Readable.from([Buffer.from('three')]), 'image/png');
    expect(second.etag).not.toBe(first.etag);
    expect(await text((await storage.read('a/b'))!)).toBe('three');
  });

  it.each(['../escape', '/etc/passwd', 'media/../../x', 'media//x', 'media/./x', '', 'media/x\u0000', 'media\\..\\x', '.hidden'])('refuses the key %j', async (key) => {
    await expect(storage.put(key, Readable.from([Buffer.from('x')]), 'image/png')).rejects.toThrow('Not a media storage key');
    await expect(storage.stat(key)).rejects.toThrow('Not a media storage key');
  });
});
