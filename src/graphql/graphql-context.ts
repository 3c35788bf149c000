import { HeaderMap } from '@apollo/server';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import type { Actor } from '../auth/actor.js';
import { AuthService } from '../auth/auth.service.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { type Loaders, LoadersFactory } from './loaders.js';

/** What every resolver gets as its GraphQL context. */
export interface GraphQLContext {
  /** The HTTP request; absent for subscription events. */
  req?: FastifyRequest;
  reply?: FastifyReply;
  /** Who is asking: from the bearer token, null when anonymous. */
  actor: Actor | null;
  /** The client's address (per TRUST_PROXY), for the sign-in rate limit. */
  clientAddress: string;
  /** This request's DataLoaders. */
  loaders: Loaders;
}

/**
 * Builds the context of each GraphQL operation: authenticates the bearer token with the same
 * AuthService as the HTTP guard and the WebSocket handshake, and creates fresh DataLoaders
 * (per request here; per subscription event for subscriptions, via `forActor`).
 */
@Injectable()
export class GraphQLContextFactory {
  constructor(
    private readonly auth: AuthService,
    private readonly loaders: LoadersFactory,
  ) {}

  async forHttp(req: FastifyRequest, reply: FastifyReply): Promise<GraphQLContext> {
    let actor: Actor | null;
    try {
      actor = await this.auth.authenticate(req.headers.authorization);
    } catch (error) {
      throw contextError(error);
    }
    return { req, reply, actor, clientAddress: req.ip, loaders: this.loaders.create() };
  }

  /** A context without an HTTP request: one per subscription event (issue 5). */
  forActor(actor: Actor | null, clientAddress = 'unknown'): GraphQLContext {
    return { actor, clientAddress, loaders: this.loaders.create() };
  }
}

/**
 * A failure before any operation runs (a bad token, the database down while checking it):
 * answered with its HTTP status (401 with WWW-Authenticate: Bearer, 503 with Retry-After)
 * and `extensions.code`, like the REST API.
 */
function contextError(error: unknown): GraphQLError {
  const normalized = normalizeError(error);
  const headers = new HeaderMap(Object.entries(normalized.headers ?? {}));
  if (normalized.status === 401) headers.set('www-authenticate', 'Bearer');
  return new GraphQLError(normalized.detail, {
    originalError: error instanceof Error ? error : undefined,
    extensions: { code: normalized.code, http: { status: normalized.status, headers } },
  });
}
