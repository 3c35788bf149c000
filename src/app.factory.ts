import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { AppModule } from './app.module.js';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter.js';
import { trustFunction } from './common/http/client-address.js';
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
  configureBodyParsing(fastify);
  registerRequestLogging(fastify);

  registerSecurityHeaders(fastify);
  app.enableCors({
    origin: config.corsOrigins.length > 0 ? config.corsOrigins : false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['Location', 'Link', 'ETag', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
  app.useGlobalFilters(new ProblemDetailsFilter([graphqlRateLimitResponder]));
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, config);
  return app;
}

/** Bodies are JSON (application/json or any +json type) or refused with 415. */
function configureBodyParsing(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('text/plain');
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, fastify.getDefaultJsonParser('error', 'error'));
}
