import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where the work of a request comes from, for the audit entries of what it changes: the client's address (as TRUST_PROXY resolves
 * it), its user agent and the request id. Kept for the work of one request or one GraphQL
 * operation over WebSocket or SSE (`requestSource.run`); absent for the scheduler and the
 * retention jobs, whose entries are the system's. Its fields are read only when an entry is
 * written, so a request that changes nothing pays for nothing but the `run`.
 */
export interface RequestSource {
  readonly ip: string;
  readonly headers: IncomingHttpHeaders;
  /** The request id (the client's X-Request-Id when it is a plain token), echoed on the response. */
  readonly id: string;
}

export const requestSource = new AsyncLocalStorage<RequestSource>();

/** What the hook reads of a request besides its source. */
interface RoutedRequest extends RequestSource {
  readonly method: string;
  readonly routeOptions: { readonly url?: string };
}

/** The works running with a source now; at none the store is disabled (see withRequestSource). */
let running = 0;

/**
 * Runs `work` with `source` as its request source. On Node 20 a store in use makes every promise
 * of the process cost more, whether its request has a source or not (a fifth of a GET
 * /posts/{id}): so the store is disabled again whenever no work runs with one, and `release`
 * (called once the work is over) says when. Reads in between pay nothing.
 */
export function withRequestSource<R>(source: RequestSource, work: () => R): { result: R; release: () => void } {
  running += 1;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    running -= 1;
    if (running === 0) requestSource.disable();
  };
  return { result: requestSource.run(source, work), release };
}

/**
 * A `preHandler` hook (after the body is parsed, whose callbacks would lose the store): the
 * request is the source of what its handler changes, until its response is closed. A GET or
 * HEAD changes nothing (GraphQL over GET runs queries only) and runs without one, but on the
 * routes of `changingGets` (the SSE stream, whose operations may be mutations).
 */
export function requestSourceHook(changingGets: readonly string[]): (request: RoutedRequest, reply: { raw: { once(event: 'close', listener: () => void): unknown } }, done: () => void) => void {
  const kept = new Set(changingGets);
  return function keepRequestSource(request, reply, done) {
    if ((request.method === 'GET' || request.method === 'HEAD') && !kept.has(request.routeOptions.url ?? '')) return done();
    const { release } = withRequestSource(request, done);
    reply.raw.once('close', release);
  };
}
