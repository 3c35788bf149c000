import type { onRequestHookHandler, onSendHookHandler } from 'fastify';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      imgSrc: ["'self'", 'data:', 'https:', 'http:'],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      frameAncestors: ["'none'"],
      // Plain-HTTP deployments (behind no TLS) must still load their own assets.
      upgradeInsecureRequests: null,
    },
  },
  crossOriginEmbedderPolicy: false,
};

/** The policy of a response that is not a page: it loads nothing and is framed nowhere. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/** What helmet sets that matters on every response, a page or not. */
const ON_EVERY_RESPONSE = ['strict-transport-security', 'x-content-type-options', 'x-frame-options'] as const;

export interface SecurityHeaders {
  /** On every response (JSON, XML, problems, GraphQL, metrics): the headers OWASP lists for API responses. */
  data: Record<string, string>;
  /** On an HTML page, in their place: everything helmet sets (its CSP, referrer, cross-origin and legacy headers). */
  page: Record<string, string>;
}

/**
 * The security headers of a response. Helmet's set is for pages: of its twelve headers, a JSON
 * or XML answer needs nosniff, HSTS and a framing ban, and its CSP can be `default-src 'none'`
 * (nothing in it may load anything). The other eight headers and helmet's long CSP were a third
 * of the bytes of a `GET /posts/{id}` answer and a measurable share of its socket write, so data
 * answers carry four headers and pages (HTML representations, GraphiQL, the OpenAPI UI) all of
 * helmet's.
 *
 * With this configuration every header helmet sets is the same on every response (no nonces,
 * no per-request directives), so helmet runs once at start-up against a recording response:
 * running its dozen middlewares per request, each validating its header through Node's
 * setHeader, cost several percent of a simple GET.
 */
export function securityHeaders(): SecurityHeaders {
  const page = helmetHeaders();
  const data: Record<string, string> = { 'content-security-policy': DATA_CSP };
  for (const name of ON_EVERY_RESPONSE) data[name] = page[name];
  return { data, page };
}

const isPage = (contentType: unknown) => typeof contentType === 'string' && contentType.startsWith('text/html');

/** The headers of a response whose body has this media type. */
export function securityHeadersFor(headers: SecurityHeaders, contentType: unknown): Record<string, string> {
  return isPage(contentType) ? headers.page : headers.data;
}

/**
 * Two hooks: `onRequest` puts the data answer's headers on every reply (so every refusal and
 * every streamed or hijacked answer has them), and `onSend`, when the answer turns out to be a
 * page, puts helmet's in their place.
 */
export function securityHeaderHooks(): { sendSecurityHeaders: onRequestHookHandler; sendPageHeaders: onSendHookHandler } {
  const headers = securityHeaders();
  return {
    sendSecurityHeaders(_request, reply, done) {
      reply.headers(headers.data);
      done();
    },
    sendPageHeaders(_request, reply, payload, done) {
      if (isPage(reply.getHeader('content-type'))) reply.headers(headers.page);
      done(null, payload);
    },
  };
}

/** What helmet sets, read off one run of its middleware. */
export function helmetHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
  let finished = false;
  helmet(HELMET_OPTIONS)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  // helmet finishes synchronously; if a version ever stops doing so, fail at start-up, not per request.
  if (!finished) throw new Error('helmet did not finish synchronously');
  return headers;
}
