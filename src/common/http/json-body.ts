import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser (prototype poisoning refused), except that an empty body under a JSON
 * Content-Type is no body rather than an error: fetch wrappers send that header on every request,
 * DELETE included. A route that needs a body refuses a missing one in validation.
 */
export function parseJsonOrNothing(fastify: FastifyInstance) {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parse: typeof parseJson = (request, body, done) => {
    if (body === '' || (Buffer.isBuffer(body) && body.length === 0)) return done(null, undefined);
    return parseJson(request, body, done);
  };
  return parse;
}
