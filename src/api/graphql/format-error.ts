import { HeaderMap } from '@apollo/server';
import type { Logger } from '@nestjs/common';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { normalizeError } from '../../common/errors/normalize-error.js';

/**
 * A failure before any operation runs (a bad credential, a rate limit, the database down while
 * checking a token) as a GraphQL error: its HTTP status (401 with WWW-Authenticate: Bearer, 429
 * or 503 with Retry-After) for Apollo, its code and message for the formatter.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const normalized = normalizeError(error);
  const headers = new HeaderMap(Object.entries(normalized.headers ?? {}));
  if (normalized.status === 401) headers.set('www-authenticate', 'Bearer');
  return new GraphQLError(normalized.detail, {
    originalError: error instanceof Error ? error : undefined,
    extensions: { code: normalized.code, http: { status: normalized.status, headers } },
  });
}

export interface FormatErrorOptions {
  /** Development only: an internal error keeps its own message (never its stack). */
  exposeInternalMessages: boolean;
  /** With introspection off: drop "Did you mean ...?" hints, which would leak the schema. */
  hideSuggestions: boolean;
  logger: Pick<Logger, 'error'>;
}

const INTERNAL_MESSAGE = 'Internal server error';
const SUGGESTION = / ?Did you mean(.+?)\?$/;
/** Extensions that never reach a client: Apollo's debugging aids and transport details. */
const PRIVATE_EXTENSIONS = new Set(['stacktrace', 'exception', 'originalError', 'http', 'code']);

/** TypeORM's and the drivers' errors may quote SQL: never shown, not even in development. */
function isDatabaseError(error: Error): boolean {
  return error.name === 'QueryFailedError' || 'driverError' in error || 'query' in error || 'sql' in error;
}

/** The error and what it wraps, outermost first (GraphQLError.originalError links them). */
function chainOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && !chain.includes(current)) {
    chain.push(current);
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
  return chain;
}

/** The innermost code in a chain of GraphQL errors: our own (QUERY_TOO_DEEP) over Apollo's wrapper (GRAPHQL_VALIDATION_FAILED). */
function innermostCode(chain: unknown[]): string | undefined {
  for (let index = chain.length - 1; index >= 0; index--) {
    const code = (chain[index] as GraphQLError).extensions?.code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The one formatter of GraphQL errors (Apollo's formatError). Every error leaves with
 * `message`, `extensions.code` and, for field errors, `path`: domain errors get their code and
 * detail from normalizeError (as REST problems do), GraphQL's own errors keep Apollo's codes
 * (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_USER_INPUT, PERSISTED_QUERY_*) or ours
 * (QUERY_TOO_DEEP, QUERY_TOO_COMPLEX, ...). Internal errors are logged and masked; stack
 * traces, SQL and driver messages never leave.
 */
export function createFormatError(options: FormatErrorOptions) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const chain = chainOf(error);
    const cause = chain[chain.length - 1];
    let code: string;
    let message = formatted.message;
    const extensions: Record<string, unknown> = {};

    if (cause instanceof GraphQLError) {
      // GraphQL's own failures: syntax, validation, variables, persisted queries, limits.
      code = innermostCode(chain) ?? (formatted.path ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
      for (const [key, value] of Object.entries(formatted.extensions ?? {})) {
        if (!PRIVATE_EXTENSIONS.has(key)) extensions[key] = value;
      }
      if (code === 'INTERNAL_SERVER_ERROR') {
        options.logger.error(`GraphQL ${formatted.path?.join('.') ?? 'request'} failed: ${cause.stack ?? cause.message}`);
        if (!options.exposeInternalMessages) message = INTERNAL_MESSAGE;
      }
    } else {
      // Thrown by a resolver, a service or the database.
      const normalized = normalizeError(cause);
      code = normalized.code;
      message = normalized.detail;
      if (normalized.fieldErrors?.length) extensions.fieldErrors = normalized.fieldErrors;
      const retryAfter = normalized.headers?.['retry-after'];
      if (retryAfter !== undefined) extensions.retryAfter = Number(retryAfter);
      if (normalized.unexpected) {
        const detail = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
        options.logger.error(`GraphQL ${formatted.path?.join('.') ?? 'request'} failed: ${detail}`);
      }
      if (code === 'INTERNAL_SERVER_ERROR') {
        message = options.exposeInternalMessages && cause instanceof Error && !isDatabaseError(cause) ? cause.message : INTERNAL_MESSAGE;
      }
    }

    if (options.hideSuggestions) message = message.replace(SUGGESTION, '');
    const result: { -readonly [K in keyof GraphQLFormattedError]: GraphQLFormattedError[K] } = { message };
    if (formatted.locations) result.locations = formatted.locations;
    if (formatted.path) result.path = formatted.path;
    result.extensions = { code, ...extensions };
    return result;
  };
}
