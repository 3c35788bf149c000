import type { ClientRequest, IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { redactUrl } from '../redaction/redact-url.js';
import { nameServerSpan, type Span } from './spans.js';

/**
 * An `onRequest` hook (registered only with tracing on): the HTTP server span, which
 * instrumentation-http opened as the request arrived (continuing its `traceparent`), is named
 * after the route Fastify matched (`GET /posts/:id`) rather than the method alone.
 */
export function nameHttpSpanAfterRoute(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  nameServerSpan(request.method, request.routeOptions.url);
  done();
}

/**
 * instrumentation-http's `requestHook`: the server span's `url.query` as the log writes the URL
 * (redactUrl: secret-named parameters, GraphQL variables and string literals, anything like a
 * credential), in place of the raw query string the instrumentation recorded.
 */
export function redactSpanQuery(span: Span, request: ClientRequest | IncomingMessage): void {
  const url = 'url' in request ? request.url : undefined;
  if (url === undefined || !url.includes('?')) return;
  const redacted = redactUrl(url);
  const at = redacted.indexOf('?');
  span.setAttribute('url.query', at < 0 ? '[REDACTED]' : redacted.slice(at + 1));
}
