import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { type DocumentNode, getOperationAST, GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Redis } from 'ioredis';
import type { Actor } from '../../../common/actor.js';
import { AuthService } from '../../../auth/auth.service.js';
import { COST_POLICY } from '../../../common/rate-limit/rate-limit-headers.js';
import { costKey, type LimitState, RateLimiter, rateLimited, requestKey } from '../../../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../../../config/app-config.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { REDIS } from '../../../redis/redis.module.js';
import { createFormatError, toGraphQLError } from '../format-error.js';
import type { QueryLimits } from '../limits/query-limits.js';
import { documentHash } from './document-hash.js';
import { PersistedQuerySource } from './persisted-query-source.js';
import { refusal } from './refusal.js';
import { checkDocumentText, checkRequest, type RawOperation } from './request-checks.js';
import { SubscriptionBudget } from './subscription-budget.js';
import { ValidatedDocuments } from './validated-documents.js';

/** The doors an operation can come through. */
export type Transport = 'http' | 'ws' | 'sse';

export interface Caller {
  transport: Transport;
  /** The client's address (TRUST_PROXY applied): the key of its rate limits and caps. */
  address: string;
}

export interface AdmittedOperation {
  /** The document's text (from the request, the persisted-query store or the manifest). */
  query: string;
  /** Its SHA-256 (hex). */
  hash: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string;
  variables: Record<string, unknown>;
  /** Its `@cost`/`@listSize` cost: what GRAPHQL_MAX_COST bounds, the address's budget paid, its subscription holds. */
  cost: number;
  /** Where the address's cost budget stands after paying it (null when RATE_LIMIT_COST_MAX=0). */
  budget: LimitState | null;
}

/**
 * `refused`: the gate's own verdict, answered the same way on every transport.
 * `invalid`: the document does not parse or validate, or names no operation — over HTTP Apollo
 * reports these itself (with every validation error, by the same rules), sockets answer with them.
 */
export type GateVerdict =
  | { admitted: AdmittedOperation }
  | { refused: GraphQLError; budget?: LimitState }
  | { invalid: readonly GraphQLError[]; query: string };

/**
 * The one gate every GraphQL operation passes before it runs, whichever door it came through —
 * POST and GET /graphql (through the Apollo plugin in gate.plugin.ts), the WebSocket and the
 * event stream (subscriptions/operation-runner.ts, for both live transports):
 *
 * 1. the credential, looked at afresh (expired, deleted user, changed role);
 * 2. the rate limit of the client's address (a socket's operations count as requests; an HTTP
 *    request was already counted when it arrived);
 * 3. the shape of the request, the depth of its variables, the document's size and nesting
 *    (request-checks.ts);
 * 4. persisted queries: the manifest's allow-list (`only`), or automatic persisted queries with
 *    bounded registrations (`apq`) (persisted-query-source.ts);
 * 5. parsing and validation, cached per document, the same cache serving Apollo
 *    (validated-documents.ts);
 * 6. the operation: a subscription only over a live transport;
 * 7. depth, aliases and the cost — the one budget (remembered per document and per value of the
 *    variables that change it); a refusal still reports the address's cost budget (RateLimit);
 * 7b. the address's cost budget (RATE_LIMIT_COST_MAX per window), paid by every admitted operation;
 * 8. for subscriptions, the per-address budget of distinct executions every event will cost
 *    (subscription-budget.ts, held by the live transports).
 *
 * Apollo's own hooks are used where they serve: its document store is the gate's, its
 * formatError the gate's formatter, its parse options the same token limit. The rest has no
 * Apollo counterpart that reaches the WebSocket and the event stream, which Apollo does not serve.
 */
@Injectable()
export class OperationGate {
  readonly limits: QueryLimits;
  readonly subscriptions: SubscriptionBudget;
  /** The one formatter of GraphQL errors, for Apollo and the live transports alike. */
  readonly formatError: ReturnType<typeof createFormatError>;
  private readonly documents: ValidatedDocuments;
  private readonly sources: PersistedQuerySource;
  private readonly maxNesting: number;

