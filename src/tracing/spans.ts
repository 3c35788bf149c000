import { type Attributes, context, type Context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingState } from './tracing-state.js';

export { SpanKind };
export type { Span };

const TRACER = 'blog-service';

/** A span of our own, or undefined when tracing is off (the caller then does nothing). */
export function startSpan(name: string, kind: SpanKind, attributes?: Attributes): Span | undefined {
  if (!tracingState.enabled) return undefined;
  return trace.getTracer(TRACER).startSpan(name, { kind, attributes });
}

/** A span that starts a trace of its own (background work woken by a request is not part of it). */
export function startRootSpan(name: string, kind: SpanKind, attributes?: Attributes): Span | undefined {
  if (!tracingState.enabled) return undefined;
  return trace.getTracer(TRACER).startSpan(name, { kind, attributes, root: true });
}

/** Marks a span failed with the error's message (never a value a client sent: messages are ours). */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `fn` inside a new active span (so the spans it causes are its children), ending it when
 * `fn` settles. With tracing off, just `fn(undefined)`.
 */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes | undefined, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingState.enabled) return fn(undefined);
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The active context with `span` as its current span: what work inside the span runs in. */
export function contextOf(span: Span): Context {
  return trace.setSpan(context.active(), span);
}

/** Adds `traceparent` (and `tracestate`) naming `span` to outgoing headers. */
export function injectTraceHeaders(span: Span | undefined, headers: Record<string, string>): void {
  if (span) propagation.inject(trace.setSpan(context.active(), span), headers);
}

/** The active span's ids, for log lines (pino's mixin); {} when there is none. */
export function traceIdsOfActiveSpan(): { traceId?: string; spanId?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** Names the active (HTTP server) span after its route, once the router has found it. */
export function nameServerSpan(method: string, route: string | undefined): void {
  if (!tracingState.enabled || route === undefined) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}
