import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error.js';
import type { Actor } from '../common/actor.js';
import type { Media } from './media.entity.js';
import type { MediaService, UploadFields } from './media.service.js';
import { tooLarge } from './media-upload.service.js';
import type { ReceivedImage } from './media-upload.service.js';

/** The path uploads are posted to: the only route a multipart or image/* body is taken on. */
export const MEDIA_UPLOAD_PATH = '/media';

/** The form fields of a multipart upload besides `file`. */
const TEXT_FIELDS = new Set(['alt', 'caption']);

/**
 * The file name of a raw upload's `Content-Disposition` (`attachment; filename="x.png"`, or the
 * RFC 8187 `filename*=UTF-8''…`), for display only; undefined without one.
 */
export function dispositionFilename(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;\s]+)/.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      return undefined;
    }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header);
  if (quoted) return quoted[1].replace(/\\(.)/g, '$1');
  return /filename\s*=\s*([^;\s]+)/.exec(header)?.[1];
}

/**
 * Reads an upload request into a media item: `multipart/form-data` (one part `file`; `alt` and
 * `caption` before or after it) or a raw `image/*` body. The HTTP side of POST /media, kept out of
 * the controller so it stays thin; the rules are MediaService's.
 */
export async function uploadFrom(request: FastifyRequest, writer: Actor, media: MediaService, maxBytes: number): Promise<Media> {
  if (request.isMultipart()) return fromForm(request, writer, media);
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!type.startsWith('image/') || !request.body) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data (a part named file) or as the body with its image/* Content-Type');
  }
  const declared = Number(request.headers['content-length']);
  // Refused before a byte is read when the client says how long it is.
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const received = await media.receive(request.body as Readable);
  try {
    return await media.create(writer, received, { filename: dispositionFilename(request.headers['content-disposition']) });
  } catch (error) {
    await media.discard(received);
    throw error;
  }
}

async function fromForm(request: FastifyRequest, writer: Actor, media: MediaService): Promise<Media> {
  let received: ReceivedImage | undefined;
  const fields: UploadFields = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || received) {
          part.file.resume();
          throw DomainError.badInput('Send exactly one file, in the part named file', [{ field: part.fieldname, message: 'the file goes in one part named file' }]);
        }
        fields.filename = part.filename;
        received = await media.receive(part.file);
      } else if (TEXT_FIELDS.has(part.fieldname)) {
        fields[part.fieldname as 'alt' | 'caption'] = typeof part.value === 'string' ? part.value : String(part.value);
      } else {
        throw DomainError.badInput(`Unknown form field ${part.fieldname}: the form has file, alt and caption`, [{ field: part.fieldname, message: 'is not a field of an upload' }]);
      }
    }
    if (!received) throw DomainError.badInput('The form has no file: send it in a part named file', [{ field: 'file', message: 'is required' }]);
    const item = await media.create(writer, received, fields);
    received = undefined;
    return item;
  } finally {
    if (received) await media.discard(received);
  }
}
