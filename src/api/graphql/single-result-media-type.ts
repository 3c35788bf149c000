import Negotiator from 'negotiator';

/** Apollo's two media types for a single result (runHttpQuery's MEDIA_TYPES). */
export const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';
/** What Apollo negotiates among for a single result (chooseContentTypeForSingleResultResponse). */
const OFFERED = [JSON_TYPE, GRAPHQL_RESPONSE_TYPE, 'application/json; callback'];
const ACCEPT_MEMO_MAX = 256;

const memo = new Map<string, string | null>();

/**
 * The media type Apollo answers a single result with for this method and Accept, or null where
 * Apollo would do something else (406, or GraphiQL for a browser's GET): such requests go to
 * Apollo. Answers given before Apollo (the response cache's, planned documents') use it.
 */
export function singleResultMediaType(method: string, accept: string | undefined): string | null {
  if (accept === undefined || accept === '') return JSON_TYPE;
  const key = `${method}\u0000${accept}`;
  let type = memo.get(key);
  if (type === undefined) {
    const preferred = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
    type = preferred === JSON_TYPE || preferred === GRAPHQL_RESPONSE_TYPE ? preferred : null;
    if (method === 'GET' && /text\/html/i.test(accept)) type = null;
    if (memo.size >= ACCEPT_MEMO_MAX) memo.clear();
    memo.set(key, type);
  }
  return type;
}
