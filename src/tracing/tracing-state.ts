/**
 * Whether tracing is on: set once by tracing.ts, before the application's modules are loaded.
 * Every own span site reads this flag first, so with tracing off a request allocates nothing
 * for it (and the OpenTelemetry SDK is never loaded).
 */
export const tracingState = { enabled: false };
