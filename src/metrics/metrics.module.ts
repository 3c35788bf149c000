import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from './metrics.service.js';

export const METRICS_PATH = '/metrics';

/**
 * Prometheus metrics: GET /metrics (404 with METRICS_ENABLED=false) and the HTTP request
 * metrics, recorded by a Fastify onResponse hook so that every route is covered, the GraphQL
 * endpoint and Fastify's own 404s included. Global: the database logger, the GraphQL plugins
 * and the WebSocket gateway record through MetricsService.
 */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (!this.config.metricsEnabled) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const metrics = this.metrics;
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      // routeOptions.url is the template (/posts/:id); requests that matched no route share one series.
      metrics.recordHttpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    fastify.get(METRICS_PATH, async (_request, reply) => {
      const body = await metrics.render();
      return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
    });
  }
}
