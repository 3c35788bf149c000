import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Inject, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { REDIS } from '../redis/redis.module.js';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module.js';
import { SubscriptionTransports } from '../subscriptions/subscription-transports.js';
import { createFormatError } from './format-error.js';
import { GraphQLContextFactory } from './graphql-context.js';
import { graphiqlLandingPagePlugin, registerGraphiqlAssets } from './ide/graphiql.js';
import { GraphQLSupportModule } from './graphql-support.module.js';
import { loadPersistedQueryManifest } from './persisted-queries/manifest.js';
import { RedisApqCache } from './persisted-queries/redis-apq-cache.js';
import { operationMetricsPlugin } from './plugins/operation-metrics.plugin.js';
import { queryLimitsPlugin } from './plugins/query-limits.plugin.js';
import { requestGatePlugin } from './plugins/request-gate.plugin.js';

export const GRAPHQL_PATH = '/graphql';
/** How long an automatically persisted query is kept (seconds). */
const APQ_TTL_S = 24 * 60 * 60;


/** The IDE is a development aid: never served in production. */
const ideEnabled = (config: AppConfig) => !config.isProduction;

export function buildGraphQLOptions(
  config: AppConfig,
  contexts: GraphQLContextFactory,
  metrics: MetricsService,
  redis: Redis | null,
  transports: SubscriptionTransports,
): ApolloDriverConfig {
  const only = config.graphqlPersistedQueries === 'only';
  const allowList = only ? loadPersistedQueryManifest(config.graphqlPersistedQueriesFile!) : undefined;
  return {
    path: GRAPHQL_PATH,
    // The schema lives in memory; `npm run schema:print` writes schema.gql (and a test keeps it current).
    autoSchemaFile: true,
    sortSchema: true,
    introspection: config.graphqlIntrospection,
    // "Did you mean ...?" would reveal the schema that introspection hides.
    hideSchemaDetailsFromClientErrors: !config.graphqlIntrospection,
    includeStacktraceInErrorResponses: false,
    // Our formatError maps every error (HTTP exceptions included) itself.
    autoTransformHttpErrors: false,
    formatError: createFormatError({
      exposeInternalMessages: config.nodeEnv === 'development',
      hideSuggestions: !config.graphqlIntrospection,
      logger: new Logger('GraphQL'),
    }),
    csrfPrevention: true,
    parseOptions: { maxTokens: config.graphqlMaxTokens },
    persistedQueries:
      config.graphqlPersistedQueries === 'off'
        ? false
        : { ttl: APQ_TTL_S, cache: redis ? new RedisApqCache(redis, config.redisKeyPrefix) : undefined },
    // Nest's GraphiQL loads from a CDN; ours is served locally (ide/graphiql.ts).
    graphiql: false,
    context: (request: FastifyRequest, reply: FastifyReply) => contexts.forHttp(request, reply),
    plugins: [
      // Apollo's default cache-control plugin wraps every field resolver to compute a Cache-Control
      // header nobody here sets (@cacheControl is not used): a cost on every field for nothing.
      ApolloServerPluginCacheControlDisabled(),
      requestGatePlugin({
        maxDocumentBytes: config.graphqlMaxDocumentBytes,
        maxNesting: Math.max(256, config.graphqlMaxDepth + 32),
        allowList,
      }),
      queryLimitsPlugin({
        maxDepth: config.graphqlMaxDepth,
        maxAliases: config.graphqlMaxAliases,
        maxComplexity: config.graphqlMaxComplexity,
      }),
      operationMetricsPlugin(metrics),
      ...(ideEnabled(config) ? [graphiqlLandingPagePlugin()] : []),
    ],
    // graphql-transport-ws on the same path; auth, limits and caps live in SubscriptionTransports.
    subscriptions: { 'graphql-ws': { path: GRAPHQL_PATH, ...(transports.graphqlWsOptions() as object) } },
  };
}

/**
 * The GraphQL endpoint, POST and GET /graphql (Apollo Server on Fastify), code-first: the
 * resolvers live in their feature modules (posts.resolver.ts, ...). Limits, persisted queries,
 * error shaping and metrics are Apollo plugins configured here.
 */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      imports: [GraphQLSupportModule, SubscriptionsModule],
      inject: [AppConfig, GraphQLContextFactory, MetricsService, REDIS, SubscriptionTransports],
      useFactory: buildGraphQLOptions,
    }),
  ],
})
export class GraphQLApiModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (ideEnabled(this.config)) registerGraphiqlAssets(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}
