import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../errors/domain-error.js';

/**
 * The longest header value taken: Node's parser refuses a request whose headers pass 16 KiB in
 * all (431), so only a request made in process (fastify.inject) could carry a longer one.
 */
export const MAX_HEADER_CHARS = 16 * 1024;

/** What an HTTP field value may hold (RFC 9110 §5.5): visible ASCII, space, tab and obs-text bytes. */
const NOT_FIELD_TEXT = /[^\t\u0020-\u007e\u0080-\u00ff]/;

/** The first request header whose value is no HTTP field value (a control character, a character past U+00FF) or is overlong. */
export function hostileHeader(headers: FastifyRequest['headers']): { field: string; message: string } | undefined {
  for (const [name, value] of Object.entries(headers)) {
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== 'string') continue;
      if (text.length > MAX_HEADER_CHARS) return { field: name, message: `must be at most ${MAX_HEADER_CHARS} characters` };
      if (NOT_FIELD_TEXT.test(text)) return { field: name, message: 'must hold only visible ASCII, spaces, tabs and Latin-1 bytes (no control characters)' };
    }
  }
  return undefined;
}

/**
 * An `onRequest` hook: refuses (400, naming the header) a header value that no HTTP parser would
 * have let through, before a handler, the logger or a response header reads it. The text rule of
 * the other doors (well-formed.ts), as it applies to header bytes.
 */
export function refuseHostileHeaders(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const problem = hostileHeader(request.headers);
  if (problem === undefined) return done();
  done(DomainError.badInput(`The header ${problem.field} ${problem.message}`, [problem]));
}
