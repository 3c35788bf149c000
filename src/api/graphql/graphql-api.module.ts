import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig, ApolloFederationDriver, type ApolloFederationDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Module, type OnModuleInit } from '@nestjs/common';
import { GraphQLModule, GraphQLSchemaHost } from '@nestjs/graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { ResponseCache } from '../../common/cache/response-cache.js';
import { AppConfig } from '../../config/app-config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { GraphQLCacheHooks } from './cache/graphql-cache.hooks.js';
import { guardEntityRepresentations } from './federation/entity-representations.js';
import { FEDERATION_LINK } from './federation/federation-link.js';
import { serveReferableEntitiesSdl } from './federation/referable-entities.js';
import { gatePlugin } from './gate/gate.plugin.js';
import { OperationGate } from './gate/operation-gate.js';
import { GraphQLContextFactory } from './graphql-context.factory.js';
import { graphiqlLandingPagePlugin } from './ide/graphiql.js';
import { GraphQLSupportModule } from './graphql-support.module.js';
import { operationMetricsPlugin } from './plugins/operation-metrics.plugin.js';
import { tracingPlugin } from './plugins/tracing.plugin.js';
import { QueryPlanner } from './plans/query-planner.js';
import { plansPlugin } from './plans/plans.plugin.js';
import { PlannedAnswers } from './plans/planned-answers.js';
import { traceResolvers } from '../../tracing/resolver-context.js';
import { readRoutingPlugin, routeResolvers } from '../../database/replicas/read-routing.resolvers.js';
import { ReplicaSet } from '../../database/replicas/replica-set.js';
import { tracingState } from '../../tracing/tracing-state.js';
import { LiveOperationsModule } from './subscriptions/live-operations.module.js';
import { OperationRunner } from './subscriptions/operation-runner.js';
import { SseTransportModule } from './subscriptions/sse-transport.module.js';
import { WebSocketTransportModule } from './subscriptions/websocket-transport.module.js';

export const GRAPHQL_PATH = '/graphql';

/** Nest builds the root types without a description; the schema describes every type. */
const ROOT_TYPE_DESCRIPTIONS: Record<string, string> = {
  Query: 'What can be read (anyone may, unless a field says otherwise)',
  Mutation: 'What can be changed (each field says who may). Top-level fields run one after another',
  Subscription: 'Changes as they happen, over WebSocket (graphql-transport-ws at /graphql) or server-sent events (graphql-sse at /graphql/stream)',
};

export function describeRootTypes(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (type && !type.description) type.description = ROOT_TYPE_DESCRIPTIONS[type.name];
  }
  return schema;
}

/** The IDE is a development aid: never served in production. */
export const ideEnabled = (config: AppConfig) => !config.isProduction;

export function buildGraphQLOptions(
  config: AppConfig,
  contexts: GraphQLContextFactory,
  metrics: MetricsService,
  gate: OperationGate,
  cache: ResponseCache,
  replicas: ReplicaSet,
  planner: QueryPlanner,
): ApolloDriverConfig & ApolloFederationDriverConfig {
  const routed = (schema: GraphQLSchema) => (replicas.enabled ? routeResolvers(schema) : schema);
  return {
    path: GRAPHQL_PATH,
    // The schema lives in memory; `npm run schema:print` writes schema.gql (and a test keeps it current).
    // As a federation subgraph (CONTRACT §10) it gains _service, _entities and the @key directives.
    autoSchemaFile: config.graphqlFederation ? { federation: FEDERATION_LINK } : true,
    sortSchema: true,
    transformSchema: (schema) => {
      const described = describeRootTypes(config.graphqlFederation ? serveReferableEntitiesSdl(guardEntityRepresentations(schema)) : schema);
      return routed(tracingState.enabled ? traceResolvers(described) : described);
    },
    introspection: config.graphqlIntrospection,
    // "Did you mean ...?" would reveal the schema that introspection hides.
    hideSchemaDetailsFromClientErrors: !config.graphqlIntrospection,
    includeStacktraceInErrorResponses: false,
    // Our formatError maps every error (HTTP exceptions included) itself.
    autoTransformHttpErrors: false,
    formatError: gate.formatError,
    // No credential is ever a cookie, so a cross-site request carries none: stock clients' GET
    // queries without a Content-Type (urql's default) are answered.
    csrfPrevention: false,
    parseOptions: { maxTokens: config.graphqlMaxTokens },
    // The gate parses and validates; Apollo finds the result here and runs it.
    documentStore: gate.documentStore,
    // Persisted queries (automatic and the allow-list) are the gate's, for every transport.
    persistedQueries: false,
    // Nest's GraphiQL loads from a CDN; ours is served locally (ide/graphiql.ts).
    graphiql: false,
    context: (request: FastifyRequest, reply: FastifyReply) => contexts.forHttp(request, reply),
    plugins: [
      // Apollo's default cache-control plugin wraps every field resolver to compute a Cache-Control
      // header nobody here sets (@cacheControl is not used): a cost on every field for nothing.
      ApolloServerPluginCacheControlDisabled(),
      // A subgraph would otherwise time every field for any caller sending apollo-federation-include-trace
      // (Apollo Studio's inline traces, not used here; tracing is OpenTelemetry's, CONTRACT §10).
      ...(config.graphqlFederation ? [ApolloServerPluginInlineTraceDisabled()] : []),
      gatePlugin(gate, cache),
      operationMetricsPlugin(metrics),
      ...(replicas.enabled ? [readRoutingPlugin(replicas)] : []),
      ...(tracingState.enabled ? [tracingPlugin()] : []),
      ...(ideEnabled(config) ? [graphiqlLandingPagePlugin()] : []),
      plansPlugin(planner, gate.formatError),
    ],
    // WebSocket and SSE are served by WebSocketTransportModule and SseTransportModule, through the same gate.
  };
}

/**
 * The GraphQL endpoint, POST and GET /graphql (Apollo Server on Fastify), code-first: the
 * resolvers live in their feature modules (posts.resolver.ts, ...); and the live transports,
 * WebSocket on /graphql and SSE on /graphql/stream. Every operation passes the operation gate
 * (gate/operation-gate.ts): here through its Apollo plugin, there through OperationRunner.
 */
@Module({
  // Registered by the HTTP pipeline (api/http-pipeline.ts), with GraphiQL's assets and the transports.
  providers: [GraphQLCacheHooks, PlannedAnswers],
})
export class GraphQLApiModule implements OnModuleInit {
  /** The driver is chosen at start-up: with GRAPHQL_FEDERATION=true an Apollo Federation 2 subgraph. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GraphQLApiModule,
      imports: [
        GraphQLModule.forRootAsync<ApolloDriverConfig | ApolloFederationDriverConfig>({
          driver: config.graphqlFederation ? ApolloFederationDriver : ApolloDriver,
          imports: [GraphQLSupportModule],
          inject: [AppConfig, GraphQLContextFactory, MetricsService, OperationGate, ResponseCache, ReplicaSet, QueryPlanner],
          useFactory: buildGraphQLOptions,
        }),
        GraphQLSupportModule,
        LiveOperationsModule,
        WebSocketTransportModule,
        SseTransportModule,
      ],
    };
  }

  constructor(
    private readonly schemaHost: GraphQLSchemaHost,
    private readonly liveOperations: OperationRunner,
  ) {}

  onModuleInit(): void {
    // GraphQLModule (imported here, so initialized first) has built the schema: the live
    // transports get it from here rather than looking GraphQLModule up at run time.
    this.liveOperations.useSchema(this.schemaHost.schema);
  }
}
