import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/HTTP JSON carries it, its attributes flattened to key → value. */
export interface ReceivedSpan {
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  /** Span links: the spans this one was caused by, in other traces. */
  links: { traceId: string; spanId: string }[];
  /** Nanoseconds since the epoch, as decimal text (compare them as BigInts). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

/** OTLP span kinds (the JSON encoding's numbers). */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpAnyValue }[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: { key: string; value: OtlpAnyValue }[];
        links?: { traceId: string; spanId: string }[];
        startTimeUnixNano?: string | number;
        endTimeUnixNano?: string | number;
      }[];
    }[];
  }[];
}

function plain(value: OtlpAnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.doubleValue ?? value.boolValue;
}

/**
 * An OTLP/HTTP collector in the test process: POST /v1/traces. JSON exports are decoded into
 * `spans`; every export's content type is kept (protobuf ones cannot be decoded here: no package
 * ships the protos).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: { path: string; contentType: string; bytes: number }[] = [];
  readonly resources: Record<string, unknown>[] = [];
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const contentType = req.headers['content-type'] ?? '';
        this.exports.push({ path: req.url ?? '', contentType, bytes: body.length });
        if (req.method === 'POST' && req.url === '/v1/traces' && contentType.startsWith('application/json')) this.take(JSON.parse(body.toString('utf8')) as OtlpExport);
        res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.startsWith('application/json') ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private take(payload: OtlpExport): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      this.resources.push(Object.fromEntries((resourceSpans.resource?.attributes ?? []).map(({ key, value }) => [key, plain(value)])));
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            scope: scopeSpans.scope?.name ?? '',
            name: span.name,
            kind: span.kind,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, plain(value)])),
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            startTimeUnixNano: String(span.startTimeUnixNano ?? 0),
            endTimeUnixNano: String(span.endTimeUnixNano ?? 0),
          });
        }
      }
    }
  }

  /** Whether `span` descends from the span `ancestorId` (through the spans received). */
  descendsFrom(span: ReceivedSpan, ancestorId: string): boolean {
    const byId = new Map(this.spans.map((each) => [each.spanId, each]));
    for (let parent = span.parentSpanId; parent; parent = byId.get(parent)?.parentSpanId ?? '') if (parent === ancestorId) return true;
    return false;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
