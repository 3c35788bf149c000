import { type ApolloServerPlugin, type BaseContext, type GraphQLRequestListener, HeaderMap } from '@apollo/server';
import type { FormattedExecutionResult, GraphQLError } from 'graphql';
import { CACHE_STATUS, type ResponseCache } from '../../../common/cache/response-cache.js';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import type { AdmittedOperation, OperationGate } from './operation-gate.js';

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
      const verdict = await gate.admit(request, { transport: 'http', address: contextValue.clientAddress }, schema);
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
      if ('admitted' in verdict && verdict.admitted.operation.operation === 'query' && contextValue.req?.headers.authorization === undefined) {
        return cached(cache, verdict.admitted);
      }
      return {
        async willSendResponse({ response }) {
          response.http.headers.set('cache-status', CACHE_STATUS.uncacheable);
        },
      };
    },
  };
}

/**
 * An anonymous query: answered from the response cache, or run and its answer kept. Keyed by
 * everything that can change the answer: the document, the operation and the variables (the
 * body's media type is Apollo's choice, made afresh on every response).
 */
function cached(cache: ResponseCache, operation: AdmittedOperation): GraphQLRequestListener<GraphQLContext> {
  const key = `graphql\u0000${operation.hash}\u0000${operation.operationName ?? ''}\u0000${JSON.stringify(operation.variables)}`;
  const since = cache.generation();
  const hit = cache.get<FormattedExecutionResult>(key);
  return {
    async responseForOperation() {
      if (!hit) return null;
      return { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: { ...hit } } };
    },
    async willSendResponse({ response }) {
      response.http.headers.set('cache-status', hit ? CACHE_STATUS.hit : CACHE_STATUS.miss);
      if (hit || response.body.kind !== 'single' || (response.http.status ?? 200) !== 200) return;
      const { data, errors } = response.body.singleResult;
      if (errors !== undefined || data === undefined || data === null) return;
      const answer: FormattedExecutionResult = { data };
      cache.set(key, answer, Buffer.byteLength(JSON.stringify(data)), since);
    },
  };
}
