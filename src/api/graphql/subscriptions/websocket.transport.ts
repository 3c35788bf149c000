import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type ExecutionArgs, type FormattedExecutionResult, GraphQLError } from 'graphql';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import type { IncomingHttpHeaders, IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { GraphQLContext } from '../../../common/graphql/graphql-context.js';
import { normalizeError } from '../../../common/errors/normalize-error.js';
import { clientAddress, trustFunction } from '../../../common/http/client-address.js';
import { RateLimiter, requestKey } from '../../../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../../../config/app-config.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { toGraphQLError } from '../format-error.js';
import { type Credential, CredentialFollower } from './credential-follower.js';
import { LiveConnections } from './live-connections.js';
import { OperationRunner } from './operation-runner.js';

export const GRAPHQL_WS_PATH = '/graphql';
/** A socket that has not sent connection_init by then is closed with 4408. */
const CONNECTION_INIT_TIMEOUT_MS = 3000;
const UNSUPPORTED_PROTOCOL = `Use the ${GRAPHQL_TRANSPORT_WS_PROTOCOL} subprotocol (the graphql-ws library); subscriptions-transport-ws's "graphql-ws" is not supported`;

/** What graphql-ws keeps per socket. */
interface Connection extends Credential {
  socket: WebSocket;
  address: string;
  /** The upgrade request's headers (its user agent, for the audit log). */
  headers: IncomingHttpHeaders;
  authorization?: string;
  unfollow?: () => void;
}

/**
 * graphql-ws (the graphql-transport-ws protocol) on /graphql. Which socket an operation came
 * from, its credential and address are this file's; every check of the operation itself is the
 * gate's, through the operation runner.
 *
 * The WebSocket upgrade is handled here rather than by @nestjs/graphql, which left upgrade
 * requests on other paths unanswered (a socket leaked for each): every upgrade request is
 * answered at once, counted against the caps from the first byte (1013 beyond them), and
 * refused when it offers only the legacy subprotocol. A message over the body limit closes the
 * socket with 1009; connection_init must come within 3 s (4408); a credential that fails,
 * expires or is revoked closes it with 4403; a peer that misses a ping is cut off.
 */
@Injectable()
export class WebSocketTransport implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private readonly trust;
  private wss?: WebSocketServer;
  private httpServer?: HttpServer;
  private closing = false;

  constructor(
    private readonly runner: OperationRunner,
    private readonly credentials: CredentialFollower,
    private readonly live: LiveConnections,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.trust = trustFunction(config.trustProxy);
  }

  /** Takes over WebSocket upgrades on the HTTP server. */
  attach(httpServer: HttpServer): void {
    this.httpServer = httpServer;
    const wss = (this.wss = new WebSocketServer({
      noServer: true,
      // A message over the body limit closes the socket with 1009 before it is buffered whole.
      maxPayload: this.config.bodyLimitBytes,
      handleProtocols: (protocols) => (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false),
    }));
    const server = this.makeServer();
    wss.on('connection', (socket: WebSocket, request: IncomingMessage, address: string, release: () => void) => this.connected(server, socket, request, address, release));
    httpServer.on('upgrade', this.onUpgrade);
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

  private connected(server: ReturnType<WebSocketTransport['makeServer']>, socket: WebSocket, request: IncomingMessage, address: string, release: () => void): void {
    this.metrics.wsConnections.inc();
    const connection: Connection = { socket, address, headers: request.headers, actor: null };
    const pinger = this.config.subscriptionsKeepAliveMs > 0 ? keepAlive(socket, this.config.subscriptionsKeepAliveMs) : undefined;
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
      clearInterval(pinger);
      connection.unfollow?.();
      release();
      this.metrics.wsConnections.dec();
      void closed(code, String(reason));
    });
  }

  private makeServer() {
    return makeServer<Record<string, unknown> | undefined, Connection>({
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      onConnect: async (ctx) => {
        const connection = ctx.extra;
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        connection.authorization = typeof header === 'string' ? header : undefined;
        try {
          await this.credentials.check(connection);
        } catch (error) {
          if (normalizeError(error).code !== 'UNAUTHENTICATED') connection.socket.close(1013, 'Service unavailable; try again later');
          return false; // graphql-ws closes with 4403 Forbidden
        }
        connection.unfollow = this.credentials.follow(connection, () => forbid(connection.socket));
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const connection = ctx.extra;
        const active = Object.keys(ctx.subscriptions).length;
        if (active > this.config.subscriptionsMaxPerConnection) {
          return [new GraphQLError(`At most ${this.config.subscriptionsMaxPerConnection} operations per connection`, { extensions: { code: 'RATE_LIMITED' } })];
        }
        // Every operation looks at the credential again: an expired, revoked or deleted one closes the socket.
        try {
          await this.credentials.check(connection);
        } catch (error) {
          if (normalizeError(error).code === 'UNAUTHENTICATED') connection.socket.close(CloseCode.Forbidden, 'Forbidden');
          return [toGraphQLError(error)];
        }
        const prepared = await this.runner.prepare(payload, { transport: 'ws', address: connection.address }, connection.actor);
        // What the operation changes is recorded with the socket's address and user agent, and an id of its own.
        if (!Array.isArray(prepared)) (prepared as ExecutionArgs & { contextValue: GraphQLContext }).contextValue.requestSource = { ip: connection.address, headers: connection.headers, id: randomUUID() };
        return prepared;
      },
      execute: (args) => this.runner.execute(args),
      subscribe: (args) => this.runner.subscribe(args),
      onNext: (_ctx, _id, _payload, _args, result) => this.runner.formatResult(result) as FormattedExecutionResult,
      onError: (_ctx, _id, _payload, errors) => this.runner.formatErrors(errors),
    });
  }

  /** SIGTERM: refuse new upgrades and close the sockets (1001) so the server can close. */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.httpServer?.off('upgrade', this.onUpgrade);
    for (const socket of this.wss?.clients ?? []) socket.close(1001, 'Going away');
    await new Promise<void>((resolve) => (this.wss ? this.wss.close(() => resolve()) : resolve()));
  }
}

/** Closes a socket whose credential expired or was revoked. */
function forbid(socket: WebSocket): void {
  socket.close(CloseCode.Forbidden, 'Forbidden: the credential expired or was revoked');
}

/** Pings every interval; a peer that has not answered the previous ping is cut off. */
function keepAlive(socket: WebSocket, intervalMs: number): NodeJS.Timeout {
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
