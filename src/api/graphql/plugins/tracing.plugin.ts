import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import { contextOf, failSpan, SpanKind, startSpan } from '../../../tracing/spans.js';

/**
 * A span per GraphQL-over-HTTP operation (registered only with tracing on), a child of the HTTP
 * request's span: `graphql.operation.name`, `.type` and `graphql.operation.cost`. Never the
 * document or its variables.
 */
export function tracingPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ contextValue }) {
      const span = startSpan('graphql', SpanKind.INTERNAL);
      // The resolvers run inside it, so the SQL statements they cause are its children.
      if (span) contextValue.traceContext = contextOf(span);
      return {
        async didResolveOperation({ operation, operationName, contextValue }) {
          if (!span || !operation) return;
          span.updateName(`${operation.operation} ${operationName ?? '(anonymous)'}`);
          span.setAttribute('graphql.operation.type', operation.operation);
          if (operationName) span.setAttribute('graphql.operation.name', operationName);
          if (contextValue.operationCost !== undefined) span.setAttribute('graphql.operation.cost', contextValue.operationCost);
        },
        async didEncounterErrors({ errors }) {
          failSpan(span, errors[0]);
        },
        async willSendResponse() {
          span?.end();
        },
      };
    },
  };
}
