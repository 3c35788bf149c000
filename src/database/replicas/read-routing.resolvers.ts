import type { ApolloServerPlugin } from '@apollo/server';
import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import type { GraphQLContext } from '../../common/graphql/graphql-context.js';
import { readRoute } from '../../common/persistence/read-route.js';
import type { ReplicaSet } from './replica-set.js';

/**
 * GraphQL's side of the read replicas (only when DATABASE_REPLICA_URLS is set): an anonymous
 * query over HTTP gets a read route on its context, unless its answer is to be kept by the
 * response cache (then it reads from the primary, see read-routing.interceptor.ts); a mutation,
 * once done, leaves its commit position for the client's next reads. Subscriptions and whatever
 * runs over a socket or stream never get a route: they read from the primary.
 */
export function readRoutingPlugin(replicas: ReplicaSet): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          if (operation?.operation !== 'query' || contextValue.actor !== null || !contextValue.req) return;
          if (contextValue.req.headers.authorization !== undefined || contextValue.req.graphqlCache) return;
          contextValue.readRoute = await replicas.routeFor(contextValue.clientAddress);
        },
        async willSendResponse({ operation, contextValue }) {
          if (operation?.operation === 'mutation') await replicas.rememberWrite(contextValue.clientAddress);
        },
      };
    },
  };
}

/**
 * Runs every resolver with code of its own inside its operation's read route, when it has one:
 * Apollo executes outside its plugins' hooks, so the route must come from the context. The
 * DataLoaders' batches, scheduled by the first load, run inside it too.
 */
export function routeResolvers(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (resolve) field.resolve = inReadRoute(resolve);
    }
  }
  return schema;
}

function inReadRoute(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, contextValue, info) => {
    const route = (contextValue as GraphQLContext | undefined)?.readRoute;
    return route ? readRoute.run(route, resolve, source, args, contextValue, info) : resolve(source, args, contextValue, info);
  };
}
