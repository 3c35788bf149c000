import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { RouteOptions } from 'fastify';
import {
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLSchema,
} from 'graphql';
import type { PubSubEngine } from 'graphql-subscriptions';
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/fastify';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer, type SubscribePayload } from 'graphql-ws';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Actor } from '../../../common/actor.js';
import { normalizeError } from '../../../common/errors/normalize-error.js';
import { clientAddress, trustFunction } from '../../../common/http/client-address.js';
import { RateLimiter, requestKey } from '../../../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../../../config/app-config.js';
import { toGraphQLError } from '../format-error.js';
import { type AdmittedOperation, type Caller, OperationGate } from '../gate/operation-gate.js';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import { subscriberTooSlow } from '../../../common/graphql/subscriber-too-slow-error.js';
import { GraphQLContextFactory } from '../graphql-context.factory.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { CREDENTIALS_CHANGED, type CredentialsChanged } from '../../../events/blog-events.js';
import { PUB_SUB } from '../../../events/event-publisher.js';
import { LiveConnections, onExpiry } from './live-connections.js';
import { SharedExecution, type SubscriptionStream } from './shared-execution.js';
import { endEventStream, writeEventStream } from './sse-event-stream.js';

export const GRAPHQL_WS_PATH = '/graphql';
export const SSE_PATH = '/graphql/stream';
/** A socket that has not sent connection_init by then is closed with 4408. */
const CONNECTION_INIT_TIMEOUT_MS = 3000;

/** What graphql-ws keeps per socket. */
interface Connection {
  socket: WebSocket;
  request: IncomingMessage;
  address: string;
  authorization?: string;
  actor?: Actor | null;
  /** Budget holds of the subscriptions running on this socket. */
  holds: Set<() => void>;
  unwatch?: () => void;
  cancelExpiry?: () => void;
}

/** What the SSE handler keeps per stream (one operation per stream). */
interface Stream {
  address: string;
  authorization?: string;
  actor: Actor | null;
}

const UNSUPPORTED_PROTOCOL = `Use the ${GRAPHQL_TRANSPORT_WS_PROTOCOL} subprotocol (the graphql-ws library); subscriptions-transport-ws's "graphql-ws" is not supported`;

/**
 * The two live transports over the one operation gate: graphql-ws on /graphql (WebSocket) and
 * graphql-sse on /graphql/stream (Server-Sent Events, distinct connections). This file is wiring:
 * which socket or stream an operation came from, its credential and address; every check of the
 * operation itself is the gate's.
 *
 * The WebSocket upgrade is handled here rather than by @nestjs/graphql, which left upgrade
 * requests on other paths unanswered (a socket leaked for each): every upgrade request is
 * answered at once, counted against the caps from the first byte, and refused when it offers
 * only the legacy subprotocol.
 */
