import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { RouteOptions } from 'fastify';
import type { ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/fastify';
import type { ServerResponse } from 'node:http';
import { normalizeError } from '../../../common/errors/normalize-error.js';
import { subscriberTooSlow } from '../../../common/graphql/subscriber-too-slow-error.js';
import { AppConfig } from '../../../config/app-config.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { toGraphQLError } from '../format-error.js';
import { type Credential, CredentialFollower } from './credential-follower.js';
import { LiveConnections } from './live-connections.js';
import { OperationRunner } from './operation-runner.js';
import type { SubscriptionStream } from './shared-execution.js';
import { endEventStream, writeEventStream } from './sse-event-stream.js';

export const SSE_PATH = '/graphql/stream';

/** What the route keeps per stream (one operation per stream). */
interface Stream extends Credential {
  address: string;
}

/** An operation graphql-sse admitted, taken back from it to be streamed here. */
class Admitted {
  constructor(
    readonly args: ExecutionArgs,
    readonly subscription: boolean,
  ) {}
}

/**
 * graphql-sse (distinct connections mode) on /graphql/stream: one operation per stream, through
 * the same gate as every other door (the operation runner), its credential followed (the stream
 * ends when it expires or is revoked), its streams counted with the WebSockets.
 *
 * graphql-sse's handler reads the request and answers every refusal itself (its statuses and
 * bodies are the protocol's); an operation it would run is taken back here instead (thrown out
 * of `execute`/`subscribe` as `Admitted`) and written by writeEventStream, which pulls each result
 * only once the previous one has been written, where graphql-sse would queue them all.
 */
@Injectable()
export class SseTransport implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private readonly responses = new Set<ServerResponse>();

  constructor(
    private readonly runner: OperationRunner,
    private readonly credentials: CredentialFollower,
    private readonly live: LiveConnections,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** The route (registered by the HTTP pipeline); its streams are long-lived responses, ended on shutdown. */
  route(): RouteOptions {
    const streams = new WeakMap<object, Stream>();
    const handler = createHandler<Record<PropertyKey, unknown>>({
      authenticate: () => null, // distinct connections mode only
      onSubscribe: async (request, params) => {
        const stream = streams.get(request.raw)!;
        const prepared = await this.runner.prepare(params, { transport: 'sse', address: stream.address }, stream.actor);
        if (!Array.isArray(prepared)) return prepared as ExecutionArgs & { contextValue: Record<PropertyKey, unknown> };
        return this.refusal(...(prepared as readonly GraphQLError[]));
      },
      execute: (args) => {
        throw new Admitted(args, false);
      },
      subscribe: (args) => {
        throw new Admitted(args, true);
      },
      // Only graphql-sse's own answers still go through it (validation errors as a stream).
      onNext: (_ctx, _request, result) => this.runner.formatResult(result as ExecutionResult),
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
          await this.credentials.check(stream);
        } catch (error) {
          release();
          const [body, { status, headers }] = this.refusal(toGraphQLError(error));
          reply.status(status).headers(headers).send(body);
          return reply;
        }
        streams.set(request, stream);
        const response = reply.raw;
        this.responses.add(response);
        request.raw.socket.setTimeout(0); // an event stream may be quiet for long
        const unfollow = this.credentials.follow(stream, () => endEventStream(response, this.config.subscriptionsStallTimeoutMs));
        response.once('close', () => {
          this.responses.delete(response);
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
          if (admitted) await this.stream(admitted, response, reply.getHeaders());
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
  private async stream(admitted: Admitted, response: ServerResponse, replyHeaders: Record<string, unknown>): Promise<void> {
    const results = await this.runner.run(admitted.args, admitted.subscription);
    // Headers the hooks set on the reply go out with the stream, as graphql-sse sends them.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(replyHeaders)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join('\n') : String(value);
    }
    const stallTimeoutMs = this.config.subscriptionsStallTimeoutMs;
    await writeEventStream(response, headers, results, {
      stallTimeoutMs,
      format: (result) => this.runner.formatResult(result),
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

  /** A refusal answered before the stream starts: the error's status, a GraphQL body. */
  private refusal(...errors: GraphQLError[]): [string, { status: number; statusText: string; headers: Record<string, string> }] {
    const problem = normalizeError(errors[0]);
    const http = errors[0].extensions.http as { status?: number; headers?: Map<string, string> } | undefined;
    const status = http?.status ?? 400;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const [name, value] of http?.headers ?? []) headers[name] = value;
    return [JSON.stringify({ errors: this.runner.formatErrors(errors) }), { status, statusText: status === 400 ? 'Bad Request' : problem.title, headers }];
  }

  /** SIGTERM: end the event streams so the server can close. */
  onApplicationShutdown(): void {
    for (const response of this.responses) endEventStream(response, this.config.subscriptionsStallTimeoutMs);
    this.responses.clear();
  }
}
