import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { type GraphQLFormattedError, locatedError } from 'graphql';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import type { QueryPlanner } from './query-planner.js';

/**
 * Planned documents inside Apollo (GRAPHQL_PLANS): GET /graphql, and POST when the planned path
 * before Apollo is off (tracing, read replicas; plans/planned-answers.ts). After the gate admitted
 * the operation and Apollo resolved it, a document the planner covers is answered from its plan,
 * without graphql-js execution; any other (or a request its plan declines) runs as before. The
 * hooks around it — the gate's, metrics, tracing, the response cache's — see the response either way.
 * When the database is unavailable, the root field's error is the one graphql-js would report
 * (located at it, formatted by Apollo's formatError: `formatError`); over POST the planned path
 * hands that answer on (`request.graphqlAdmission.answer`), so the statement is not sent twice.
 */
export function plansPlugin(planner: QueryPlanner, formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ queryHash, operationName, operation, schema, request, contextValue }) {
          // A read a replica may serve goes through the resolvers' routing (database/replicas).
          if (!planner.enabled || contextValue.readRoute || queryHash === undefined) return null;
          // Apollo asks even when no operation was resolved (an unknown operationName): its error follows.
          if (!operation) return null;
          // Over POST the planned path before Apollo has already tried: its answer, if any, is the plan's.
          const admission = contextValue.req?.graphqlAdmission;
          const answer = admission
            ? admission.answer
            : await planner.run({
                queryHash,
                operationName: operationName ?? undefined,
                operation,
                schema,
                variables: request.variables,
                actor: contextValue.actor,
                acceptLanguage: contextValue.req?.headers['accept-language'],
              });
          if (answer === undefined) return null;
          const http = { status: undefined, headers: new HeaderMap() };
          if (!('unavailable' in answer)) return { http, body: { kind: 'single', singleResult: { data: answer.data } } };
          const error = locatedError(answer.unavailable, [answer.root], [answer.root.alias?.value ?? answer.root.name.value]);
          return { http, body: { kind: 'single', singleResult: { errors: [formatError(error.toJSON(), error)], data: answer.data } } };
        },
      };
    },
  };
}
