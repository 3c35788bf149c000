import type * as OpenTelemetryApi from '@opentelemetry/api';

/**
 * Whether tracing is on: set once by tracing.ts, before the application's modules are loaded,
 * with the OpenTelemetry API it started. Every own span site reads this first, so with tracing
 * off a request allocates nothing for it, and no OpenTelemetry module is loaded at all (not even
 * the API: the span helpers reach it through here).
 */
export const tracingState: { enabled: boolean; api?: typeof OpenTelemetryApi } = { enabled: false };
