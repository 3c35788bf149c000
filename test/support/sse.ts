import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';

/** Raw Server-Sent Events requests to /graphql/stream, for tests that look at the wire. */

export interface SseEvent {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** A raw `text/event-stream` request: the response, the events parsed so far, and a way to hang up. */
export interface RawStream {
  response: Response;
  events: SseEvent[];
  /** The body, when the answer was not an event stream. */
  text?: string;
  /** Resolves when the server ends the stream (or it is closed here). */
  ended: Promise<void>;
  close(): void;
}

export async function rawStream(base: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawStream> {
  const abort = new AbortController();
  const response = await fetch(`${base}/graphql/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  const stream: RawStream = { response, events: [], ended: Promise.resolve(), close: () => abort.abort() };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.text = await response.text();
    return stream;
  }
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    const parse = eventParser(stream.events);
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parse(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted
    }
  })();
  return stream;
}

/**
 * An event stream whose client does not read: the response body stays unread (so TCP pushes
 * back on the server) until `resume()`, which then parses what arrives into `events`.
 */
export interface HeldStream {
  status: number;
  headers: IncomingHttpHeaders;
  events: SseEvent[];
  /** Resolves when the response has ended (or the connection closed). */
  ended: Promise<void>;
  /** Starts reading the body. */
  resume(): void;
  close(): void;
}

export function heldStream(base: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const request = httpRequest(
      `${base}/graphql/stream`,
      {
        method: 'POST',
        // A connection of its own: nothing else may read this socket.
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (response) => {
        const events: SseEvent[] = [];
        let onEnded!: () => void;
        const ended = new Promise<void>((resolveEnded) => (onEnded = resolveEnded));
        response.once('end', onEnded);
        response.once('close', onEnded);
        response.once('error', onEnded);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          events,
          ended,
          resume: () => {
            response.setEncoding('utf8');
            response.on('data', eventParser(events));
          },
          close: () => request.destroy(),
        });
      },
    );
    request.once('error', reject);
    request.end(payload);
  });
}

/** Feeds text of an event stream in; pushes each complete event onto `events`. */
function eventParser(events: SseEvent[]): (text: string) => void {
  let buffered = '';
  return (text) => {
    buffered += text;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = /^event: ?(.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((match) => match[1]).join('\n');
      if (event) events.push({ event, data: data === '' ? undefined : JSON.parse(data) });
    }
  };
}
