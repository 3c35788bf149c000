import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { FastifyInstance } from 'fastify';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/fastify';
import type { ServerOptions, SubscribePayload } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { ServerResponse } from 'node:http';
import type { Actor } from '../auth/actor.js';
import { AuthService } from '../auth/auth.service.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { AppConfig } from '../config/app-config.js';
import { type GraphQLContext, GraphQLContextFactory } from '../graphql/graphql-context.js';
import { createFormatError } from '../graphql/format-error.js';
import { checkQueryLimits } from '../graphql/limits/query-limits.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { SharedExecution } from './shared-execution.js';

export const SSE_PATH = '/graphql/stream';

interface Connection extends Extra {
  actor?: Actor | null;
  keepAlive?: NodeJS.Timeout;
  counted?: boolean;
}

const isErrors = (value: ExecutionArgs | readonly GraphQLError[]): value is readonly GraphQLError[] => Array.isArray(value);

const codeError = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/**
 * The two live transports of CONTRACT §5 over one set of rules: graphql-ws on /graphql
 * (WebSocket) and graphql-sse on /graphql/stream (Server-Sent Events, distinct connections).
 * Both authenticate with the AuthService, apply the same depth/complexity/alias limits as
 * HTTP operations, and count against the same cap on live connections per instance.
 */
