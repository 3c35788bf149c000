import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { checkQueryLimits, type QueryLimits } from '../limits/query-limits.js';

/**
 * Applies the depth, alias and complexity limits to every HTTP operation once it is parsed,
 * validated and resolved, before it executes: over a limit is HTTP 400 with QUERY_TOO_DEEP or
 * QUERY_TOO_COMPLEX. Runs per request rather than as a cached validation rule because the
 * complexity depends on the variables.
 */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operationName }) {
          const [error] = checkQueryLimits(schema, document, limits, request.variables, operationName);
          if (error) {
            throw new GraphQLError(error.message, {
              nodes: error.nodes,
              extensions: { ...error.extensions, http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
