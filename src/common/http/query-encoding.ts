import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../errors/domain-error.js';

function decodes(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

/**
 * The first query parameter whose name or value is not percent-encoded UTF-8 (`%zz`, a lone `%`,
 * `%ED%B0%80` — the bytes of a lone surrogate — or any other invalid byte sequence), or undefined.
 */
export function malformedQueryParameter(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('%', start)) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const decodedName = decodes(name);
    if (decodedName === undefined || (equals >= 0 && decodes(pair.slice(equals + 1)) === undefined)) return decodedName ?? name;
  }
  return undefined;
}

/**
 * An `onRequest` hook: refuses (400, naming the parameter) a query string that is not
 * percent-encoded UTF-8. Fastify's parser keeps such a component as its raw text, so
 * `?cursor=%ED%B0%80` reached the handlers as the nine characters `%ED%B0%80`; the router refuses
 * the same in a path.
 */
export function refuseMalformedQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const field = malformedQueryParameter(request.url);
  if (field === undefined) return done();
  done(DomainError.badInput(`The query parameter ${field} is not percent-encoded UTF-8`, [{ field, message: 'must be percent-encoded UTF-8' }]));
}
