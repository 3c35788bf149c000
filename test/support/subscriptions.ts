import { PubSub, type PubSubEngine } from 'graphql-subscriptions';
import { type Client, createClient } from 'graphql-ws';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { BlogEventName } from '../../src/events/blog-events.js';
import { LOCAL_EVENTS } from '../../src/events/event-relay.js';
import type { TestApp } from './test-app.js';

/** Live subscriptions against a test app: listening, graphql-ws clients, and waiting for events. */

export interface ListeningApp {
  /** http://127.0.0.1:port */
  http: string;
  /** ws://127.0.0.1:port/graphql */
  ws: string;
}

/** Puts the app on an ephemeral port (startTestApp does not listen): WebSockets and SSE need one. */
export async function listen(app: TestApp): Promise<ListeningApp> {
  await app.app.listen(0, '127.0.0.1');
  const http = (await app.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return { http, ws: `${http.replace(/^http/, 'ws')}/graphql` };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value (which is returned) or the time is up. */
type Falsy = false | 0 | '' | null | undefined;

export async function until<T>(what: string, check: () => T | Falsy | Promise<T | Falsy>, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as T;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await sleep(everyMs);
  }
}

export interface WsClient {
  client: Client;
  /** Close events seen, in order. */
  closes: { code: number; reason: string }[];
  /** Resolves once the server acknowledged connection_init. */
  connected: Promise<void>;
  /** Resolves with the first close event. */
  closed: Promise<{ code: number; reason: string }>;
  dispose(): Promise<void>;
}

/**
 * A graphql-ws client that connects at once, never retries, and records how the socket closed.
 * `token` goes into connection_init as `authorization: "Bearer <token>"`; `authorization`
 * overrides the whole value.
 */
export function wsClient(url: string, options: { token?: string; authorization?: string; webSocketImpl?: unknown } = {}): WsClient {
  const closes: { code: number; reason: string }[] = [];
  let onConnected!: () => void;
  let onClosed!: (event: { code: number; reason: string }) => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const authorization = options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  const client = createClient({
    url,
    webSocketImpl: options.webSocketImpl ?? WebSocket,
    lazy: false,
    retryAttempts: 0,
    shouldRetry: () => false,
    onNonLazyError: () => undefined,
    connectionParams: authorization === undefined ? undefined : { authorization },
    on: {
      connected: () => onConnected(),
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closes.push({ code, reason });
        onClosed({ code, reason });
      },
    },
  });
  return {
    client,
    closes,
    connected,
    closed,
    dispose: async () => {
      await client.dispose();
    },
  };
}

export interface ExecutionResultLike {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: any;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** What graphql-ws and graphql-sse clients have in common. */
export interface OperationClient {
  subscribe(
    payload: { query: string; variables?: Record<string, unknown> },
    sink: { next(value: unknown): void; error(error: unknown): void; complete(): void },
  ): () => void;
}

/** One subscription (or single operation) over a client: what arrived, and ways to wait for it. */
export class LiveSubscription {
  readonly results: ExecutionResultLike[] = [];
  error: unknown;
  completed = false;
  private readonly cancel: () => void;

  constructor(
    client: OperationClient,
    query: string,
    variables?: Record<string, unknown>,
  ) {
    this.cancel = client.subscribe(
      { query, variables },
      {
        next: (result) => void this.results.push(result as ExecutionResultLike),
        error: (error) => {
          this.error = error;
        },
        complete: () => {
          this.completed = true;
        },
      },
    );
  }

  /** The data of each result so far, unwrapped from its single root field. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get values(): any[] {
    return this.results.map((result) => {
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      return Object.values(result.data ?? {})[0];
    });
  }

  /** Waits for at least `count` results; returns their unwrapped data. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async received(count: number, timeoutMs = 10_000): Promise<any[]> {
    await until(`${count} result(s) (have ${this.results.length}, error ${errorText(this.error)})`, () => this.results.length >= count || this.error !== undefined, timeoutMs);
    if (this.results.length < count) throw new Error(`The subscription failed: ${errorText(this.error)}`);
    return this.values;
  }

  /** Waits for the operation to fail; returns the error codes (GraphQL errors) or the close event. */
  async failed(timeoutMs = 10_000): Promise<unknown> {
    await until('the subscription to fail', () => this.error !== undefined, timeoutMs);
    return this.error;
  }

  dispose(): void {
    this.cancel();
  }
}

function errorText(error: unknown): string {
  if (error === undefined) return 'none';
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'code' in error) return `close ${(error as { code: number }).code}`;
  return JSON.stringify(error);
}

/** The codes of the GraphQL errors a failed operation was answered with. */
export function errorCodes(error: unknown): string[] {
  if (!Array.isArray(error)) throw new Error(`Not a list of GraphQL errors: ${errorText(error)}`);
  return error.map((item: { extensions?: { code?: string } }) => item.extensions?.code ?? '(none)');
}

/**
 * How many subscribers of an event are listening on the app's relay: only then can a test write
 * knowing the event will reach them (the relay reads the event log, whichever instance wrote).
 */
export function busSubscribers(app: TestApp, name: BlogEventName): number {
  const pubSub = app.app.get<symbol, PubSubEngine>(LOCAL_EVENTS, { strict: false });
  if (pubSub instanceof PubSub) return (pubSub as unknown as { ee: { listenerCount(name: string): number } }).ee.listenerCount(name);
  throw new Error('Unknown event bus');
}

export const ALL_EVENTS: BlogEventName[] = ['postCreated', 'postUpdated', 'postDeleted', 'commentCreated', 'commentUpdated', 'commentDeleted'];

/** Waits until exactly `count` subscribers of `name` listen on the app's bus. */
export async function waitForSubscribers(app: TestApp, name: BlogEventName, count: number, timeoutMs = 10_000): Promise<void> {
  await until(`${count} ${name} subscriber(s) on the bus (have ${busSubscribers(app, name)})`, () => busSubscribers(app, name) === count, timeoutMs);
}

/** Waits until no subscriber of any event is left on the app's bus (after clients went away). */
export async function waitForNoSubscribers(app: TestApp, timeoutMs = 10_000): Promise<void> {
  await until('the bus to have no subscribers', () => ALL_EVENTS.every((name) => busSubscribers(app, name) === 0), timeoutMs);
}
