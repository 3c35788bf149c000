import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../actor.js';
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
  /** What the gate measured of the admitted operation (set for HTTP operations), for its span. */
  admitted?: { readonly complexity: number };
  /** This request's DataLoaders. */
  loaders: Loaders;
}