  constructor(
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.limits = {
      maxDepth: config.graphqlMaxDepth,
      maxAliases: config.graphqlMaxAliases,
      maxCost: config.graphqlMaxCost,
    };
    this.maxNesting = Math.max(256, config.graphqlMaxDepth + 32);
    this.documents = new ValidatedDocuments({ limits: this.limits, maxTokens: config.graphqlMaxTokens, introspection: config.graphqlIntrospection });
    this.sources = new PersistedQuerySource(limiter, config, redis);
    this.subscriptions = new SubscriptionBudget(config.subscriptionsMaxComplexityPerAddress);
    this.formatError = createFormatError({
      exposeInternalMessages: config.nodeEnv === 'development',
      hideSuggestions: !config.graphqlIntrospection,
      logger: new Logger('GraphQL'),
    });
  }

  /** Apollo's documentStore: the gate's validated documents. */
  get documentStore() {
    return this.documents.documentStore;
  }

  /** The actor behind a credential, checked afresh: 401 (a DomainError) when it no longer holds. */
  authenticate(authorization: string | undefined | null): Promise<Actor | null> {
    return this.auth.authenticate(authorization);
  }

  /** Where the address's cost budget stands, nothing spent (a refused operation runs nothing): its RateLimit item. */
  private async standing(caller: Caller): Promise<LimitState | undefined> {
    return (await this.limiter.spend(costKey(caller.address), COST_POLICY, 0, this.config.rateLimitCostMax, this.config.rateLimitWindowS)) ?? undefined;
  }

  async admit(raw: RawOperation, caller: Caller, schema: GraphQLSchema): Promise<GateVerdict> {
    if (caller.transport === 'ws') {
      try {
        await this.limiter.consume(requestKey(caller.address), this.config.rateLimitMax, this.config.rateLimitWindowS);
      } catch (error) {
        return { refused: toGraphQLError(error) };
      }
    }
    const request = checkRequest(raw);
    if (request instanceof GraphQLError) return { refused: request };
    const { variables, operationName, extensions } = request;
    const text = request.query === '' ? undefined : request.query;
    if (text !== undefined) {
      const tooLarge = checkDocumentText(text, this.config.graphqlMaxDocumentBytes, this.maxNesting);
      if (tooLarge) return { refused: tooLarge };
    }

    const source = await this.sources.resolve(text, extensions?.persistedQuery, caller.address);
    if ('refused' in source) return source;
    const { query, register } = source;

    const hash = register ?? documentHash(query);
    const prepared = this.documents.prepare(hash, query, schema);
    if ('refused' in prepared) return prepared;
    if ('invalid' in prepared) return { invalid: prepared.invalid, query };
    const operation = getOperationAST(prepared.document, operationName);
    if (!operation) {
      return {
        query,
        invalid: [new GraphQLError(
          operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.',
          { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } },
        )],
      };
    }
    if (operation.operation === 'subscription' && caller.transport === 'http') {
      return {
        refused: refusal(
          'BAD_REQUEST',
          400,
          'Subscriptions are served over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events at /graphql/stream, not as HTTP requests',
        ),
      };
    }
    if (prepared.structural) return { refused: prepared.structural, budget: await this.standing(caller) };
    const vars = variables ?? {};
    const cost = this.documents.costOf(prepared, schema, vars, operationName);
    if (cost.error) return { refused: cost.error, budget: await this.standing(caller) };
    const budget = await this.limiter.spend(costKey(caller.address), COST_POLICY, cost.cost, this.config.rateLimitCostMax, this.config.rateLimitWindowS);
    if (budget?.exceeded) return { refused: toGraphQLError(rateLimited(budget.resetS)), budget };
    if (register !== undefined) await this.sources.register(register, query);
    this.metrics?.recordGraphQLOperationCost(operation.operation, cost.cost);
    return {
      admitted: {
        query,
        hash,
        document: prepared.document,
        operation,
        operationName,
        variables: vars,
        cost: cost.cost,
        budget,
      },
    };
  }
}
