import { createHash } from 'node:crypto';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error.js';
import type { Format } from './media-types.js';

const SUFFIX: Record<Format, string> = { json: '', hal: '-hal', xml: '-xml', html: '-html', atom: '-atom', rss: '-rss', jsonfeed: '-jsonfeed', ndjson: '-ndjson' };

/**
 * Strong ETags: `"<version>"` for JSON, `"<version>-hal"`, `"<version>-xml"` for the other
 * renderings of the same fields. An HTML page also shows related data (author, comments), so
 * its tag is a digest of the page itself, as is the tag of what has no version (an event).
 */
export function etagFor(format: Format, version: number | null, body: string, variant?: string): string {
  if (format === 'html' || version === null) return digestEtag(body);
  return `"${version}${SUFFIX[format]}${variant === undefined ? '' : `-${variant}`}"`;
}

/** A strong ETag that is a digest of the body itself (an HTML page, a feed, a sitemap). */
export const digestEtag = (body: string): string => `"h${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`;

/** RFC 9110 weak comparison for If-None-Match: does any listed tag match? */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * The version an If-Match header demands, for the service's conditional write:
 * undefined without the header or with `*`; -1 (never current) for a tag this service did not
 * issue, a weak tag, or an HTML digest, so the write fails with 412 rather than going ahead.
 * An If-Match that names nothing (empty, blanks, bare commas) is not a precondition at all: 400.
 */
export function expectedVersion(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (header.split(',').every((tag) => tag.trim() === '')) {
    throw DomainError.badInput('If-Match is empty: send the ETag you last read (or *), or leave the header out', [
      { field: 'If-Match', message: 'must be an entity tag, a list of them, or *' },
    ]);
  }
  if (header.trim() === '*') return undefined;
  for (const tag of header.split(',')) {
    // A variant (`-t…`: what its links show changed, not the resource) does not matter to a write.
    const match = /^"(\d{1,10})(?:-hal|-xml)?(?:-t[A-Za-z0-9_-]{1,20})?"$/.exec(tag.trim());
    if (match) return Number(match[1]);
  }
  return -1;
}

/** `@IfMatch() version?: number` — the version the client's If-Match requires. */
export const IfMatch = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  expectedVersion(context.switchToHttp().getRequest<FastifyRequest>().headers['if-match']),
);
