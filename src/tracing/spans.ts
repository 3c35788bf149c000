import type { Attributes, Context, Link, Span, SpanKind as OtelSpanKind } from '@opentelemetry/api';
import { tracingState } from './tracing-state.js';

export type { Span };

/** OpenTelemetry's span kinds (the same numbers as its SpanKind), without loading its API. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const satisfies Record<string, OtelSpanKind>;
type Kind = (typeof SpanKind)[keyof typeof SpanKind];

const TRACER = 'blog-service';
/** SpanStatusCode.ERROR. */
const ERROR = 2;

/** A span of our own, a child of the active one; undefined when tracing is off (the caller then does nothing). */
export function startSpan(name: string, kind: Kind, attributes?: Attributes): Span | undefined {
  return tracingState.api?.trace.getTracer(TRACER).startSpan(name, { kind, attributes });
}

/**
 * A span that starts a trace of its own (background work woken by a request is not part of it),
 * linked to the spans of `causes` (W3C `traceparent`s, as traceParentOfActiveSpan gave them: the
 * writes whose events it handles; null and repeated ones are passed over).
 */
export function startRootSpan(name: string, kind: Kind, attributes?: Attributes, causes: readonly (string | null | undefined)[] = []): Span | undefined {
  const api = tracingState.api;
  if (!api) return undefined;
  const links: Link[] = [];
  for (const traceparent of new Set(causes)) {
    if (!traceparent) continue;
    const context = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, { traceparent }));
    if (context && api.trace.isSpanContextValid(context)) links.push({ context });
  }
  return api.trace.getTracer(TRACER).startSpan(name, { kind, attributes, root: true, links });
}

/** The active span as a W3C `traceparent` (what a background span links to: startRootSpan); null without one. */
export function traceParentOfActiveSpan(): string | null {
  const api = tracingState.api;
  const span = api?.trace.getActiveSpan();
  if (!api || !span) return null;
  const headers: Record<string, string> = {};
  api.propagation.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers);
  return headers.traceparent ?? null;
}

/**
 * Calls `fn` outside any trace: background work that a request wakes (the relay, the webhooks)
 * would otherwise carry the request's context, and its statements would hang under the request's
 * span long after it ended. Its own spans are roots (startRootSpan). Just calls `fn` with tracing off.
 */
export function outsideTrace<R>(fn: () => R): R {
  const api = tracingState.api;
  return api ? api.context.with(api.ROOT_CONTEXT, fn) : fn();
}

/** Calls `fn` inside `span` (its statements are the span's children); just calls it without one. */
export function inSpan<R>(span: Span | undefined, fn: () => R): R {
  return span ? runInContext(contextOf(span), fn) : fn();
}

/** Marks a span failed with the error's message (never a value a client sent: messages are ours). */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  span.setStatus({ code: ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The active context with `span` as its current span: what work inside the span runs in. */
export function contextOf(span: Span): Context {
  const api = tracingState.api!;
  return api.trace.setSpan(api.context.active(), span);
}

/** Calls `fn` with `active` as the active context (so the spans it causes are its children). */
export function runInContext<A extends unknown[], R>(active: Context, fn: (...args: A) => R, ...args: A): R {
  return tracingState.api!.context.with(active, fn, undefined, ...args);
}

/** Whether a span is active (statements outside any trace make none of their own). */
export function hasActiveSpan(): boolean {
  return tracingState.api?.trace.getActiveSpan() !== undefined;
}

/**
 * Adds `traceparent` (and `tracestate`) naming `span` to outgoing headers, and nothing else: the
 * span is put in an empty context, so no `baggage` a caller sent (still in the active context)
 * reaches a third party.
 */
export function injectTraceHeaders(span: Span | undefined, headers: Record<string, string>): void {
  if (!span) return;
  const api = tracingState.api!;
  api.propagation.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers);
}

/** The active span's ids, for log lines (pino's mixin); {} when there is none. */
export function traceIdsOfActiveSpan(): { traceId?: string; spanId?: string } {
  const span = tracingState.api?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** Names the active (HTTP server) span after its route, once the router has found it. */
export function nameServerSpan(method: string, route: string | undefined): void {
  const span = route === undefined ? undefined : tracingState.api?.trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route!);
}
