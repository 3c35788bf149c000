import type { ErrorResponder } from '../../common/errors/problem-details.filter.js';
import { varyOnAccept } from '../../common/http/vary.js';
import { preferredMediaType } from '../../common/resource/media-types.js';

const GRAPHQL_PATHS = new Set(['/graphql', '/graphql/stream']);

/** Apollo Server's two media types for a single result, in the order it negotiates them. */
const GRAPHQL_MEDIA_TYPES = ['application/json', 'application/graphql-response+json'];

/**
 * The media type of a GraphQL answer for this Accept, as Apollo Server chooses it: JSON without
 * Accept (or when neither is acceptable: the answer is a refusal already), else the preferred one.
 * A client that accepts `application/graphql-response+json` gets it, and with it the GraphQL over
 * HTTP rule that a non-2xx answer still holds a GraphQL result: Apollo Client 4 reads the errors
 * of such a 429, where it only reports "status 429" for `application/json`.
 */
export function graphqlMediaType(accept: string | undefined): string {
  const preferred = accept === undefined || accept.trim() === '' ? undefined : preferredMediaType(accept, GRAPHQL_MEDIA_TYPES);
  return `${preferred ?? GRAPHQL_MEDIA_TYPES[0]}; charset=utf-8`;
}

/**
 * A request refused by the rate limit before GraphQL saw it, on a GraphQL path: HTTP 429 with
 * Retry-After and a GraphQL body, so Apollo Client and urql see `RATE_LIMITED` like any other
 * GraphQL error. Other refusals there (a body over the size limit, not JSON) stay problem details.
 */
export const graphqlRateLimitResponder: ErrorResponder = (error, request, reply) => {
  if (error.code !== 'RATE_LIMITED' || !GRAPHQL_PATHS.has(request.url.split('?')[0])) return false;
  const retryAfter = error.headers?.['retry-after'];
  const extensions = retryAfter === undefined ? { code: error.code } : { code: error.code, retryAfter: Number(retryAfter) };
  reply.status(error.status).header('content-type', graphqlMediaType(request.headers.accept));
  varyOnAccept(reply);
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  reply.send(JSON.stringify({ errors: [{ message: error.detail, extensions }] }));
  return true;
};
