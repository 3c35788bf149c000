import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type NormalizedError, normalizeError } from './normalize-error.js';
import { varyOnAccept } from '../http/vary.js';
import { redactUrl } from '../../redaction/redact-url.js';
import { toProblemDetails } from './problem-details.js';
import { renderProblem } from './problem-renderer.js';
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from '../rate-limit/rate-limit-headers.js';

/**
 * The one place where a failure becomes an HTTP response: Nest routes it everything thrown in
 * guards, pipes and handlers, and Fastify's own errors (body parser, size limit, 404) too. The
 * problem follows Accept: problem+json, problem+xml (RFC 9457 Appendix A) or an HTML page.
 * GraphQL errors are left to the GraphQL formatter, which uses the same `normalizeError`.
 */
/**
 * Answers an error in another shape where a protocol asks for one (a GraphQL endpoint's clients
 * read `errors`, not a problem document); returns false to leave it to problem+json.
 */
export type ErrorResponder = (error: NormalizedError, request: FastifyRequest, reply: FastifyReply) => boolean;

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly responders: readonly ErrorResponder[] = []) {}

  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    sendProblem(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger, this.responders);
    return undefined;
  }
}

export function sendProblem(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Pick<Logger, 'error'>,
  responders: readonly ErrorResponder[] = [],
): void {
  const error = normalizeError(exception);
  if (error.unexpected) {
    logger.error(
      `${request.method} ${redactUrl(request.url)} failed: ${exception instanceof Error ? exception.stack : String(exception)}`,
    );
  }
  if (reply.sent) return;
  if (responders.some((respond) => respond(error, request, reply))) return;
  const path = request.url.split('?')[0];
  const { contentType, body } = renderProblem(toProblemDetails(error, path), request.headers.accept);
  reply.status(error.status).header('content-type', contentType);
  // Which format an error is sent in (JSON, XML, HTML) depends on Accept.
  varyOnAccept(reply);
  if (error.status === 401) reply.header('www-authenticate', 'Bearer');
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, withEarlierLimits(reply.getHeader(name), name, value));
  reply.send(body);
}

/** A limit's RateLimit items after those of the limits that counted the request before it (the request limit's, set when it arrived). */
function withEarlierLimits(existing: unknown, name: string, value: string): string {
  if ((name !== RATE_LIMIT_HEADER && name !== RATE_LIMIT_POLICY_HEADER) || typeof existing !== 'string' || existing === '' || existing.includes(value)) return value;
  return `${existing}, ${value}`;
}
