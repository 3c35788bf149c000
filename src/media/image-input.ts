import type { SharpOptions, Sharp } from 'sharp';
import { loadSharp } from './sharp.js';
import type { MediaStorage } from './storage/media-storage.js';

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
