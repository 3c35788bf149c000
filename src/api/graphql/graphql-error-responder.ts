import type { ErrorResponder } from '../../common/errors/problem-details.filter.js';

const GRAPHQL_PATHS = new Set(['/graphql', '/graphql/stream']);

/**
 * A request refused by the rate limit before GraphQL saw it, on a GraphQL path: HTTP 429 with
 * Retry-After and a GraphQL body, so Apollo Client and urql see `RATE_LIMITED` like any other
 * GraphQL error. Other refusals there (a body over the size limit, not JSON) stay problem+json.
 */
export const graphqlRateLimitResponder: ErrorResponder = (error, request, reply) => {
  if (error.code !== 'RATE_LIMITED' || !GRAPHQL_PATHS.has(request.url.split('?')[0])) return false;
  const retryAfter = error.headers?.['retry-after'];
  const extensions = retryAfter === undefined ? { code: error.code } : { code: error.code, retryAfter: Number(retryAfter) };
  reply.status(error.status).header('content-type', 'application/json; charset=utf-8');
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  reply.send(JSON.stringify({ errors: [{ message: error.detail, extensions }] }));
  return true;
};
