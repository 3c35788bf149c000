import { register } from 'node:module';
import * as api from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, type Sampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import type { AppConfig } from '../config/app-config.js';
import { redactSpanQuery } from './http-span.js';
import { nameStatementSpan } from './sql-spans.js';
import { tracingState } from './tracing-state.js';

/**
 * The OpenTelemetry SDK, started from the validated settings (which may come from a `.env`).
 * main.ts imports this module only when OTEL_EXPORTER_OTLP_ENDPOINT is set, and before any of
 * the application's modules, so the instrumentations patch `http`, `pg` and `ioredis` as they
 * are first loaded. `pg` is required by TypeORM (CommonJS: require-in-the-middle sees it);
 * `ioredis` is imported by our ESM code, which only import-in-the-middle sees: its loader hook is
 * registered for that one package (hooking every module would slow start-up for nothing).
 */
export function startTracing(config: AppConfig): { shutdown: () => Promise<void> } {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['ioredis'] } });
  const endpoint = config.otelExporterOtlpEndpoint!.replace(/\/+$/, '');
  const exporterOptions = { url: `${endpoint}/v1/traces`, headers: parseHeaders(config.otelExporterOtlpHeaders) };
  const sdk = new NodeSDK({
    serviceName: config.otelServiceName,
    traceExporter: config.otelExporterOtlpProtocol === 'http/json' ? new JsonExporter(exporterOptions) : new ProtobufExporter(exporterOptions),
    sampler: sampler(config.otelTracesSampler, Number(config.otelTracesSamplerArg)),
    // Metrics and logs have their own paths here (Prometheus, pino): traces only.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Outgoing requests are webhook attempts, which have their own client span (webhooks/webhook-sender.ts).
        ignoreOutgoingRequestHook: () => true,
        ignoreIncomingRequestHook: (request: IncomingMessage) => request.url === '/metrics' || request.url?.startsWith('/health') === true,
        // Query strings carry passwords, tokens and GraphQL variables: recorded as the log writes them.
        requestHook: redactSpanQuery,
      }),
      // The statement text only: TypeORM sends values as parameters, which are not recorded.
      // Its spans named as our SQLite ones are (`SELECT posts`), not `pg.query:<prepared statement's name> <database>`.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true, ignoreConnectSpans: true, requestHook: nameStatementSpan }),
      // The command name only, never its arguments (keys and values are users' data).
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  tracingState.api = api;
  tracingState.enabled = true;
  return { shutdown: () => sdk.shutdown() };
}

function sampler(name: AppConfig['otelTracesSampler'], ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `key=value,key2=value2` (W3C baggage format: values may be percent-encoded). */
function parseHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value?.split(',') ?? []) {
    const at = pair.indexOf('=');
    headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}
