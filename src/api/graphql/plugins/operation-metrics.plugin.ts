import type { ApolloServerPlugin } from '@apollo/server';
import type { MetricsService } from '../../../metrics/metrics.service.js';

/**
 * graphql_operations_total{type}: every GraphQL-over-HTTP request by operation type, or
 * "invalid" when it was refused before executing (syntax, validation, limits, persisted queries).
 */
export function operationMetricsPlugin(metrics: MetricsService): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response }) {
          const executed = response.body.kind === 'incremental' || 'data' in response.body.singleResult;
          metrics.recordGraphQLOperation(executed && operation ? operation.operation : 'invalid');
        },
      };
    },
  };
}
