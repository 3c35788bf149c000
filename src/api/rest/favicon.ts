import { createHash } from 'node:crypto';
import type { RouteHandlerMethod } from 'fastify';
import { ifNoneMatchHits } from '../../common/resource/etag.js';

export const FAVICON_PATH = '/favicon.ico';

/** The service's icon (a white B on blue), 16×16 and 32×32 PNGs in one ICO file (335 bytes). */
const FAVICON = Buffer.from(
  'AAABAAIAEBAAAAEAIAB6AAAAJgAAACAgAAABACAArwAAAKAAAACJUE5HDQoaCgAAAA1JSERSAAAAEAAAABAIBgAAAB/z/2EAAABBSURBVHjaY2CAAu7wC/9JwQzIgFTNKIaQqxluCE0MwAVINgBdjP4GEHI+/cMAmyFEG4ArHGjjBfqmRIozE6XZGQBeU1dfaZ1dOwAAAABJRU5ErkJggolQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAHZJREFUeNpjYEAD3OEX/tMSM+ADtLYcryPoZTlWR9DbchRHDJTlcEeMOoBYhcSAAXcAOQ4h2wGkylPVAcSoG3XA8E4DgyIXDNpyYFAURHRLA9RIiFTPhqSqHXXA0EwDgyYX0LUcGG0TDsu+weDpmg2KzulAdc8BJQ57nZDymcwAAAAASUVORK5CYII=',
  'base64',
);
const ETAG = `"${createHash('sha1').update(FAVICON).digest('base64url').slice(0, 20)}"`;

/**
 * GET (and HEAD) /favicon.ico: browsers ask for it on every page of the service, so it is a
 * real icon kept a day by caches (revalidated by its ETag), never a 404 problem.
 */
export function serveFavicon(): RouteHandlerMethod {
  return function serveFavicon(request, reply) {
    reply.header('cache-control', 'public, max-age=86400').header('etag', ETAG);
    if (ifNoneMatchHits(request.headers['if-none-match'], ETAG)) return reply.status(304).send();
    return reply.header('content-type', 'image/x-icon').send(FAVICON);
  };
}
