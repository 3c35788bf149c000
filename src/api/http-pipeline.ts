import fastifyMultipart from '@fastify/multipart';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import type { Server } from 'node:http';
import { ProblemDetailsFilter } from '../common/errors/problem-details.filter.js';
import { AllowedMethods } from '../common/http/allowed-methods.js';
import { requestSourceHook } from '../common/http/request-source.js';
import { trustFunction } from '../common/http/client-address.js';
import { parseJsonOrNothing } from '../common/http/json-body.js';
import { refuseHostileHeaders } from '../common/http/header-text.js';
import { refuseMalformedQuery } from '../common/http/query-encoding.js';
import { securityHeaderHooks } from '../common/http/security-headers.js';
import { answerFrameworkError, echoRequestId, loggerOptions } from '../common/logging/request-logging.js';
import { RateLimiter, rateLimitHook } from '../common/rate-limit/rate-limiter.js';
import type { AppConfig } from '../config/app-config.js';
import { nameHttpSpanAfterRoute } from '../tracing/http-span.js';
import { tracingState } from '../tracing/tracing-state.js';
import { METRICS_PATH, recordHttpMetrics, serveMetrics } from '../metrics/metrics.module.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { GraphQLCacheHooks } from './graphql/cache/graphql-cache.hooks.js';
import { PlannedAnswers } from './graphql/plans/planned-answers.js';
import { GRAPHQL_PATH, ideEnabled } from './graphql/graphql-api.module.js';
import { graphqlRateLimitResponder } from './graphql/graphql-error-responder.js';
import { IDE_ASSETS_PATH, serveGraphiqlAssets } from './graphql/ide/graphiql.js';
import { SSE_PATH, SseTransport } from './graphql/subscriptions/sse.transport.js';
import { EXPORT_ROUTE } from '../personal-data/personal-data.controller.js';
import { WebSocketTransport } from './graphql/subscriptions/websocket.transport.js';
import { FAVICON_PATH, serveFavicon } from './rest/favicon.js';
import { passUploadThrough, refuseMisplacedUploads, uploadLimits } from '../media/upload-parsers.js';
import { setupOpenApi } from './rest/openapi.js';
import { RepresentationHooks } from './rest/representation.hooks.js';

/**
 * The HTTP pipeline: every Fastify hook, body parser and route that is not a Nest controller, in
 * the order a request meets them. Fastify runs the hooks of one kind in the order they are added,
 * and the kinds in its fixed lifecycle (onRequest → preParsing → body parser → preHandler →
 * handler → preSerialization → onSend → onResponse), so this file reads top to bottom as a request
 * goes. The modules keep the logic; only this file registers it (eslint refuses `addHook` and the
 * like anywhere else). test/http-pipeline.e2e-spec.ts lists the hooks Fastify runs, in order.
 */

