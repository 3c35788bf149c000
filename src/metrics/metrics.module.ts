import { Global, Module } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, onResponseHookHandler, RouteHandlerMethod } from 'fastify';
import { MetricsService } from './metrics.service.js';

export const METRICS_PATH = '/metrics';

/**
 * Prometheus metrics. Global: the database logger, the GraphQL plugins and the WebSocket gateway
 * record through MetricsService. The HTTP pipeline (api/http-pipeline.ts) serves GET /metrics and
 * records every request with the two functions below (neither with METRICS_ENABLED=false).
 */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}

/**
 * An `onResponse` hook: the HTTP request metrics, so that every route is covered, the GraphQL
 * endpoint, answers from the response cache and Fastify's own 404s included.
 */
export function recordHttpMetrics(metrics: MetricsService): onResponseHookHandler {
  return function recordHttpMetrics(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    // routeOptions.url is the template (/posts/:id); requests that matched no route share one series.
    metrics.recordHttpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}

/** GET /metrics: Prometheus text. */
export function serveMetrics(metrics: MetricsService): RouteHandlerMethod {
  return async function serveMetrics(_request, reply) {
    const body = await metrics.render();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  };
}
