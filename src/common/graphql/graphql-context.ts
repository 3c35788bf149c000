import type { Context as TraceContext } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestSource } from '../http/request-source.js';
import type { Actor } from '../actor.js';
import type { ReadRoute } from '../persistence/read-route.js';
import type { Loaders } from './loaders.js';

/** What every resolver gets as its GraphQL context. */
export interface GraphQLContext {
  /** The HTTP request; absent for subscription events. */
  req?: FastifyRequest;
  reply?: FastifyReply;
  /** Who is asking: from the bearer token, null when anonymous. */
  actor: Actor | null;
  /** The client's address (per TRUST_PROXY), for the sign-in rate limit. */
  clientAddress: string;
  /** The admitted operation's `@cost`/`@listSize` cost (set by the operation gate over HTTP). */
  operationCost?: number;
  /** With tracing on, the operation's span: its resolvers run inside it (tracing/resolver-context.ts). */
  traceContext?: TraceContext;
  /** An anonymous query over HTTP that may read from a replica (database/replicas/read-routing.resolvers.ts). */
  readRoute?: ReadRoute | null;
  /** This request's DataLoaders. */
  loaders: Loaders;
  /** Over a WebSocket: where the operation comes from, for the audit log (over HTTP, the request is). */
  requestSource?: RequestSource;
  /** Set by a resolver whose answer no cache may keep (a preview). */
  uncacheable?: boolean;
}