/** What a connection and a request may cost before any hook runs: given to the FastifyAdapter. */
export function httpServerOptions(config: AppConfig): FastifyHttpOptions<Server> {
  return {
    // 413 beyond it, counted as the body streams in.
    bodyLimit: config.bodyLimitBytes,
    // The one TRUST_PROXY rule: request.ip is the client for the rate limit, the log and the metrics.
    trustProxy: trustFunction(config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    http: httpServerTimeouts(config.requestTimeoutMs),
    // pino, the request id (a client's X-Request-Id when it is a plain token) and one log line per request.
    ...loggerOptions(config),
    // The router's own refusals (a malformed path, 400; an over-long segment, 414) run no hook: answered as problems.
    frameworkErrors: answerFrameworkError,
  };
}

/**
 * Registers the pipeline on the application's Fastify instance. Called once by createApp, after
 * Nest has built the providers (their instances are taken from `app`) and before `app.init()`
 * registers the controllers' routes.
 */
export function registerHttpPipeline(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const allowedMethods = new AllowedMethods();
  const representations = app.get(RepresentationHooks);
  const graphqlCache = app.get(GraphQLCacheHooks).at(GRAPHQL_PATH);
  const metrics = app.get(MetricsService);
  const { sendSecurityHeaders, sendPageHeaders } = securityHeaderHooks();

  // First of all: every route registered from here on (Nest's at init included) tells which methods its path serves.
  fastify.addHook('onRoute', allowedMethods.learnRoute);
  // Fields the hooks below keep on each request, declared once so every request has the same shape.
  for (const [name, initial] of Object.entries({ ...RepresentationHooks.requestFields, ...GraphQLCacheHooks.requestFields, ...PlannedAnswers.requestFields })) {
    fastify.decorateRequest(name, initial);
  }

  // ── The connection, before Fastify sees a request ─────────────────────────────────────────
  // A method Node's parser refuses (FOO) is answered 405 with Allow (or 404) like any other method.
  allowedMethods.answerUnknownMethods(fastify.server);
  // WebSocket upgrades (graphql-ws on /graphql): no hook sees them; the transport rate-limits and caps them itself.
  app.get(WebSocketTransport).attach(fastify.server);

  // ── onRequest ──────────────────────────────────────────────────────────────────────────────
  // Nest's adapter runs its own onRequest hooks before all of these: 503 while shutting down,
  // then CORS (so a preflight ends there, and every answer below carries the CORS headers).
  app.enableCors({
    origin: config.corsOrigins.length > 0 ? config.corsOrigins : false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'If-Match', 'If-None-Match', 'X-Request-Id', 'X-Current-Password'],
    exposedHeaders: ['Location', 'Link', 'ETag', 'Retry-After', 'RateLimit-Policy', 'RateLimit', 'X-Request-Id'],
    maxAge: 600,
  });
  // Before anything can refuse the request: every answer, each refusal below included, carries its id...
  fastify.addHook('onRequest', echoRequestId);
  // With tracing on, the HTTP span is named after its route.
  if (tracingState.enabled) fastify.addHook('onRequest', nameHttpSpanAfterRoute);
  // ...and the security headers (nosniff, HSTS, no framing, a CSP that loads nothing; a page gets helmet's at onSend).
  fastify.addHook('onRequest', sendSecurityHeaders);
  // Before any work: a client over RATE_LIMIT_MAX gets 429 whatever it asked, 404s and bad input included;
  // every answer it counts carries RateLimit-Policy and RateLimit (GraphQL's add the cost budget, gate.plugin.ts).
  if (config.rateLimitMax > 0) fastify.addHook('onRequest', rateLimitHook(app.get(RateLimiter), config.rateLimitMax, config.rateLimitWindowS));
  // 400 for a query string that is not percent-encoded UTF-8, before any handler reads it.
  fastify.addHook('onRequest', refuseMalformedQuery);
  // 400 for a header value holding a control character (or past U+00FF, or overlong), likewise.
  fastify.addHook('onRequest', refuseHostileHeaders);
  // Negotiated routes: the representation from Accept (406 before any work), and the response cache's key.
  fastify.addHook('onRequest', representations.negotiate);

  // ── preParsing ─────────────────────────────────────────────────────────────────────────────
  // A method no route serves: 405 with Allow (or 404), before a body is read (no 413/415 instead).
  fastify.addHook('preParsing', allowedMethods.refuseUnrouted);
  // A multipart or image/* body anywhere but POST /media: 415 before it is read (as before uploads existed).
  fastify.addHook('preParsing', refuseMisplacedUploads);

  // ── Body parsers ───────────────────────────────────────────────────────────────────────────
  // JSON only: Fastify's text parser goes (a text or form body is 415, as is any other type)...
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  // ...and its JSON parser answers application/json and every +json type, an empty body being none.
  const json = parseJsonOrNothing(fastify);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, json);
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, json);
  // POST /media: a form streamed part by part (@fastify/multipart, one file of at most MEDIA_MAX_BYTES + 1 bytes, a few short fields)...
  void fastify.register(fastifyMultipart, { limits: uploadLimits(config.mediaMaxBytes) });
  // ...or the raw image, handed on as the stream it is (counted and bounded by the upload, never buffered here).
  fastify.addContentTypeParser(/^image\/[\w.+-]+$/, passUploadThrough);

  // ── preHandler ─────────────────────────────────────────────────────────────────────────────
  // After the rate limit and the negotiation, before any work: an anonymous GET's kept representation.
  fastify.addHook('preHandler', representations.answerRepresentationFromCache);
  // The same for an anonymous GraphQL query (its body is parsed by now), before Apollo.
  fastify.addHook('preHandler', graphqlCache.answerGraphQLFromCache);
  // A planned document (GRAPHQL_PLANS) through the gate and its one statement, answered before Apollo.
  const plannedAnswers = app.get(PlannedAnswers).at(GRAPHQL_PATH);
  if (plannedAnswers) fastify.addHook('preHandler', plannedAnswers);
  // What the handler changes is recorded in the audit log with this request's address, user agent and id
  // (a GET changes nothing, but an SSE stream's mutations and a personal data export, which is recorded).
  fastify.addHook('preHandler', requestSourceHook([SSE_PATH, EXPORT_ROUTE]));

  // ── Handlers ───────────────────────────────────────────────────────────────────────────────
  // Nest registers its controllers' routes and Apollo's /graphql at init; these are plain routes.
  // Prometheus text: no credential read, no database asked.
  if (config.metricsEnabled) fastify.get(METRICS_PATH, serveMetrics(metrics));
  // graphql-sse: a long-lived response per operation, through the operation gate.
  fastify.route(app.get(SseTransport).route());
  // GraphiQL's scripts and styles, outside production (the page itself is Apollo's landing page).
  if (ideEnabled(config)) fastify.get(`${IDE_ASSETS_PATH}/:file`, serveGraphiqlAssets());
  // The icon browsers ask every page for (cacheable; HEAD too, as for every GET route).
  fastify.get(FAVICON_PATH, serveFavicon());
  // The OpenAPI UI at /docs and the document at /docs-json.
  setupOpenApi(app, config);

  // ── preSerialization ───────────────────────────────────────────────────────────────────────
  // What a negotiated route returned, rendered as JSON, HAL, XML or HTML (ETag, 304, Link), and kept.
  fastify.addHook('preSerialization', representations.renderRepresentation);

  // ── onSend ─────────────────────────────────────────────────────────────────────────────────
  // Apollo's answer to an anonymous query, kept when the gate marked it storable.
  fastify.addHook('onSend', graphqlCache.keepGraphQLAnswer);
  // An HTML page (a representation, GraphiQL, the OpenAPI UI, a problem for a browser): helmet's headers.
  fastify.addHook('onSend', sendPageHeaders);

  // ── onResponse ─────────────────────────────────────────────────────────────────────────────
  // Every answer counted (cache hits, refusals and 404s included); then Fastify's log controller writes the one log line.
  if (config.metricsEnabled) fastify.addHook('onResponse', recordHttpMetrics(metrics));

  // ── Errors ─────────────────────────────────────────────────────────────────────────────────
  // Whatever a hook, parser or handler above throws: problem+json, problem+xml or HTML by Accept;
  // GraphQL's own shape for /graphql's 429; a not-found on a known path is 405.
  app.useGlobalFilters(new ProblemDetailsFilter([graphqlRateLimitResponder, allowedMethods.responder]));
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
