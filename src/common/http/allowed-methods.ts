import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error.js';
import type { NormalizedError } from '../errors/normalize-error.js';
import { type ErrorResponder, sendProblem } from '../errors/problem-details.filter.js';

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Pattern {
  url: string;
  methods: Set<string>;
  matcher?: RegExp;
}

/**
 * The methods each path serves, learnt from the routes Fastify registers (an `onRoute` hook,
 * added before any route), so that a known path asked with a method it does not serve answers
 * 405 with `Allow` rather than 404. Only a request the router found no route for is looked up
 * here (through the not-found error), so routed requests pay nothing.
 */
export class AllowedMethods {
  private readonly patterns = new Map<string, Pattern>();

  constructor(fastify: FastifyInstance) {
    fastify.addHook('onRoute', (route) => {
      // A catch-all (the CORS plugin's `OPTIONS *`, for preflights) says nothing about which paths exist.
      if (route.url === '*' || route.url === '/*') return;
      let pattern = this.patterns.get(route.url);
      if (!pattern) {
        pattern = { url: route.url, methods: new Set() };
        this.patterns.set(route.url, pattern);
      }
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) pattern.methods.add(method.toUpperCase());
      if (pattern.methods.has('GET')) pattern.methods.add('HEAD');
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

  /** Answers the router's 404 for a known path as 405 with `Allow`; leaves every other error alone. */
  readonly responder: ErrorResponder = (error: NormalizedError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.status !== 404 || !request.is404) return false;
    const allowed = this.allowedFor(request.url.split('?')[0]);
    // A route that serves this method sent the 404 itself (a static asset it does not have).
    if (allowed.length === 0 || allowed.includes(request.method)) return false;
    const allow = allowed.join(', ');
    const notAllowed = new DomainError('METHOD_NOT_ALLOWED', `${request.method} is not served on this path; it serves ${allow}`, undefined, { allow });
    sendProblem(notAllowed, request, reply, request.log);
    return true;
  };
}

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
