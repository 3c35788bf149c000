import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import { setRateLimitItem } from '../../../common/rate-limit/rate-limit-headers.js';
import type { ResponseCache } from '../../../common/cache/response-cache.js';
import { markStorable } from '../cache/graphql-cache.hooks.js';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import type { OperationGate } from './operation-gate.js';

/** Stands in for a refused document: parsed, validated and cached in microseconds, never run. */
const REFUSED_DOCUMENT = '{__typename}';

function refuse(error: GraphQLError): GraphQLRequestListener<BaseContext> {
  return {
    async didResolveOperation() {
      throw error;
    },
  };
}

/**
 * POST and GET /graphql through the operation gate. Apollo's first hook turns no error into a
 * response, so a refused request has its document replaced by a harmless one and is refused at
 * didResolveOperation (with the gate's status); nothing of the refused document is parsed again,
 * run or stored. An admitted document is then found in Apollo's document store — the gate's — and
 * runs as the gate validated it. A document that does not parse or validate is left to Apollo,
 * which reports every error by the same rules.
 */
export function gatePlugin(gate: OperationGate, cache: ResponseCache): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request, contextValue, schema }) {
      // The planned path (plans/planned-answers.ts) may have taken the verdict already.
      const verdict = contextValue.req?.graphqlAdmission?.verdict ?? (await gate.admit(request, { transport: 'http', address: contextValue.clientAddress }, schema));
      const budget = 'admitted' in verdict ? verdict.admitted.budget : 'refused' in verdict ? verdict.budget : undefined;
      // The cost budget's item after the request limit's (in a batch, the last operation's standing).
      if (budget && contextValue.reply) setRateLimitItem(contextValue.reply, budget);
      if ('admitted' in verdict) contextValue.operationCost = verdict.admitted.cost;
      if ('refused' in verdict) {
        request.query = REFUSED_DOCUMENT;
        request.extensions = {};
        request.variables = {};
        request.operationName = undefined;
        return refuse(verdict.refused);
      }
      // Persisted queries are the gate's: Apollo's own handling is off and must not see the extension.
      if (request.extensions?.persistedQuery !== undefined) request.extensions = { ...request.extensions, persistedQuery: undefined };
      request.query = 'admitted' in verdict ? verdict.admitted.query : verdict.query;
      if (!cache.enabled) return undefined;
      const state = contextValue.req?.graphqlCache ?? null;
      return {
        async willSendResponse({ response, operation }) {
          // The cache hooks looked this request up before Apollo (graphql-cache.hooks.ts): keep a query's data without errors.
          const storable =
            state !== null &&
            contextValue.uncacheable !== true &&
            operation?.operation === 'query' &&
            response.body.kind === 'single' &&
            (response.http.status ?? 200) === 200 &&
            response.body.singleResult.errors === undefined &&
            response.body.singleResult.data !== undefined &&
            response.body.singleResult.data !== null;
          response.http.headers.set('cache-status', markStorable(state, storable));
        },
      };
    },
  };
}
