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
    let buffered = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: ?(.*)$/m.exec(block)?.[1];
          const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((match) => match[1]).join('\n');
          if (event) stream.events.push({ event, data: data === '' ? undefined : JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return stream;
}