@Injectable()
export class SubscriptionTransports implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private schemaHost?: GraphQLSchemaHost;
  private readonly live: LiveConnections;
  private readonly streams = new Set<ServerResponse>();
  private readonly shared = new SharedExecution();
  private readonly holds = new WeakMap<object, () => void>();
  private readonly trust;
  private wss?: WebSocketServer;
  private httpServer?: HttpServer;
  private credentialsSubscription?: number;
  private closing = false;

  constructor(
    private readonly gate: OperationGate,
    private readonly contexts: GraphQLContextFactory,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly limiter: RateLimiter,
    private readonly moduleRef: ModuleRef,
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
  ) {
    this.live = new LiveConnections(config.subscriptionsMaxConnections, config.subscriptionsMaxPerAddress);
    this.trust = trustFunction(config.trustProxy);
  }

  /** The same error shaping as HTTP (codes, masking, no schema hints when introspection is off). */
  private formatErrors(errors: readonly GraphQLError[]): GraphQLError[] {
    // Formatted errors are plain JSON objects; the transports only serialize them.
    return errors.map((error) => this.gate.formatError(error.toJSON(), error) as GraphQLError);
  }

  /** Subscribers sharing an execution share its formatting too (and an internal error is logged once). */
  private readonly formatted = new WeakMap<ExecutionResult, ExecutionResult>();

  private formatResult<T extends ExecutionResult>(result: T): T {
    if (!result.errors) return result;
    let formatted = this.formatted.get(result);
    if (!formatted) this.formatted.set(result, (formatted = { ...result, errors: this.formatErrors(result.errors) }));
    return formatted as T;
  }

  private get schema(): GraphQLSchema {
    this.schemaHost ??= this.moduleRef.get(GraphQLSchemaHost, { strict: false });
    return this.schemaHost.schema;
  }

  /**
   * One operation from a socket or a stream, through the gate: its execution arguments, or the
   * errors to answer with. Counted in graphql_operations_total{type} like HTTP operations.
   */
  private async prepare(payload: SubscribePayload, caller: Caller, actor: Actor | null): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const verdict = await this.gate.admit(payload, caller, this.schema);
    if (!('admitted' in verdict)) {
      this.metrics.recordGraphQLOperation('invalid');
      return 'refused' in verdict ? [verdict.refused] : verdict.invalid;
    }
    const operation = verdict.admitted;
    const contextValue = this.contexts.forActor(actor, caller.address);
    if (operation.operation.operation === 'subscription') {
      const hold = this.gate.subscriptions.hold(caller.address, executionKey(operation), operation.complexity);
      if (hold instanceof GraphQLError) {
        this.metrics.recordGraphQLOperation('invalid');
        return [hold];
      }
      this.holds.set(contextValue, hold);
    }
    this.metrics.recordGraphQLOperation(operation.operation.operation);
    this.shared.remember(operation.document, operation.query);
    return {
      schema: this.schema,
      document: operation.document,
      variableValues: operation.variables,
      operationName: operation.operationName,
      contextValue,
    };
  }

  /** Runs a subscription; its hold on the address's budget goes when the stream does. */
  private async subscribe(args: ExecutionArgs, holds?: Set<() => void>) {
    const hold = this.holds.get(args.contextValue as GraphQLContext);
    if (hold) holds?.add(hold);
    const release = () => {
      hold?.();
      if (hold) holds?.delete(hold);
    };
    try {
      const stream = await this.shared.subscribe(args, release);
      if (!(Symbol.asyncIterator in stream)) release();
      return stream;
    } catch (error) {
      release();
      throw error;
    }
  }

  // ------------------------------------------------------------------------------------------
  // WebSocket (graphql-transport-ws)

  /** Takes over WebSocket upgrades on the HTTP server. */
  attachWebSocket(httpServer: HttpServer): void {
    this.httpServer = httpServer;
    this.wss = new WebSocketServer({
      noServer: true,
      // A message over the body limit closes the socket with 1009 before it is buffered whole.
      maxPayload: this.config.bodyLimitBytes,
      handleProtocols: (protocols) => (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false),
    });
    const server = this.makeWsServer();
    this.wss.on('connection', (socket: WebSocket, request: IncomingMessage, address: string, release: () => void) =>
      this.connected(server, socket, request, address, release),
    );
    httpServer.on('upgrade', this.onUpgrade);
    this.credentialsSubscription = undefined;
    void this.pubSub
      .subscribe(CREDENTIALS_CHANGED, (message: CredentialsChanged) => void this.live.recheck(message.userId), {})
      .then((id) => {
        if (this.closing) void this.pubSub.unsubscribe(id);
        else this.credentialsSubscription = id;
      });
  }

  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void this.upgrade(request, socket, head).catch((error: unknown) => {
      this.logger.error(`WebSocket upgrade failed: ${error instanceof Error ? error.message : String(error)}`);
      answer(socket, 500, 'Internal Server Error');
    });
  };

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '').split('?')[0];
    if (path !== GRAPHQL_WS_PATH) return answer(socket, 404, `No WebSocket endpoint at ${path}; subscriptions are served at ${GRAPHQL_WS_PATH}`);
    if (this.closing) return answer(socket, 503, 'The server is shutting down');
    const offered = String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim());
    if (!offered.includes(GRAPHQL_TRANSPORT_WS_PROTOCOL)) return answer(socket, 400, UNSUPPORTED_PROTOCOL);
    const address = clientAddress(request, this.trust);
    try {
      // The upgrade is a request of its own: no Fastify hook sees it.
      await this.limiter.consume(requestKey(address), this.config.rateLimitMax, this.config.rateLimitWindowS);
    } catch (error) {
      const problem = normalizeError(error);
      return answer(socket, problem.status, problem.detail, problem.headers);
    }
    const release = this.live.admit(address);
    if (typeof release === 'function') socket.once('close', release);
    this.wss!.handleUpgrade(request, socket, head, (ws) => {
      if (typeof release !== 'function') {
        ws.close(1013, release === 'instance' ? 'Too many live connections; try again later' : 'Too many live connections from this address; try again later');
        return;
      }
      this.wss!.emit('connection', ws, request, address, release);
    });
  }

  private connected(server: ReturnType<SubscriptionTransports['makeWsServer']>, socket: WebSocket, request: IncomingMessage, address: string, release: () => void): void {
    this.metrics.wsConnections.inc();
    const connection: Connection = { socket, request, address, holds: new Set() };
    const keepAlive = this.config.subscriptionsKeepAliveMs > 0 ? this.keepAlive(socket, this.config.subscriptionsKeepAliveMs) : undefined;
    // Oversized messages (1009) and broken frames are closed by ws itself; nothing to add.
    socket.on('error', (error) => this.logger.debug(`WebSocket: ${error.message}`));
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== WebSocket.OPEN) return resolve();
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data) => {
            handle(String(data)).catch((error: unknown) => {
              this.logger.error(`WebSocket message failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      connection,
    );
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
      connection.unwatch?.();
      connection.cancelExpiry?.();
      for (const hold of connection.holds) hold();
      release();
      this.metrics.wsConnections.dec();
      void closed(code, String(reason));
    });
  }

  private makeWsServer() {
    return makeServer<Record<string, unknown> | undefined, Connection>({
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      onConnect: async (ctx) => {
        const connection = ctx.extra;
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        connection.authorization = typeof header === 'string' ? header : undefined;
        try {
          connection.actor = await this.gate.authenticate(connection.authorization);
        } catch (error) {
          if (normalizeError(error).code !== 'UNAUTHENTICATED') connection.socket.close(1013, 'Service unavailable; try again later');
          return false; // graphql-ws closes with 4403 Forbidden
        }
        this.follow(connection);
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const connection = ctx.extra;
        const active = Object.keys(ctx.subscriptions).length;
        if (active > this.config.subscriptionsMaxPerConnection) {
          return [new GraphQLError(`At most ${this.config.subscriptionsMaxPerConnection} operations per connection`, { extensions: { code: 'RATE_LIMITED' } })];
        }
        // Every operation looks at the credential again: an expired, revoked or deleted one closes the socket.
        let actor: Actor | null;
        try {
          actor = await this.gate.authenticate(connection.authorization);
        } catch (error) {
          if (normalizeError(error).code === 'UNAUTHENTICATED') connection.socket.close(CloseCode.Forbidden, 'Forbidden');
          return [toGraphQLError(error)];
        }
        connection.actor = actor;
        return this.prepare(payload, { transport: 'ws', address: connection.address }, actor);
      },
      subscribe: (args) => this.subscribe(args, undefined),
      onNext: (_ctx, _id, _payload, _args, result) => this.formatResult(result) as FormattedExecutionResult,
      onError: (_ctx, _id, _payload, errors) => this.formatErrors(errors),
    });
  }

  /** Closes the socket (4403) when its credential expires or stops authenticating after a change to its user. */
  private follow(connection: Connection): void {
    const actor = connection.actor;
    if (!actor) return;
    const forbid = () => connection.socket.close(CloseCode.Forbidden, 'Forbidden: the credential expired or was revoked');
    connection.cancelExpiry = onExpiry(actor.expiresAt, forbid);
    connection.unwatch = this.live.watch(actor.id, {
      recheck: async () => {
        try {
          connection.actor = await this.gate.authenticate(connection.authorization);
        } catch (error) {
          if (normalizeError(error).code === 'UNAUTHENTICATED') forbid();
        }
      },
    });
  }

  /** Pings every interval; a peer that has not answered the previous ping is cut off. */
  private keepAlive(socket: WebSocket, intervalMs: number): NodeJS.Timeout {
    let alive = true;
    socket.on('pong', () => (alive = true));
    const timer = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, intervalMs);
    timer.unref();
    return timer;
  }

  // ------------------------------------------------------------------------------------------
  // Server-Sent Events (graphql-sse, distinct connections)

  /**
   * The graphql-sse route (registered by the HTTP pipeline). Its streams are long-lived
   * responses, ended on shutdown.
   *
   * graphql-sse's handler reads the request and answers every refusal itself (its statuses and
   * bodies are the protocol's); an operation it would run is taken back here instead (thrown
   * out of `execute`/`subscribe` as `Admitted`) and written by writeEventStream, which pulls each
   * result only once the previous one has been written, where graphql-sse would queue them all.
   */
  sseRoute(): RouteOptions {
    const streams = new WeakMap<object, Stream>();
    const handler = createSseHandler<Record<PropertyKey, unknown>>({
      authenticate: () => null, // distinct connections mode only
      onSubscribe: async (request, params) => {
        const stream = streams.get(request.raw)!;
        const prepared = await this.prepare(params as SubscribePayload, { transport: 'sse', address: stream.address }, stream.actor);
        if (!Array.isArray(prepared)) return prepared as ExecutionArgs & { contextValue: Record<PropertyKey, unknown> };
        return this.sseError(...(prepared as readonly GraphQLError[]));
      },
      execute: (args) => {
        throw new Admitted(args, false);
      },
      subscribe: (args) => {
        throw new Admitted(args, true);
      },
      // Only graphql-sse's own answers still go through it (validation errors as a stream).
      onNext: (_ctx, _request, result) => this.formatResult(result as ExecutionResult),
    });
    return {
      method: ['GET', 'POST'],
      url: SSE_PATH,
      handler: async (request, reply) => {
        const release = this.live.admit(request.ip);
        if (typeof release !== 'function') {
          const [status, message] = release === 'instance' ? [503, 'Too many live connections'] : [429, 'Too many live connections from this address'];
          reply.status(status).header('retry-after', '5').send({ errors: [{ message, extensions: { code: status === 503 ? 'SERVICE_UNAVAILABLE' : 'RATE_LIMITED' } }] });
          return reply;
        }
        const stream: Stream = { address: request.ip, authorization: request.headers.authorization, actor: null };
        try {
          stream.actor = await this.gate.authenticate(stream.authorization);
        } catch (error) {
          release();
          const [body, { status, headers }] = this.sseError(toGraphQLError(error));
          reply.status(status).headers(headers).send(body);
          return reply;
        }
        streams.set(request, stream);
        const response = reply.raw;
        this.streams.add(response);
        request.raw.socket.setTimeout(0); // an event stream may be quiet for long
        const unfollow = this.followStream(stream, response);
        response.once('close', () => {
          this.streams.delete(response);
          unfollow();
          release();
        });
        reply.hijack();
        try {
          const admitted = await handler(request, reply).then(
            () => undefined,
            (error: unknown) => {
              if (error instanceof Admitted) return error;
              throw error;
            },
          );
          if (admitted) await this.streamOperation(admitted, response, reply.getHeaders());
        } catch (error) {
          this.logger.error(`SSE stream failed: ${error instanceof Error ? error.message : String(error)}`);
          if (!response.headersSent) response.writeHead(500).end();
          else response.end();
        }
        return reply;
      },
    };
  }

  /** Runs an admitted operation and writes its results as the event stream, with back-pressure. */
  private async streamOperation(admitted: Admitted, response: ServerResponse, replyHeaders: Record<string, unknown>): Promise<void> {
    const results = admitted.subscription ? await this.subscribe(admitted.args) : await execute(admitted.args);
    // Headers the hooks set on the reply go out with the stream, as graphql-sse sends them.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(replyHeaders)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join('\n') : String(value);
    }
    const stallTimeoutMs = this.config.subscriptionsStallTimeoutMs;
    await writeEventStream(response, headers, results, {
      stallTimeoutMs,
      format: (result) => this.formatResult(result),
      tooSlow: () => {
        this.metrics.subscribersTooSlow.labels('stall').inc();
        const after = (results as SubscriptionStream).after;
        return {
          errors: [
            subscriberTooSlow(
              `The client did not take the events sent within ${stallTimeoutMs} ms (SUBSCRIPTIONS_STALL_TIMEOUT_MS): the stream was ended; subscribe again${after === undefined ? '' : ' with `after` set to extensions.after'}`,
              after,
            ),
          ],
        };
      },
    });
  }

  /** Ends the stream when its credential expires or stops authenticating after a change to its user. */
  private followStream(stream: Stream, response: ServerResponse): () => void {
    const actor = stream.actor;
    if (!actor) return () => undefined;
    const end = () => endEventStream(response, this.config.subscriptionsStallTimeoutMs);
    const cancelExpiry = onExpiry(actor.expiresAt, end);
    const unwatch = this.live.watch(actor.id, {
      recheck: async () => {
        try {
          stream.actor = await this.gate.authenticate(stream.authorization);
        } catch (error) {
          if (normalizeError(error).code === 'UNAUTHENTICATED') end();
        }
      },
    });
    return () => {
      unwatch();
      cancelExpiry();
    };
  }

  /** A refusal answered before the stream starts: the error's status, a GraphQL body. */
  private sseError(...errors: GraphQLError[]): [string, { status: number; statusText: string; headers: Record<string, string> }] {
    const problem = normalizeError(errors[0]);
    const http = errors[0].extensions.http as { status?: number; headers?: Map<string, string> } | undefined;
    const status = http?.status ?? 400;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const [name, value] of http?.headers ?? []) headers[name] = value;
    return [JSON.stringify({ errors: this.formatErrors(errors) }), { status, statusText: status === 400 ? 'Bad Request' : problem.title, headers }];
  }

  /** SIGTERM: close the sockets (1001) and end the event streams so the server can close. */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.httpServer?.off('upgrade', this.onUpgrade);
    if (this.credentialsSubscription !== undefined) this.pubSub.unsubscribe(this.credentialsSubscription);
    for (const socket of this.wss?.clients ?? []) socket.close(1001, 'Going away');
    for (const response of this.streams) endEventStream(response, this.config.subscriptionsStallTimeoutMs);
    this.streams.clear();
    await new Promise<void>((resolve) => (this.wss ? this.wss.close(() => resolve()) : resolve()));
  }
}

/** An operation graphql-sse admitted, taken back from it to be streamed here. */
class Admitted {
  constructor(
    readonly args: ExecutionArgs,
    readonly subscription: boolean,
  ) {}
}

/** What subscribers share one execution of: the same text, operation name and variables. */
export function executionKey(operation: AdmittedOperation): string {
  return `${operation.operationName ?? ''}\u0000${JSON.stringify(operation.variables)}\u0000${operation.query}`;
}

/** Answers an upgrade request with a plain HTTP response and closes the connection. */
function answer(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ errors: [{ message }] });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
