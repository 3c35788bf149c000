import type { Readable } from 'node:stream';

/** What a stored object is: its size in bytes and a validator that changes whenever its bytes do. */
export interface StoredObject {
  size: number;
  etag: string;
}

/** A byte range to read, both ends inclusive (RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where media files live (CONTRACT §14): `filesystem` (one instance, MEDIA_DIR) or `s3` (any
 * S3-compatible store that several instances share). Keys are the service's own
 * (`media/{id}/original`, `media/{id}/{variant}.webp`): never a name a client chose. Every
 * method streams; none holds a whole file in memory.
 */
export abstract class MediaStorage {
  /**
   * Writes the stream under `key` and resolves once it is stored whole. A failed or aborted
   * stream leaves nothing under `key` (the driver writes to a temporary name first, or aborts
   * the multipart upload). Overwrites an object of the same key.
   */
  abstract put(key: string, body: Readable, contentType: string): Promise<StoredObject>;

  /** The object's size and validator; null when there is none. */
  abstract stat(key: string): Promise<StoredObject | null>;

  /** The object's bytes (or one range of them); null when there is none. */
  abstract read(key: string, range?: ByteRange): Promise<Readable | null>;

  /**
   * Moves an object to another key (overwriting one there) and answers what it now is; null when
   * there is none under `from`. This default streams it across; the drivers do it in place.
   */
  async move(from: string, to: string, contentType: string): Promise<StoredObject | null> {
    const body = await this.read(from);
    if (!body) return null;
    const stored = await this.put(to, body, contentType);
    await this.delete(from);
    return stored;
  }

  /** Deletes the object; nothing happens when there is none. */
  abstract delete(key: string): Promise<void>;

  /** Keys under `prefix` (for the sweep of orphans), with when each was last written. */
  abstract list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }>;

  /**
   * For a writer that writes a file itself (libvips): it writes at a temporary path, which then
   * becomes the object under `key` (a failed write leaves nothing). Null when the driver keeps
   * no files (s3): the bytes are `put` as a stream then.
   */
  putFile(_key: string, _write: (path: string) => Promise<unknown>): Promise<StoredObject> | null {
    return null;
  }

  /**
   * The object's file on this machine, when the driver keeps one (filesystem): an image decoder
   * reads a file as it goes, where a stream it must first hold whole. Null otherwise (s3).
   */
  localPath(_key: string): string | null {
    return null;
  }
}
