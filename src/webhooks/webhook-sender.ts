import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook as Signer } from 'standardwebhooks';
import { failSpan, injectTraceHeaders, SpanKind, startRootSpan } from '../tracing/spans.js';
import { resolvePublic, type ResolvedAddress } from './address-guard.js';

export interface SendOptions {
  url: string;
  secret: string;
  messageId: string;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** The trace of the write whose event this is: the attempt's span links to it. */
  traceParent?: string | null;
}

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

const USER_AGENT = 'blog-service-webhooks/1';

/**
 * One signed POST (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`).
 * The host's addresses are checked on every attempt (DNS can change) and the connection goes to
 * exactly those addresses, so a name cannot resolve to a public address for the check and to a
 * private one for the connection. Redirects are never followed: a 3xx is a failed attempt.
 * The whole attempt (resolving, connecting, the answer's status) has `timeoutMs`.
 */
export async function sendSigned(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  // With tracing on, each attempt is a client span whose `traceparent` the receiver gets, linked to the event's write.
  const span = startRootSpan('webhook POST', SpanKind.CLIENT, { 'http.request.method': 'POST', 'webhook.message_id': options.messageId }, [options.traceParent]);
  try {
    const target = new URL(options.url);
    span?.setAttributes({ 'server.address': target.hostname, 'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80) });
    const addresses = await withAbort(resolvePublic(target, options.allowPrivate), controller.signal);
    const timestamp = new Date();
    const signature = new Signer(options.secret).sign(options.messageId, timestamp, options.body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': options.messageId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    injectTraceHeaders(span, headers);
    const status = await post(target, addresses, controller.signal, options.body, headers);
    const ok = status >= 200 && status < 300;
    const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
    span?.setAttribute('http.response.status_code', status);
    if (error) failSpan(span, error);
    return { ok, httpStatus: status, error, durationMs: elapsed() };
  } catch (error) {
    const message = controller.signal.aborted ? `No answer within ${options.timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    failSpan(span, message);
    return { ok: false, httpStatus: null, error: message.slice(0, 500), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    span?.end();
  }
}

function post(target: URL, addresses: ResolvedAddress[], signal: AbortSignal, body: string, headers: Record<string, string>): Promise<number> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<number>((resolve, reject) => {
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, agent: false, signal },
      (response) => {
        // Only the status matters: the body is not read.
        resolve(response.statusCode ?? 0);
        response.destroy();
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('aborted'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
