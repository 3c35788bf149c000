import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { nameServerSpan } from './spans.js';

/**
 * An `onRequest` hook (registered only with tracing on): the HTTP server span, which
 * instrumentation-http opened as the request arrived (continuing its `traceparent`), is named
 * after the route Fastify matched (`GET /posts/:id`) rather than the method alone.
 */
export function nameHttpSpanAfterRoute(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  nameServerSpan(request.method, request.routeOptions.url);
  done();
}
