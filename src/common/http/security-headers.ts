import type { onRequestHookHandler } from 'fastify';
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

/**
 * An `onRequest` hook: helmet's headers on every response (nosniff, CSP, frame and referrer policies; no
 * X-Powered-By). With this configuration every header helmet sets is the same on every
 * response (no nonces, no per-request directives), so helmet runs once at start-up against a
 * recording response and each reply gets the recorded headers in one call: running helmet's
 * dozen middlewares per request, each validating its header through Node's setHeader, cost
 * several percent of a simple GET.
 */
export function sendSecurityHeaders(): onRequestHookHandler {
  const headers = securityHeaders();
  return function sendSecurityHeaders(_request, reply, done) {
    reply.headers(headers);
    done();
  };
}

/** What helmet sets, read off one run of its middleware. */
export function securityHeaders(): Record<string, string> {
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
