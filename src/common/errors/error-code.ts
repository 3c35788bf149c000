/**
 * The domain error codes. One table maps each to its HTTP status and problem title;
 * the GraphQL formatter uses the code itself as `extensions.code`.
 */
export const ERROR_CODES = {
  BAD_USER_INPUT: { status: 400, title: 'Bad Request' },
  UNAUTHENTICATED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'Forbidden' },
  /** A user blocked from commenting (users.comments_blocked) writing a comment. */
  COMMENTS_BLOCKED: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not Acceptable' },
  CONFLICT: { status: 409, title: 'Conflict' },
  CURSOR_EXPIRED: { status: 410, title: 'Gone' },
  PRECONDITION_FAILED: { status: 412, title: 'Precondition Failed' },
  /** A GraphQL operation over GRAPHQL_MAX_COST, refused before it runs. */
  COST_LIMIT_EXCEEDED: { status: 400, title: 'Bad Request' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Content Too Large' },
  URI_TOO_LONG: { status: 414, title: 'URI Too Long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  INTERNAL_SERVER_ERROR: { status: 500, title: 'Internal Server Error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

// The first code of each status (FORBIDDEN, not INSUFFICIENT_SCOPE, for a bare 403).
const BY_STATUS = new Map<number, ErrorCode>();
for (const [code, { status }] of Object.entries(ERROR_CODES)) if (!BY_STATUS.has(status)) BY_STATUS.set(status, code as ErrorCode);

/** The code for an HTTP status raised outside the domain (framework, body parser). */
export function codeForStatus(status: number): ErrorCode {
  return BY_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_USER_INPUT');
}
