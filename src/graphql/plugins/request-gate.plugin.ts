import { createHash } from 'node:crypto';
import type { ApolloServerPlugin, BaseContext, GraphQLRequest, GraphQLRequestListener } from '@apollo/server';
import { GraphQLError } from 'graphql';

export interface RequestGateOptions {
  /** Documents longer than this (UTF-8 bytes) are refused before they are parsed. */
  maxDocumentBytes: number;
  /**
   * Documents whose brackets ({, [, () nest deeper than this are refused before they are parsed:
   * graphql-js parses recursively, and a literal nested a few thousand deep overflowed the stack.
   */
  maxNesting?: number;
  /** GRAPHQL_PERSISTED_QUERIES=only: the manifest's documents by id; nothing else runs. */
  allowList?: ReadonlyMap<string, string>;
}

/** Stands in for a refused document: parsed, validated and cached in microseconds, never run. */
const REFUSED_DOCUMENT = '{__typename}';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function refusal(code: string, status: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

const DEFAULT_MAX_NESTING = 256;

/**
 * How deep `{`, `[` and `(` nest in a document, outside strings and comments (a linear scan
 * that stops as soon as `limit` is passed).
 */
function nestingDepth(query: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < query.length; index += 1) {
    const char = query[index];
    if (char === '#') {
      while (index < query.length && query[index] !== '\n' && query[index] !== '\r') index += 1;
    } else if (char === '"') {
      if (query.startsWith('"""', index)) {
        // Escaped triple quotes (\""") inside a block string do not end it.
        let close = query.indexOf('"""', index + 3);
        while (close !== -1 && query[close - 1] === '\\') close = query.indexOf('"""', close + 3);
        index = close === -1 ? query.length : close + 2;
      } else {
        index += 1;
        while (index < query.length && query[index] !== '"' && query[index] !== '\n') index += query[index] === '\\' ? 2 : 1;
      }
    } else if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === '}' || char === ']' || char === ')') {
      depth -= 1;
    }
  }
  return deepest;
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
  const maxNesting = options.maxNesting ?? DEFAULT_MAX_NESTING;
  if (typeof query === 'string' && nestingDepth(query, maxNesting) > maxNesting) {
    return refusal('GRAPHQL_PARSE_FAILED', 400, `Syntax Error: the document nests deeper than ${maxNesting} levels`);
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
 * A subscription sent as a plain HTTP request would run its fields' resolvers with no event
 * (INTERNAL_SERVER_ERROR): refused instead, pointing at the transports that serve them.
 */
const SUBSCRIPTIONS_ELSEWHERE: GraphQLRequestListener<BaseContext> = {
  async didResolveOperation({ operation }) {
    if (operation?.operation === 'subscription') {
      throw refusal(
        'BAD_REQUEST',
        400,
        'Subscriptions are served over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events at /graphql/stream, not as HTTP requests',
      );
    }
  },
};

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
      if (!refused) return SUBSCRIPTIONS_ELSEWHERE;
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
