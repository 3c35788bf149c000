import type { OutputInfo, SharpOptions, Sharp } from 'sharp';
import { loadSharp } from './sharp.js';
import type { MediaStorage, StoredObject } from './storage/media-storage.js';

/** A sharp pipeline over a stored object, and how to stop feeding it. */
export interface ImageInput {
  image: Sharp;
  abort(): void;
}

/**
 * A sharp pipeline reading a stored object: from its file when the storage keeps one (libvips
 * then reads it as it decodes, holding no copy of the file), else streamed in (sharp gathers a
 * stream whole before it decodes). Null when there is no such object.
 */
export async function imageInput(storage: MediaStorage, key: string, options: SharpOptions): Promise<ImageInput | null> {
  const sharp = await loadSharp();
  const path = storage.localPath(key);
  if (path !== null) {
    if (!(await storage.stat(key))) return null;
    return { image: sharp(path, options), abort: () => undefined };
  }
  const stream = await storage.read(key);
  if (!stream) return null;
  const image = sharp(options);
  stream.on('error', (error) => image.destroy(error));
  stream.pipe(image);
  return { image, abort: () => stream.destroy() };
}

/**
 * Writes what a sharp pipeline makes under `key`: straight to its file when the storage keeps
 * files (libvips writes as it encodes), else as a stream (sharp gathers the whole output first).
 */
export async function writeImage(storage: MediaStorage, key: string, image: Sharp, contentType: string): Promise<{ stored: StoredObject; info: OutputInfo }> {
  let info: OutputInfo | undefined;
  const direct = storage.putFile(key, async (path) => (info = await image.toFile(path)));
  if (direct) {
    const stored = await direct;
    return { stored, info: info! };
  }
  image.on('info', (output: OutputInfo) => (info = output));
  const stored = await storage.put(key, image, contentType);
  if (!info) throw new Error('sharp gave no output information');
  return { stored, info };
}
