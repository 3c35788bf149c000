import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { buffer as readWhole } from 'node:stream/consumers';
import type { Metadata, Sharp } from 'sharp';
import { imageInput, writeImage } from './image-input.js';
import { ImageWorkSlots } from './image-work-slots.js';
import { loadSharp } from './sharp.js';
import { DomainError } from '../common/errors/domain-error.js';
import { AppConfig } from '../config/app-config.js';
import { IMAGE_TYPES, type ImageType, SNIFF_BYTES, sniffImageType } from './image-type.js';
import { MediaStorage } from './storage/media-storage.js';

// libvips' operation cache would keep decoded images around after their request: nothing here is decoded twice.

/** Bytes of the stored upload read to find its dimensions from its header (the whole file when it is smaller). */
const HEADER_BYTES = 512 * 1024;

/** An upload received whole into storage and cleaned, not yet a media item: commit it or discard it. */
export interface ReceivedImage {
  mimeType: ImageType;
  width: number;
  height: number;
  size: number;
  /** Where the cleaned copy (metadata stripped) waits to be copied under the item's key. */
  cleanKey: string;
}

export const tooLarge = (max: number) => new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than MEDIA_MAX_BYTES (${max} bytes)`);
const unsupported = (detail: string) => new DomainError('UNSUPPORTED_MEDIA_TYPE', `Not an image this service accepts (JPEG, PNG, GIF, WebP or AVIF): ${detail}`);

/**
 * Counts the bytes that pass and reads the type from the first of them: past `max` bytes, or
 * when the first bytes are no accepted image, it fails (413, 415) and lets no more through.
 */
class IntakeCounter extends Transform {
  count = 0;
  type: ImageType | null = null;
  private head = Buffer.alloc(0);

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.max) return done(tooLarge(this.max));
    if (this.type === null) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, SNIFF_BYTES)]).subarray(0, SNIFF_BYTES);
      if (this.head.length >= SNIFF_BYTES) {
        this.type = sniffImageType(this.head);
        if (this.type === null) return done(unsupported('its bytes are of another type'));
      }
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.type === null) this.type = sniffImageType(this.head);
    if (this.type === null) return done(unsupported(this.count === 0 ? 'the file is empty' : 'its bytes are of another type'));
    done();
  }
}

/** What the header of an upload says: its pixels (all frames), whether it is animated, and whether it needs no turning. */
interface Dimensions {
  pixels: number;
  animated: boolean;
  upright: boolean;
}

/**
 * The intake of an upload (CONTRACT §14): the bytes streamed into storage under a temporary key
 * while counted (413 past MEDIA_MAX_BYTES) and typed by their magic number (415 unless JPEG, PNG,
 * GIF, WebP or AVIF); the dimensions read from the header (413 past MEDIA_MAX_PIXELS, before any
 * pixel is decoded); then the image decoded and encoded again in its own format with sharp,
 * which writes no metadata (EXIF, GPS, XMP, comments) — orientation applied first — into a second
 * temporary key. Whatever fails, what was stored is deleted.
 */
@Injectable()
export class MediaUploadService {
  private readonly logger = new Logger('MediaUpload');
  constructor(
    private readonly storage: MediaStorage,
    private readonly config: AppConfig,
    private readonly slots: ImageWorkSlots,
  ) {}

  /** Receives and cleans one file; the source is read to its end (or left drained) whatever happens. */
  async receive(source: Readable): Promise<ReceivedImage> {
    const rawKey = `tmp/${randomUUID()}`;
    const cleanKey = `${rawKey}.clean`;
    const counter = new IntakeCounter(this.config.mediaMaxBytes);
    // Piped by hand: a refusal stops the counter, not the request (its answer still has to go out).
    source.pipe(counter);
    counter.on('error', () => {
      source.unpipe(counter);
      source.resume();
    });
    source.on('error', (error) => counter.destroy(error));
    try {
      await this.storage.put(rawKey, counter, 'application/octet-stream');
      const type = counter.type!;
      const dimensions = await this.dimensions(rawKey, type, counter.count);
      if (dimensions.pixels > this.config.mediaMaxPixels) {
        throw new DomainError('PAYLOAD_TOO_LARGE', `The image has ${dimensions.pixels} pixels, more than MEDIA_MAX_PIXELS (${this.config.mediaMaxPixels})`);
      }
      const cleaned = await this.slots.run('upload', () => this.clean(rawKey, cleanKey, type, dimensions));
      return { mimeType: type, ...cleaned, cleanKey };
    } catch (error) {
      await this.discard(cleanKey);
      throw error;
    } finally {
      await this.storage.delete(rawKey).catch((error: unknown) => this.logger.warn(`Could not delete ${rawKey}: ${String(error)}`));
    }
  }

  /** Deletes a received upload that is not to become an item. */
  async discard(cleanKey: string): Promise<void> {
    await this.storage.delete(cleanKey).catch((error: unknown) => this.logger.warn(`Could not delete ${cleanKey}: ${String(error)}`));
  }

  /** Width × height (× frames) from the header of the stored file; 415 when sharp cannot read it as the type its bytes said. */
  private async dimensions(key: string, type: ImageType, size: number): Promise<Dimensions> {
    const head = await this.readBytes(key, size <= HEADER_BYTES ? undefined : { start: 0, end: HEADER_BYTES - 1 });
    let metadata: Metadata;
    try {
      metadata = await (await loadSharp())(head, { limitInputPixels: false, animated: true }).metadata();
    } catch {
      if (size <= HEADER_BYTES) throw unsupported('it cannot be read as an image');
      // A header longer than the bytes read: the whole file then.
      try {
        metadata = await (await loadSharp())(await this.readBytes(key), { limitInputPixels: false, animated: true }).metadata();
      } catch {
        throw unsupported('it cannot be read as an image');
      }
    }
    if (metadata.format !== IMAGE_TYPES[type].format || !metadata.width || !metadata.height) throw unsupported('it cannot be read as the image its bytes announce');
    const pages = metadata.pages ?? 1;
    const frameHeight = metadata.pageHeight ?? metadata.height;
    // A JPEG's EXIF segment comes before its frame header, which the header just read holds: an
    // orientation it does not name is none, and the image needs no turning.
    const upright = type === 'image/jpeg' && (metadata.orientation ?? 1) === 1;
    return { pixels: metadata.width * frameHeight * pages, animated: pages > 1, upright };
  }

  /** Decodes and encodes the image again without its metadata (oriented as it displays); 415 when it does not decode (truncated, corrupt). */
  private async clean(rawKey: string, cleanKey: string, type: ImageType, { animated, upright }: Dimensions): Promise<{ width: number; height: number; size: number }> {
    const input = await imageInput(this.storage, rawKey, { limitInputPixels: this.config.mediaMaxPixels, failOn: 'warning', animated });
    if (!input) throw new Error(`The upload ${rawKey} vanished`);
    let transformer = input.image;
    // An animation keeps its frames as they are (no EXIF orientation in GIF or animated WebP).
    // Turning needs the whole image decoded at once; an upright JPEG is read and written in strips.
    if (!animated && !upright) transformer = transformer.rotate();
    transformer = encoder(transformer, type);
    let decodeError: unknown;
    transformer.on('error', (error: unknown) => (decodeError ??= error));
    try {
      const { stored, info } = await writeImage(this.storage, cleanKey, transformer, type);
      const height = animated && info.pageHeight ? info.pageHeight : info.height;
      return { width: info.width, height, size: stored.size };
    } catch (error) {
      input.abort();
      if (decodeError !== undefined || isSharpError(error)) throw unsupported('it does not decode (truncated or corrupt)');
      throw error;
    }
  }

  private async readBytes(key: string, range?: { start: number; end: number }): Promise<Buffer> {
    const stream = await this.storage.read(key, range);
    if (!stream) throw new Error(`The upload ${key} vanished`);
    return readWhole(stream);
  }
}

/** The encoder of the image's own type (sharp writes no metadata unless asked to). */
function encoder(transformer: Sharp, type: ImageType): Sharp {
  switch (type) {
    case 'image/jpeg':
      // Huffman tables optimised for the image need every coefficient held for a second pass
      // (about 5 bytes a pixel); the standard ones stream, for a file some 5 % larger.
      return transformer.jpeg({ quality: 90, mozjpeg: false, optimiseCoding: false });
    case 'image/png':
      return transformer.png();
    case 'image/gif':
      return transformer.gif();
    case 'image/webp':
      return transformer.webp({ quality: 90 });
    case 'image/avif':
      return transformer.avif({ quality: 70, effort: 2 });
  }
}

function isSharpError(error: unknown): boolean {
  return error instanceof Error && /vips|VipsJpeg|Input|unsupported image format|corrupt|premature/i.test(error.message);
}

/** The name a file was uploaded with, for display: its last path segment, without control characters, at most 255 characters. */
export function displayFilename(name: string | undefined | null, type: ImageType): string {
  const cleaned = [...basename((name ?? '').replaceAll('\\', '/'))]
    .filter((character) => character.charCodeAt(0) >= 0x20 && character.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  const fallback = `upload.${type === 'image/jpeg' ? 'jpg' : type.slice('image/'.length)}`;
  return [...(cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned)].slice(0, 255).join('');
}
