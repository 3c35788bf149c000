import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../common/errors/domain-error.js';
import { MEDIA_UPLOAD_PATH } from './upload-request.js';

/** @fastify/multipart's limits for an upload form: one file of at most `maxBytes` + 1 (the upload refuses the extra byte), three short fields. */
export function uploadLimits(maxBytes: number) {
  return { fileSize: maxBytes + 1, files: 1, fields: 4, fieldSize: 4096, parts: 6, headerPairs: 200 };
}

const isUploadType = (contentType: string | undefined) => !!contentType && /^\s*(?:multipart\/|image\/)/i.test(contentType);

/**
 * preParsing: a multipart or image/* body is taken by POST /media alone; anywhere else it is 415,
 * as any type but JSON is, before a byte of it is read.
 */
export function refuseMisplacedUploads(request: FastifyRequest, _reply: FastifyReply, _payload: unknown, done: (error?: Error | null) => void): void {
  if (isUploadType(request.headers['content-type']) && !(request.method === 'POST' && request.routeOptions.url === MEDIA_UPLOAD_PATH)) {
    done(new DomainError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Media Type: ${request.headers['content-type']}`));
    return;
  }
  done();
}

/** The image/* body parser: the body is the request stream itself, read by the upload. */
export function passUploadThrough(_request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void): void {
  done(null, payload);
}
