import { randomUUID } from 'node:crypto';
import type { LoggerService } from '@nestjs/common';
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions, type HookHandlerDoneFunction, LogController } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { sendProblem } from '../errors/problem-details.filter.js';
import { traceIdsOfActiveSpan } from '../../tracing/spans.js';
import { tracingState } from '../../tracing/tracing-state.js';
import { redactUrl } from '../../redaction/redact-url.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's pino logger: JSON lines, the request id on each, secrets redacted. A client's
 * `X-Request-Id` is honoured when it is a plain token (else a new UUID), and echoed back.
 */
export function loggerOptions(config: AppConfig): Pick<
  FastifyServerOptions,
  'logger' | 'logController' | 'genReqId' | 'requestIdHeader'
> {
  return {
    logger: {
      level: config.logLevel,
      base: undefined,
      redact: { paths: ['req.headers.authorization', 'req.headers["x-current-password"]', 'password', '*.password', 'accessToken', '*.accessToken'], remove: true },
      // With tracing on, each line carries the trace and span it was written in.
      ...(tracingState.enabled ? { mixin: traceIdsOfActiveSpan } : {}),
    },
    logController: new OneLinePerRequest({ requestIdLogLabel: 'requestId' }),
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
    },
  };
}

/**
 * The router refuses a malformed URL (`/posts/%zz`, 400) or an over-long path segment (414)
 * before any hook, filter or error handler runs, and Fastify would answer with its own JSON.
 * Answered here as problem+json like every other error, with the request id, nosniff, and the
 * one log line (no hook runs for these requests).
 */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  sendProblem(error, request, reply, request.log);
  request.log.info(
    { method: request.method, url: redactUrl(request.url), route: null, status: reply.statusCode, ip: request.ip },
    'request',
  );
}

/** An `onRequest` hook: echoes the request id on every response. */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header('x-request-id', request.id);
  done();
}

const LOGS_INFO = new Set(['trace', 'debug', 'info']);

/**
 * Fastify logs two lines per request by default; this logs one, after the response: method,
 * route, status, duration, client address. Never headers or bodies (no tokens, no passwords).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const failed = Boolean(error) || reply.statusCode >= 500;
    // Below the configured level (LOG_LEVEL=warn, say) the line is never built.
    if (!failed && !LOGS_INFO.has(request.log.level)) return;
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (failed) request.log.error({ ...line, err: error ?? undefined }, 'request failed');
    else request.log.info(line, 'request');
  }
}

/** Nest's own log calls go to the same pino logger, so every line is JSON. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: FastifyBaseLogger) {}

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, params: unknown[]) {
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? params[params.length - 1] : undefined;
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.message);
    else this.pino[level]({ context }, typeof message === 'string' ? message : JSON.stringify(message));
  }

  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    // Nest passes (message, stack, context): keep the stack in the log, never in a response.
    const [stack, context] = params;
    this.pino.error({ context: typeof context === 'string' ? context : undefined, stack }, String(message));
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }
}
