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

/** A `preHandler` hook (after the body is parsed, whose callbacks would lose the store): the request is the source of what its handler changes. */
export function keepRequestSource(request: RequestSource, _reply: unknown, done: () => void): void {
  requestSource.run(request, done);
}
