import type { ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { print } from 'graphql-sse';

/** graphql-sse's answer to an operation in distinct connections mode: these headers, then events. */
const STREAM_HEADERS = {
  connection: 'keep-alive',
  'cache-control': 'no-cache',
  'content-encoding': 'none',
  'content-type': 'text/event-stream; charset=utf-8',
};
/** graphql-sse's comment line: sent first (some browsers need a byte of body) and every 12 s. */
const PING = ':\n\n';
const PING_INTERVAL_MS = 12_000;

export interface SseEventStreamOptions {
  /** How long written data may stay undrained before the stream is ended as too slow. */
  stallTimeoutMs: number;
  /** A result as the client gets it (its errors formatted). */
  format(result: ExecutionResult): ExecutionResult;
  /** The last result of a stream ended because its client did not take what was written. */
  tooSlow(): ExecutionResult;
}

/**
 * Writes an operation's results as graphql-sse's event stream (distinct connections mode):
 * a `next` event per result, then `complete`, then the end of the response — with back-pressure.
 *
 * graphql-sse's own handler drains the subscription into an unbounded queue whatever the client
 * reads, so a client that reads nothing (or an `events` replay to a slow one) made the server
 * hold everything. Here the next result is pulled only once the previous one has been written:
 * `write()` took it, or the response emitted 'drain'. A stream holds at most one result beyond
 * the socket's buffer.
 *
 * A write that has not drained within `stallTimeoutMs` ends the stream: the `tooSlow()` result
 * and `complete` go after what is pending (a client that reads on finds them right after the
 * last event it was sent), the subscription is returned at once, and a client that does not
 * take even that within another `stallTimeoutMs` is cut off.
 */
export async function writeEventStream(
  response: ServerResponse,
  headers: Record<string, string>,
  results: AsyncIterator<ExecutionResult> | ExecutionResult,
  options: SseEventStreamOptions,
): Promise<void> {
  const source = isIterator(results) ? results : once(results);
  const stream = new EventStreamResponse(response, options.stallTimeoutMs);
  // A client that hangs up ends the subscription at once, even while a result is awaited.
  const hangUp = () => void source.return?.();
  response.once('close', hangUp);
  let returned = false;
  try {
    // The client may have gone while the operation was being admitted.
    if (response.destroyed) return;
    stream.open(headers);
    for (;;) {
      const next = await source.next();
      if (next.done) {
        returned = true;
        stream.end(print({ event: 'complete', data: null }));
        return;
      }
      const written = await stream.write(print({ event: 'next', data: options.format(next.value) }));
      if (written === 'closed') return;
      if (written === 'stalled') {
        stream.end(print({ event: 'next', data: options.format(options.tooSlow()) }) + print({ event: 'complete', data: null }));
        return;
      }
    }
  } finally {
    response.off('close', hangUp);
    stream.stopPings();
    if (!returned) await source.return?.();
  }
}

/**
 * Ends an event stream (with `last`, if it is still writable); a client that has not taken
 * everything within `timeoutMs` is cut off, so that a stalled client cannot keep its connection.
 */
export function endEventStream(response: ServerResponse, timeoutMs: number, last?: string): void {
  if (!response.writableEnded) response.end(last);
  if (response.writableFinished || response.destroyed) return;
  const timer = setTimeout(() => response.destroy(), timeoutMs);
  timer.unref();
  response.once('close', () => clearTimeout(timer));
}

/** One event stream response: writes that wait for the client, and pings while it is idle. */
class EventStreamResponse {
  private pinger?: NodeJS.Timeout;

  constructor(
    private readonly response: ServerResponse,
    private readonly stallTimeoutMs: number,
  ) {}

  private get writable(): boolean {
    return !this.response.writableEnded && !this.response.destroyed;
  }

  open(headers: Record<string, string>): void {
    this.response.writeHead(200, 'OK', { ...headers, ...STREAM_HEADERS });
    this.response.write(PING);
    this.pinger = setInterval(() => {
      // A client that has not taken the last write needs no ping: the stall timer watches it.
      if (this.writable && !this.response.writableNeedDrain) this.response.write(PING);
    }, PING_INTERVAL_MS);
    this.pinger.unref();
  }

  /** Resolves once the next chunk may follow ('written'), or when the client is gone or stalled. */
  write(chunk: string): Promise<'written' | 'closed' | 'stalled'> {
    const response = this.response;
    if (!this.writable) return Promise.resolve('closed');
    if (response.write(chunk)) return Promise.resolve('written');
    return new Promise((resolve) => {
      const settle = (outcome: 'written' | 'closed' | 'stalled') => {
        clearTimeout(timer);
        response.off('drain', drained);
        response.off('close', closed);
        resolve(outcome);
      };
      const drained = () => settle(this.writable ? 'written' : 'closed');
      const closed = () => settle('closed');
      const timer = setTimeout(() => settle(this.writable ? 'stalled' : 'closed'), this.stallTimeoutMs);
      response.once('drain', drained);
      response.once('close', closed);
    });
  }

  /** Ends the response with `last`, unless it was ended already (credentials, shutdown). */
  end(last: string): void {
    this.stopPings();
    if (this.writable) endEventStream(this.response, this.stallTimeoutMs, last);
  }

  stopPings(): void {
    clearInterval(this.pinger);
  }
}

function isIterator(value: object): value is AsyncIterator<ExecutionResult> {
  return typeof (value as { next?: unknown }).next === 'function';
}

/** A single result (a query or mutation over SSE, or a subscription that failed to start) as a stream. */
function once(result: ExecutionResult): AsyncIterator<ExecutionResult> {
  let sent = false;
  return {
    next: async () => (sent ? { done: true, value: undefined } : ((sent = true), { done: false, value: result })),
  };
}
