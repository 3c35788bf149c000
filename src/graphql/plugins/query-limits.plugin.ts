import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, GraphQLError } from 'graphql';
import { checkComplexity, checkStructure, complexityVariables, type QueryLimits } from '../limits/query-limits.js';

/** Distinct variable values remembered per document before its cache starts over. */
const MAX_COSTS_PER_DOCUMENT = 64;

interface DocumentLimits {
  structural: readonly GraphQLError[];
  /** The variables whose values can change the complexity (`first`, @skip/@include). */
  costVariables: readonly string[];
  costs: Map<string, readonly GraphQLError[]>;
}

/**
 * Applies the depth, alias and complexity limits to every HTTP operation once it is parsed,
 * validated and resolved, before it executes: over a limit is HTTP 400 with QUERY_TOO_DEEP or
 * QUERY_TOO_COMPLEX. Runs per request rather than as a cached validation rule because the
 * complexity depends on the variables; what depends on the document alone is remembered per
 * document (Apollo hands the same parsed document to every request with the same text), and
 * the complexity per value of the few variables that can change it — so the post page asked
 * for with a thousand different `$id`s is measured once.
 */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin {
  const byDocument = new WeakMap<DocumentNode, DocumentLimits>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operationName }) {
          let known = byDocument.get(document);
          if (!known) {
            known = { structural: checkStructure(schema, document, limits), costVariables: complexityVariables(document), costs: new Map() };
            byDocument.set(document, known);
          }
          let errors = known.structural;
          if (errors.length === 0) {
            const variables = request.variables ?? {};
            const key = `${operationName ?? ''}\u0000${JSON.stringify(known.costVariables.map((name) => variables[name] ?? null))}`;
            const cached = known.costs.get(key);
            if (cached) {
              errors = cached;
            } else {
              errors = checkComplexity(schema, document, limits, variables, operationName);
              if (known.costs.size >= MAX_COSTS_PER_DOCUMENT) known.costs.clear();
              // Variables that do not fit their types are reported by this walk; such answers are not kept.
              if (errors.every((error) => error.extensions.code !== 'BAD_USER_INPUT')) known.costs.set(key, errors);
            }
          }
          const [error] = errors;
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
