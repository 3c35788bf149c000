import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, GraphQLError, Kind } from 'graphql';
import { checkComplexity, checkStructure, type QueryLimits } from '../limits/query-limits.js';

/** A document with one operation and no variables costs the same every time it comes. */
function isFixed(document: DocumentNode): boolean {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  return operations.length === 1 && !operations[0].variableDefinitions?.length;
}

/**
 * Applies the depth, alias and complexity limits to every HTTP operation once it is parsed,
 * validated and resolved, before it executes: over a limit is HTTP 400 with QUERY_TOO_DEEP or
 * QUERY_TOO_COMPLEX. Runs per request rather than as a cached validation rule because the
 * complexity depends on the variables; what depends on the document alone is remembered per
 * document (Apollo hands the same parsed document to every request with the same text).
 */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin {
  const byDocument = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const fixedCost = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operationName }) {
          let errors = byDocument.get(document);
          if (!errors) byDocument.set(document, (errors = checkStructure(schema, document, limits)));
          if (errors.length === 0) {
            if (isFixed(document)) {
              errors = fixedCost.get(document);
              if (!errors) fixedCost.set(document, (errors = checkComplexity(schema, document, limits)));
            } else {
              errors = checkComplexity(schema, document, limits, request.variables, operationName);
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
