import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { toGraphQLError } from './format-error.js';
import { OperationGate } from './gate/operation-gate.js';
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
 * Builds the context of each GraphQL operation: the actor from the credential, checked by the
 * operation gate (as for every transport), and fresh DataLoaders (per request here; per
 * subscription event for subscriptions, via `forActor`).
 */
@Injectable()
export class GraphQLContextFactory {
  constructor(
    private readonly gate: OperationGate,
    private readonly loaders: LoadersFactory,
  ) {}

  async forHttp(req: FastifyRequest, reply: FastifyReply): Promise<GraphQLContext> {
    let actor: Actor | null;
    try {
      actor = await this.gate.authenticate(req.headers.authorization);
    } catch (error) {
      throw toGraphQLError(error);
    }
    return { req, reply, actor, clientAddress: req.ip, loaders: this.loaders.create() };
  }

  /** A context without an HTTP request: one per operation over a socket or stream. */
  forActor(actor: Actor | null, clientAddress: string): GraphQLContext {
    return { actor, clientAddress, loaders: this.loaders.create() };
  }
}
