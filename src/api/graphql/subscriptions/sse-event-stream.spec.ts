import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionResult } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { writeEventStream } from './sse-event-stream.js';

const BIG = 'z'.repeat(64 * 1024);

/** Results without end, counting how many were pulled and whether the stream was returned. */
function endless() {
  const state = { pulled: 0, returned: false };
  const results: AsyncIterator<ExecutionResult> = {
    next: async () => {
      state.pulled += 1;
      return { done: false, value: { data: { n: state.pulled, big: BIG } } };
    },
    return: async () => {
      state.returned = true;
      return { done: true, value: undefined };
    },
  };
  return { results, state };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('writeEventStream', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A server that writes `results` to every request; resolves with the client's response (unread) and the server's. */
  async function serve(results: AsyncIterator<ExecutionResult> | ExecutionResult, stallTimeoutMs: number) {
    let onResponse!: (response: ServerResponse) => void;
    const serverSide = new Promise<ServerResponse>((resolve) => (onResponse = resolve));
    const written = { done: false };
    server = createServer((_request, response) => {
      onResponse(response);
      void writeEventStream(response, { 'x-extra': 'kept' }, results, {
        stallTimeoutMs,
        format: (result) => result,
        tooSlow: () => ({ errors: [{ message: 'too slow', extensions: { code: 'SUBSCRIBER_TOO_SLOW' } }] }) as unknown as ExecutionResult,
      }).finally(() => (written.done = true));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = await new Promise<IncomingMessage>((resolve, reject) => request({ port, host: '127.0.0.1', agent: false }, resolve).once('error', reject).end());
    return { client, response: await serverSide, written };
  }

  it('pulls a result only once the one before was written: a client that reads nothing stops the pulls', async () => {
    const { results, state } = endless();
    const { client } = await serve(results, 60_000);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['x-extra']).toBe('kept');
    // The pulls stop once the sockets between server and client are full.
    let stalledAt = -1;
    let since = Date.now();
    await until('the pulls to stop', () => {
      if (state.pulled !== stalledAt) [stalledAt, since] = [state.pulled, Date.now()];
      return Date.now() - since > 300;
    });
    await sleep(300);
    expect(state.pulled).toBe(stalledAt);
    // What was pulled is what the sockets hold (a few MB), not an ever-growing queue.
    expect(stalledAt * BIG.length).toBeLessThan(64 * 1_048_576);
    client.destroy();
    await until('the results to be returned', () => state.returned);
  });

  it('a write that does not drain within the stall timeout ends the stream: the error and complete follow what was sent, and the connection goes after another timeout', async () => {
    const { results, state } = endless();
    const { client, response, written } = await serve(results, 300);
    await until('the stream to be given up', () => written.done);
    expect(state.returned).toBe(true);
    expect(response.writableEnded).toBe(true);
    await until('the connection to be cut', () => response.destroyed);
    client.destroy();
  });

  it('a slow client that reads on gets every event sent, then the error and complete', async () => {
    const { results, state } = endless();
    const { client, written } = await serve(results, 500);
    await until('the stream to be given up', () => written.done);
    let text = '';
    client.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    await new Promise((resolve) => client.once('end', resolve));
    const events = text.split('\n\n').filter((block) => block.startsWith('event:'));
    const next = events.slice(0, -2).map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)).data.n);
    expect(next).toEqual(Array.from({ length: state.pulled }, (_, index) => index + 1));
    expect(events.at(-2)).toBe('event: next\ndata: {"errors":[{"message":"too slow","extensions":{"code":"SUBSCRIBER_TOO_SLOW"}}]}');
    expect(events.at(-1)).toBe('event: complete\ndata:');
  });

  it('a single result (a query over SSE) is one next event, then complete', async () => {
    const { client, written } = await serve({ data: { ok: 1 } }, 1000);
    let text = '';
    client.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    await new Promise((resolve) => client.once('end', resolve));
    expect(written.done).toBe(true);
    expect(text).toBe(':\n\nevent: next\ndata: {"data":{"ok":1}}\n\nevent: complete\ndata:\n\n');
  });
});
