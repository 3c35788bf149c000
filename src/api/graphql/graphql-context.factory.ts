import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../common/actor.js';
import type { GraphQLContext } from '../../common/graphql/graphql-context.js';
import { Loaders } from '../../common/graphql/loaders.js';
import { toGraphQLError } from './format-error.js';
import { OperationGate } from './gate/operation-gate.js';

/**
 * Builds the context of each GraphQL operation: the actor from the credential, checked by the
 * operation gate (as for every transport), and fresh DataLoaders (per request here; per
 * subscription event for subscriptions).
 */
@Injectable()
export class GraphQLContextFactory {
  constructor(private readonly gate: OperationGate) {}

  async forHttp(req: FastifyRequest, reply: FastifyReply): Promise<GraphQLContext> {
    // The planned path (plans/planned-answers.ts) may have checked the credential already.
    const admission = req.graphqlAdmission;
    let actor: Actor | null;
    try {
      if (admission?.failure !== undefined) throw admission.failure;
      actor = admission ? admission.actor : await this.gate.authenticate(req.headers.authorization);
    } catch (error) {
      throw toGraphQLError(error);
    }
    return { req, reply, actor, clientAddress: req.ip, loaders: new Loaders() };
  }

  /** A context without an HTTP request: one per operation over a socket or stream. */
  forActor(actor: Actor | null, clientAddress: string): GraphQLContext {
    return { actor, clientAddress, loaders: new Loaders() };
  }
}
