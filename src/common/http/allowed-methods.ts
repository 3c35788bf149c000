import type { FastifyReply, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError } from '../errors/domain-error.js';
import { type NormalizedError, normalizeError } from '../errors/normalize-error.js';
import { type ErrorResponder, sendProblem } from '../errors/problem-details.filter.js';
import { toProblemDetails } from '../errors/problem-details.js';
import { renderProblem } from '../errors/problem-renderer.js';
import { type SecurityHeaders, securityHeaders, securityHeadersFor } from './security-headers.js';

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Pattern {
  url: string;
  methods: Set<string>;
  matcher?: RegExp;
}

/** The request line and headers of what Node's HTTP parser refused, from the bytes it saw. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^\s?]*)(?:\?\S*)? HTTP\/1\.[01]\r?\n/;
const ACCEPT_LINE = /^accept:[ \t]*([^\r\n]*)/im;

/**
 * The methods each path serves, learnt from the routes Fastify registers (`learnRoute`, an
 * `onRoute` hook added before any route), so that a known path asked with a method it does not
 * serve answers 405 with `Allow` rather than 404. Only a request the router found no route for is
 * looked up, so routed requests pay nothing.
 *
 * Such a request is answered in `preParsing` (`refuseUnrouted`), before its body is read and
 * whatever it carries (405 on a known path, 404 otherwise): Fastify would otherwise parse a body
 * for the not-found handler first, refusing a QUERY without Content-Type (RFC 10008 asks for one),
 * or a body that is not JSON or is too large, with 400, 415 or 413. A method Node's HTTP parser
 * does not know at all (`FOO`) never reaches Fastify: the parser refuses the request line, and
 * `answerUnknownMethods` answers it the same way from the raw bytes. A routed request that its
 * route hands to the not-found handler (the CORS plugin's `OPTIONS *` with nothing to answer) gets
 * the same 405 through `responder`. The HTTP pipeline (api/http-pipeline.ts) registers all three.
 */
export class AllowedMethods {
  private readonly patterns = new Map<string, Pattern>();
  private rawHeaders?: SecurityHeaders;

  /** An `onRoute` hook: records the route's methods under its URL. */
  readonly learnRoute = (route: RouteOptions): void => {
    // A catch-all (the CORS plugin's `OPTIONS *`, for preflights) says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    let pattern = this.patterns.get(route.url);
    if (!pattern) {
      pattern = { url: route.url, methods: new Set() };
      this.patterns.set(route.url, pattern);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) pattern.methods.add(method.toUpperCase());
    if (pattern.methods.has('GET')) pattern.methods.add('HEAD');
  };

  /** A `preParsing` hook: a request no route serves is refused (405 on a known path, else 404) before its body is read. */
  readonly refuseUnrouted: preParsingHookHandler = (request, _reply, payload, done) => {
    if (!request.is404) return done(null, payload);
    done(this.refusal(request.method, pathOf(request)) ?? notFound(request.method, pathOf(request)));
  };

  /**
   * Answers a request line Node's parser refused for its method (405 or 404, as for any other
   * method), around the server's other `clientError` listeners (Fastify's answers a bare 400 and
   * closes the socket at once), which still answer every other parse error (400, 431).
   */
  answerUnknownMethods(server: Server): void {
    const others = server.listeners('clientError') as ((error: Error, socket: Socket) => void)[];
    for (const listener of others) server.removeListener('clientError', listener);
    server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
      if (error.code === 'HPE_INVALID_METHOD' && !socket.destroyed && error.rawPacket && this.answerUnknownMethod(error.rawPacket.toString('latin1'), socket)) return;
      for (const listener of others) listener.call(server, error, socket);
      // What Node does when nobody listens.
      if (others.length === 0 && !socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    });
  }

  /** The methods some route serves for this path (in the usual order), empty for an unknown path. */
  allowedFor(path: string): string[] {
    const methods = new Set<string>();
    for (const pattern of this.patterns.values()) {
      pattern.matcher ??= toMatcher(pattern.url);
      if (pattern.matcher.test(path)) for (const method of pattern.methods) methods.add(method);
    }
    return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  /** Answers the not-found handler's 404 for a known path as 405 with `Allow`; leaves every other error alone. */
  readonly responder: ErrorResponder = (error: NormalizedError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.status !== 404 || !request.is404) return false;
    const refusal = this.refusal(request.method, pathOf(request));
    if (!refusal) return false;
    sendProblem(refusal, request, reply, request.log);
    return true;
  };

  /** 405 with `Allow` for a method a known path does not serve; null for an unknown path (a 404). */
  private refusal(method: string, path: string): DomainError | null {
    const allowed = this.allowedFor(path);
    // A route that serves this method sent the 404 itself (a static asset it does not have).
    if (allowed.length === 0 || allowed.includes(method)) return null;
    const allow = allowed.join(', ');
    return new DomainError('METHOD_NOT_ALLOWED', `${method} is not served on this path; it serves ${allow}`, undefined, { allow });
  }

  /** Answers a request line Node's parser refused for its method, as the filter would, and closes; false when it cannot read it. */
  private answerUnknownMethod(raw: string, socket: Socket): boolean {
    const line = REQUEST_LINE.exec(raw);
    if (!line) return false;
    const [, method, path] = line;
    const error = normalizeError(this.refusal(method, path) ?? notFound(method, path));
    const head = raw.split('\r\n\r\n', 1)[0];
    const { contentType, body } = renderProblem(toProblemDetails(error, path), ACCEPT_LINE.exec(head)?.[1]);
    const headers: Record<string, string> = {
      ...securityHeadersFor((this.rawHeaders ??= securityHeaders()), contentType),
      ...error.headers,
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(body)),
      vary: 'Accept',
      date: new Date().toUTCString(),
      connection: 'close',
    };
    const fields = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 ${error.status} ${error.title}\r\n${fields}\r\n${body}`);
    return true;
  }
}

const pathOf = (request: FastifyRequest) => request.url.split('?')[0];
const notFound = (method: string, path: string) => new DomainError('NOT_FOUND', `Cannot ${method} ${path}`);

const rank = (method: string) => {
  const index = METHOD_ORDER.indexOf(method);
  return index < 0 ? METHOD_ORDER.length : index;
};

/** A Fastify route URL as a regular expression over request paths: `:id` one segment, `*` the rest. */
function toMatcher(url: string): RegExp {
  let source = '';
  for (let index = 0; index < url.length; index++) {
    const char = url[index];
    if (char === ':' && url[index + 1] !== ':') {
      let end = index + 1;
      while (end < url.length && /\w/.test(url[end])) end++;
      if (url[end] === '(') {
        // A parameter with its own pattern, `:id(^\\d+)`: its pattern, without anchors.
        let depth = 0;
        const start = end;
        for (; end < url.length; end++) {
          if (url[end] === '(') depth++;
          else if (url[end] === ')' && --depth === 0) break;
        }
        source += `(?:${url.slice(start + 1, end).replace(/^\^|\$$/g, '')})`;
        index = end;
      } else {
        source += '[^/]+';
        index = end - 1;
      }
    } else if (char === ':') {
      source += ':';
      index++;
    } else if (char === '*') {
      source += '.*';
    } else {
      source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}
