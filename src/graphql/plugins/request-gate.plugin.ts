import { createHash } from 'node:crypto';
import type { ApolloServerPlugin, GraphQLRequest } from '@apollo/server';
import { GraphQLError } from 'graphql';

export interface RequestGateOptions {
  /** Documents longer than this (UTF-8 bytes) are refused before they are parsed. */
  maxDocumentBytes: number;
  /** GRAPHQL_PERSISTED_QUERIES=only: the manifest's documents by id; nothing else runs. */
  allowList?: ReadonlyMap<string, string>;
}

/** Stands in for a refused document: parsed, validated and cached in microseconds, never run. */
const REFUSED_DOCUMENT = '{__typename}';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function refusal(code: string, status: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

function check(request: GraphQLRequest, options: RequestGateOptions): GraphQLError | undefined {
  const { query } = request;
  if (
    typeof query === 'string' &&
    (query.length > options.maxDocumentBytes ||
      (query.length * 3 > options.maxDocumentBytes && Buffer.byteLength(query) > options.maxDocumentBytes))
  ) {
    return refusal('PAYLOAD_TOO_LARGE', 413, `The GraphQL document is larger than ${options.maxDocumentBytes} bytes`);
  }
  if (!options.allowList) return undefined;
  const persisted = request.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined;
  const id = typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash : typeof query === 'string' ? sha256(query) : undefined;
  const body = id === undefined ? undefined : options.allowList.get(id);
  if (body === undefined) {
    return refusal(
      'PERSISTED_QUERY_REQUIRED',
      400,
      'Only persisted queries may run here: send the id of a listed document as extensions.persistedQuery.sha256Hash',
    );
  }
  // By id alone: the manifest supplies the text (Apollo then checks that the id is its hash).
  if (query === undefined) request.query = body;
  return undefined;
}

/**
 * Runs first for every request, before the document is looked up, parsed or validated: refuses
 * oversized documents, and in persisted-only mode anything that is not in the manifest. Apollo
 * turns no error of this early hook into a response, so a refused request has its document
 * replaced by a harmless one and is refused at didResolveOperation, the first hook whose error
 * Apollo answers (with the status given here); nothing of the refused document is parsed, run
 * or stored in the APQ cache.
 */
export function requestGatePlugin(options: RequestGateOptions): ApolloServerPlugin {
  return {
    async requestDidStart({ request }) {
      const refused = check(request, options);
      if (!refused) return;
      request.query = REFUSED_DOCUMENT;
      request.extensions = {};
      request.variables = {};
      request.operationName = undefined;
      return {
        async didResolveOperation() {
          throw refused;
        },
      };
    },
  };
}
