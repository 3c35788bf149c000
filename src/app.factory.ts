import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { AppModule } from './app.module.js';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter.js';
import { AllowedMethods } from './common/http/allowed-methods.js';
import { trustFunction } from './common/http/client-address.js';
import { registerQueryEncodingCheck } from './common/http/query-encoding.js';
import { registerSecurityHeaders } from './common/http/security-headers.js';
import { answerFrameworkError, loggerOptions, PinoNestLogger, registerRequestLogging } from './common/logging/request-logging.js';
import { setupOpenApi } from './api/rest/openapi.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { graphqlRateLimitResponder } from './api/graphql/graphql-error-responder.js';
import type { AppConfig } from './config/app-config.js';

/** Builds the whole application (not yet listening): used by main.ts and by the tests. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustFunction(config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    http: httpServerTimeouts(config.requestTimeoutMs),
    ...loggerOptions(config),
    frameworkErrors: answerFrameworkError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new PinoNestLogger(adapter.getInstance().log),
    abortOnError: false,
    // Fastify's own JSON parser only: forms and text are refused with 415.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // Before any route is registered: it learns the methods of each path from them.
  const allowedMethods = new AllowedMethods(fastify);
  configureBodyParsing(fastify);
  registerRequestLogging(fastify);

  registerSecurityHeaders(fastify);
  registerQueryEncodingCheck(fastify);
  app.enableCors({
    origin: config.corsOrigins.length > 0 ? config.corsOrigins : false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['Location', 'Link', 'ETag', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
  app.useGlobalFilters(new ProblemDetailsFilter([graphqlRateLimitResponder, allowedMethods.responder]));
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, config);
  return app;
}

/**
 * A request must arrive whole within REQUEST_TIMEOUT_MS (else 408 and the connection closes),
 * however slowly it trickles in: the socket's idle timeout (`connectionTimeout`) restarts with
 * every byte. Node checks `requestTimeout` only every `connectionsCheckingInterval` (30 s by
 * default), and when `headersTimeout` (60 s by default) is the longer of the two it uses that as
 * the request's deadline: a body sent a byte a second was cut after some 90 s. Both are set here,
 * the check running every tenth of the timeout (at most every second).
 */
export function httpServerTimeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 10))),
  };
}

/**
 * Bodies are JSON (application/json or any +json type) or refused with 415. An empty body under a
 * JSON Content-Type is no body (fetch wrappers send that header on every request, DELETE
 * included), not an error: a route that needs a body refuses a missing one in validation.
 */
function configureBodyParsing(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parseJsonOrNothing: typeof parseJson = (request, body, done) => {
    if (body === '' || (Buffer.isBuffer(body) && body.length === 0)) return done(null, undefined);
    return parseJson(request, body, done);
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonOrNothing);
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJsonOrNothing);
}
