import { Injectable } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Actor } from '../../../common/actor.js';
import { ResponseCache } from '../../../common/cache/response-cache.js';
import { markStorable } from '../cache/graphql-cache.hooks.js';
import { setRateLimitItem } from '../../../common/rate-limit/rate-limit-headers.js';
import { ReplicaSet } from '../../../database/replicas/replica-set.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { tracingState } from '../../../tracing/tracing-state.js';
import { type GateVerdict, OperationGate } from '../gate/operation-gate.js';
import { isRecord } from '../gate/request-checks.js';
import { singleResultMediaType } from '../single-result-media-type.js';
import { type PlannedAnswer, QueryPlanner } from './query-planner.js';

/** What the planned path found out about a request it then left to Apollo, so that nothing is done twice. */
export interface GraphQLAdmission {
  actor: Actor | null;
  /** The credential's error (Apollo's context throws it: the credential is not looked at twice). */
  failure?: unknown;
  /** The gate's verdict; undefined when the credential failed. */
  verdict?: GateVerdict;
  /** The plan's answer when it was one Apollo must send (the database unavailable: an error to format); undefined: declined or not tried. */
  answer?: PlannedAnswer;
}
/**
 * POST /graphql for planned documents, before Apollo (a `preHandler` after the response cache's
 * lookup). A request of the plain shape (a query string; variables, operationName; no extensions,
 * no batch) whose Accept Apollo would answer with a single JSON result takes the same steps as
 * through Apollo — the credential checked by the gate, the gate's verdict (limits, persisted
 * queries, cost and the address's budget), the plan — and a planned answer is sent as the bytes
 * Apollo would send, with the same headers (media type, RateLimit, Cache-Status) and metrics.
 * Anything else goes on to Apollo, taking along the actor and the verdict already found
 * (`request.graphqlAdmission`): the context factory and the gate's plugin use them, so the
 * address's budget is spent once. Off with tracing (spans per operation are Apollo's plugin's)
 * and with read replicas (their routing is the resolvers').
 */
@Injectable()
export class PlannedAnswers {
  /** What a request carries: set here when the request goes on to Apollo after all. */
  static readonly requestFields = { graphqlAdmission: null } as const;

  constructor(
    private readonly planner: QueryPlanner,
    private readonly gate: OperationGate,
    private readonly schemaHost: GraphQLSchemaHost,
    private readonly cache: ResponseCache,
    private readonly metrics: MetricsService,
    private readonly replicas: ReplicaSet,
  ) {}

  /** The hook for the GraphQL endpoint at `path`; null when no request could be planned here. */
  at(path: string): preHandlerAsyncHookHandler | null {
    if (!this.planner.enabled || tracingState.enabled || this.replicas.enabled) return null;
    const answerPlannedDocument: preHandlerAsyncHookHandler = async (request, reply) => {
      if (!this.planner.enabled || request.method !== 'POST' || request.routeOptions.url !== path) return;
      const body = request.body;
      if (!isRecord(body) || typeof body.query !== 'string' || body.extensions !== undefined) return;
      const mediaType = singleResultMediaType(request.method, request.headers.accept);
      if (mediaType === null) return;
      // An async hook that has sent the reply returns it, so that Fastify goes no further.
      if (await this.answer(request, reply, body, mediaType)) return reply;
    };
    return answerPlannedDocument;
  }

  /** Whether the request was answered here. */
  private async answer(request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>, mediaType: string): Promise<boolean> {
    let actor: Actor | null;
    try {
      actor = await this.gate.authenticate(request.headers.authorization);
    } catch (failure) {
      // Apollo's context answers the credential's error (the database away: after one wait, not two).
      request.graphqlAdmission = { actor: null, failure };
      return false;
    }
    const schema = this.schemaHost.schema;
    const verdict = await this.gate.admit(body, { transport: 'http', address: request.ip }, schema);
    const admission: GraphQLAdmission = { actor, verdict };
    request.graphqlAdmission = admission;
    if (!('admitted' in verdict)) return false;
    const { admitted } = verdict;
    const answer = await this.planner.run({
      queryHash: admitted.hash,
      operationName: admitted.operationName,
      operation: admitted.operation,
      schema,
      variables: admitted.variables,
      actor,
      acceptLanguage: request.headers['accept-language'],
    });
    if (answer === undefined) return false;
    if ('unavailable' in answer) {
      // Apollo's plugin formats the error as for any other request.
      admission.answer = answer;
      return false;
    }
    if (admitted.budget) setRateLimitItem(reply, admitted.budget);
    this.metrics.recordGraphQLOperation('query');
    // An admitted query's data without errors, as the gate's plugin decides it.
    if (this.cache.enabled) reply.header('cache-status', markStorable(request.graphqlCache, request.graphqlCache !== null));
    reply.header('content-type', mediaType).send(`${JSON.stringify({ data: answer.data })}\n`);
    return true;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The actor and the gate's verdict of a GraphQL request the planned path left to Apollo; null otherwise. */
    graphqlAdmission: GraphQLAdmission | null;
  }
}
