import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * helmet's headers on every response (nosniff, CSP, frame and referrer policies; no
 * X-Powered-By). @fastify/helmet rebuilds helmet's middleware on every request; the
 * middleware is built once here and applied in an onRequest hook.
 */
export function registerSecurityHeaders(fastify: FastifyInstance): void {
  const apply = helmet({
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
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    apply(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
