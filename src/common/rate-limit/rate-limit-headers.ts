export const REQUESTS_POLICY = 'requests';
export const COST_POLICY = 'cost';
export const RATE_LIMIT_POLICY_HEADER = 'ratelimit-policy';
export const RATE_LIMIT_HEADER = 'ratelimit';

/** Where one limit's window stands after a request: what the RateLimit headers say. */
export interface LimitState {
  /** The policy's name in the headers: "requests" or "cost". */
  policy: string;
  limit: number;
  windowS: number;
  remaining: number;
  /** Seconds until the window starts over (Retry-After when exceeded). */
  resetS: number;
  exceeded: boolean;
}

/**
 * draft-ietf-httpapi-ratelimit-headers, as structured-field lists (RFC 8941): one item per
 * limit that counted the request, named by its policy —
 * `RateLimit-Policy: "requests";q=1000;w=60, "cost";q=50000;w=60` and
 * `RateLimit: "requests";r=998;t=42, "cost";r=49800;t=42`.
 */
export function rateLimitHeaders(states: readonly LimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  return {
    [RATE_LIMIT_POLICY_HEADER]: states.map((state) => `"${state.policy}";q=${state.limit};w=${state.windowS}`).join(', '),
    [RATE_LIMIT_HEADER]: states.map((state) => `"${state.policy}";r=${state.remaining};t=${state.resetS}`).join(', '),
  };
}

/** Adds one limit's item to headers already carrying others' (the request limit's, set when the request arrived). */
export function appendRateLimitItem(existing: { policy?: string; limit?: string }, state: LimitState): Record<string, string> {
  const own = rateLimitHeaders([state]);
  const join = (before: string | undefined, item: string) => (before ? `${before}, ${item}` : item);
  return {
    [RATE_LIMIT_POLICY_HEADER]: join(existing.policy, own[RATE_LIMIT_POLICY_HEADER]),
    [RATE_LIMIT_HEADER]: join(existing.limit, own[RATE_LIMIT_HEADER]),
  };
}

/** What sets a response's headers (a Fastify reply). */
interface HeaderTarget {
  getHeader(name: string): unknown;
  header(name: string, value: string): unknown;
}

/**
 * Puts one limit's item into a response's RateLimit headers after the others' (the request
 * limit's, set when the request arrived), in place of an earlier item of the same policy (in a
 * batch, or a second search of one operation, the last standing is the one shown).
 */
export function setRateLimitItem(reply: HeaderTarget, state: LimitState): void {
  const without = (value: unknown) =>
    typeof value === 'string'
      ? value
          .split(', ')
          .filter((item) => item !== '' && !item.startsWith(`"${state.policy}"`))
          .join(', ')
      : undefined;
  const headers = appendRateLimitItem({ policy: without(reply.getHeader(RATE_LIMIT_POLICY_HEADER)), limit: without(reply.getHeader(RATE_LIMIT_HEADER)) }, state);
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
}
