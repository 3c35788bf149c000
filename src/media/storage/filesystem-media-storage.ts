import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ByteRange, MediaStorage, type StoredObject } from './media-storage.js';

/** A key the service made: segments of a-z, 0-9, `.`, `_` and `-`, none of them `.` or `..`. */
const SAFE_KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*)(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * MEDIA_STORAGE=filesystem: objects are files under MEDIA_DIR, one per key. A put streams into a
 * temporary file beside its target and renames it into place once whole (a rename within one
 * directory is atomic), so a reader never sees half a file and a failed write leaves only the
 * temporary file, which is removed. The ETag is the file's size and modification time.
 */
export class FilesystemMediaStorage extends MediaStorage {
  private readonly root: string;

  constructor(directory: string) {
    super();
    this.root = resolve(directory);
  }

  put(key: string, body: Readable, _contentType: string): Promise<StoredObject> {
    return this.putFile(key, (temporary) => pipeline(body, createWriteStream(temporary, { flags: 'wx' })));
  }

  /** A rename: atomic, and no byte is copied (MEDIA_DIR is one file system). */
  override async move(from: string, to: string): Promise<StoredObject | null> {
    const path = this.pathOf(to);
    await mkdir(dirname(path), { recursive: true });
    try {
      await rename(this.pathOf(from), path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return this.stat(to);
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const info = await stat(this.pathOf(key));
      if (!info.isFile()) return null;
      return { size: info.size, etag: `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"` };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const path = this.pathOf(key);
    if (!(await this.stat(key))) return null;
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const start = prefix === '' ? this.root : this.pathOf(prefix.replace(/\/+$/, ''));
    yield* this.walk(start);
  }

  private async *walk(directory: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        yield* this.walk(path);
      } else if (entry.isFile()) {
        const info = await stat(path).catch(() => null);
        if (info) yield { key: relative(this.root, path).split(sep).join('/'), modifiedAt: info.mtime };
      }
    }
  }

  override async putFile(key: string, write: (path: string) => Promise<unknown>): Promise<StoredObject> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.part`;
    try {
      await write(temporary);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    const stored = await this.stat(key);
    if (!stored) throw new Error(`The object ${key} vanished as it was written`);
    return stored;
  }

  override localPath(key: string): string {
    return this.pathOf(key);
  }

  /** The file of a key; a key that is absolute, climbs (`..`) or holds anything but safe characters is refused. */
  private pathOf(key: string): string {
    if (isAbsolute(key) || !SAFE_KEY.test(key) || key.split('/').some((segment) => segment === '.' || segment === '..')) {
      throw new Error(`Not a media storage key: ${JSON.stringify(key)}`);
    }
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`Not a media storage key: ${JSON.stringify(key)}`);
    return path;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