@Injectable()
export class SubscriptionTransports implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private schemaHost?: GraphQLSchemaHost;
  private liveConnections = 0;
  private readonly streams = new Set<ServerResponse>();
  private readonly shared = new SharedExecution();

  constructor(
    private readonly auth: AuthService,
    private readonly contexts: GraphQLContextFactory,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** The same error shaping as HTTP (codes, masking, no schema hints when introspection is off). */
  private formatter?: ReturnType<typeof createFormatError>;

  private formatErrors(errors: readonly GraphQLError[]): GraphQLError[] {
    this.formatter ??= createFormatError({
      exposeInternalMessages: this.config.nodeEnv === 'development',
      hideSuggestions: !this.config.graphqlIntrospection,
      logger: this.logger,
    });
    // Formatted errors are plain JSON objects; the transports only serialize them.
    return errors.map((error) => this.formatter!(error.toJSON(), error) as GraphQLError);
  }

  /** Subscribers sharing an execution share its formatting too (and an internal error is logged once). */
  private readonly formatted = new WeakMap<ExecutionResult, ExecutionResult>();

  private formatResult<T extends ExecutionResult>(result: T): T {
    if (!result.errors) return result;
    let formatted = this.formatted.get(result);
    if (!formatted) this.formatted.set(result, (formatted = { ...result, errors: this.formatErrors(result.errors) }));
    return formatted as T;
  }

  private get schema(): GraphQLSchema {
    this.schemaHost ??= this.moduleRef.get(GraphQLSchemaHost, { strict: false });
    return this.schemaHost.schema;
  }

  /** prepareOperation, counted in graphql_operations_total{type} like HTTP operations ("invalid" when refused). */
  private prepare(payload: SubscribePayload, contextValue: GraphQLContext): ExecutionArgs | readonly GraphQLError[] {
    const prepared = this.prepareOperation(payload, contextValue);
    const operation = isErrors(prepared) ? null : getOperationAST(prepared.document, prepared.operationName);
    this.metrics.recordGraphQLOperation(operation ? operation.operation : 'invalid');
    return prepared;
  }

  /** Parse, validate and limit one operation: its execution arguments, or the errors to answer with. */
  private prepareOperation(payload: SubscribePayload, contextValue: GraphQLContext): ExecutionArgs | readonly GraphQLError[] {
    if (typeof payload.query !== 'string' || payload.query.length > this.config.graphqlMaxDocumentBytes) {
      return [codeError('The query must be a GraphQL document within the size limit', 'BAD_USER_INPUT')];
    }
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: this.config.graphqlMaxTokens });
    } catch (error) {
      return [codeError(error instanceof Error ? error.message : 'Syntax error', 'GRAPHQL_PARSE_FAILED')];
    }
    const variables = (payload.variables ?? {}) as Record<string, unknown>;
    // With introspection off, __schema and __type are refused here too, as Apollo does over HTTP.
    const rules = this.config.graphqlIntrospection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    const invalid = validate(this.schema, document, rules);
    if (invalid.length > 0) {
      return invalid.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
    }
    const limited = checkQueryLimits(this.schema, document, this.limits, variables, payload.operationName ?? undefined);
    if (limited.length > 0) return limited;
    this.shared.remember(document, payload.query);
    return {
      schema: this.schema,
      document,
      variableValues: variables,
      operationName: payload.operationName ?? undefined,
      contextValue,
    };
  }

  private get limits() {
    return {
      maxDepth: this.config.graphqlMaxDepth,
      maxAliases: this.config.graphqlMaxAliases,
      maxComplexity: this.config.graphqlMaxComplexity,
    };
  }

  /** Both transports share the cap; only WebSockets count in the ws_connections gauge. */
  private admit(transport: 'ws' | 'sse'): boolean {
    if (this.liveConnections >= this.config.subscriptionsMaxConnections) return false;
    this.liveConnections += 1;
    if (transport === 'ws') this.metrics.wsConnections.inc();
    return true;
  }

  private release(transport: 'ws' | 'sse'): void {
    this.liveConnections -= 1;
    if (transport === 'ws') this.metrics.wsConnections.dec();
  }

  /** Options for graphql-ws, spread by @nestjs/graphql into its `useServer` call. */
  graphqlWsOptions(): Partial<ServerOptions<Record<string, unknown>, Connection>> {
    const keepAliveMs = this.config.subscriptionsKeepAliveMs;
    return {
      connectionInitWaitTimeout: 10_000,
      onConnect: async (ctx) => {
        const connection = ctx.extra;
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        try {
          connection.actor = await this.auth.authenticate(typeof header === 'string' ? header : undefined);
        } catch {
          return false; // graphql-ws closes with 4403 Forbidden
        }
        if (!this.admit('ws')) {
          connection.socket.close(1013, 'Too many live connections; try again later');
          return false;
        }
        connection.counted = true;
        if (keepAliveMs > 0) connection.keepAlive = this.keepAlive(connection, keepAliveMs);
        return true;
      },
      onClose: (ctx) => {
        clearInterval(ctx.extra.keepAlive);
        if (ctx.extra.counted) {
          ctx.extra.counted = false;
          this.release('ws');
        }
      },
      onSubscribe: (ctx, _id, payload) => {
        const active = Object.keys(ctx.subscriptions).length;
        if (active > this.config.subscriptionsMaxPerConnection) {
          return [codeError(`At most ${this.config.subscriptionsMaxPerConnection} operations per connection`, 'RATE_LIMITED')];
        }
        return this.prepare(payload, this.contexts.forActor(ctx.extra.actor ?? null));
      },
      subscribe: (args) => this.shared.subscribe(args),
      onNext: (_ctx, _id, _payload, _args, result) => this.formatResult(result) as FormattedExecutionResult,
      onError: (_ctx, _id, _payload, errors) => this.formatErrors(errors),
    };
  }

  /** Pings every interval; a peer that has not answered the previous ping is cut off. */
  private keepAlive(connection: Connection, intervalMs: number): NodeJS.Timeout {
    let alive = true;
    connection.socket.on('pong', () => (alive = true));
    const timer = setInterval(() => {
      if (!alive) {
        connection.socket.terminate();
        return;
      }
      alive = false;
      connection.socket.ping();
    }, intervalMs);
    timer.unref();
    return timer;
  }

  /** The graphql-sse route. Its streams are long-lived responses, ended on shutdown. */
  registerSse(fastify: FastifyInstance): void {
    const actors = new WeakMap<object, Actor | null>();
    const handler = createSseHandler<Record<PropertyKey, unknown>>({
      authenticate: () => null, // distinct connections mode only
      subscribe: (args) => this.shared.subscribe(args),
      onConnect: async (request) => {
        try {
          actors.set(request.raw, await this.auth.authenticate(request.raw.headers.authorization));
        } catch (error) {
          const problem = normalizeError(error);
          return [JSON.stringify({ errors: [{ message: problem.detail, extensions: { code: problem.code } }] }), {
            status: problem.status,
            statusText: problem.title,
            headers: { 'content-type': 'application/json; charset=utf-8', ...(problem.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) },
          }];
        }
        return undefined;
      },
      onSubscribe: (request, params) => {
        const prepared = this.prepare(params as SubscribePayload, this.contexts.forActor(actors.get(request.raw) ?? null));
        if (!isErrors(prepared)) return prepared as ExecutionArgs & { contextValue: Record<PropertyKey, unknown> };
        return [JSON.stringify({ errors: this.formatErrors(prepared) }), {
          status: 400,
          statusText: 'Bad Request',
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }];
      },
      onNext: (_ctx, _request, result) => this.formatResult(result as ExecutionResult),
    });
    fastify.route({
      method: ['GET', 'POST'],
      url: SSE_PATH,
      handler: async (request, reply) => {
        if (!this.admit('sse')) {
          reply.status(503).header('retry-after', '5').send({ errors: [{ message: 'Too many live connections', extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
          return reply;
        }
        const response = reply.raw;
        this.streams.add(response);
        request.raw.socket.setTimeout(0); // an event stream may be quiet for long
        response.once('close', () => {
          this.streams.delete(response);
          this.release('sse');
        });
        reply.hijack();
        try {
          await handler(request, reply);
        } catch (error) {
          this.logger.error(`SSE stream failed: ${error instanceof Error ? error.message : String(error)}`);
          if (!response.headersSent) response.writeHead(500).end();
          else response.end();
        }
        return reply;
      },
    });
  }

  /** SIGTERM: end the event streams so the server can close (WebSockets are closed by graphql-ws). */
  onApplicationShutdown(): void {
    for (const response of this.streams) response.end();
    this.streams.clear();
  }
}
