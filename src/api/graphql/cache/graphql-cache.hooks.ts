import { Injectable } from '@nestjs/common';
import { lookupLocale } from '../../../common/i18n/locale-lookup.js';
import { AppConfig } from '../../../config/app-config.js';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { collectReadTags } from '../../../common/cache/read-tags.js';
import { CACHE_STATUS, ResponseCache } from '../../../common/cache/response-cache.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { singleResultMediaType } from '../single-result-media-type.js';

/** An answer as sent: `{"data":…}` and a newline; its media type is chosen afresh for each request. */
interface CachedAnswer {
  body: string;
}

/** Set on a request to /graphql whose answer may be kept. */
export interface GraphQLCacheState {
  key: string;
  /** The cache's generation when the request arrived, before anything was read. */
  since: number;
  /** Set (markStorable) once the answer is a query's data without errors. */
  storable: boolean;
  /** The tags of what the operation read (read-tags.ts). */
  tags: Set<string>;
}

/**
 * Whether an answer may be kept (the gate's plugin and the planned path decide it; `state` is null
 * when the request was not looked up: a credential, a mutation): its Cache-Status.
 */
export function markStorable(state: GraphQLCacheState | null, storable: boolean): string {
  if (state) state.storable = storable;
  return storable ? CACHE_STATUS.miss : CACHE_STATUS.uncacheable;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseParameter(value: unknown): unknown {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') return Symbol.for('invalid');
  try {
    return JSON.parse(value);
  } catch {
    return Symbol.for('invalid');
  }
}

/**
 * What identifies an anonymous GraphQL request's answer: the document (its text, or the id of a
 * persisted one), the operation's name and the variables, from a POST body or GET's parameters
 * alike. Null for anything else, e.g. a request that registers a persisted query: it goes the
 * whole way so that the registration happens.
 */
export function operationKey(request: FastifyRequest): string | null {
  let source: Record<string, unknown>;
  let variables: unknown;
  let extensions: unknown;
  if (request.method === 'POST') {
    if (!isRecord(request.body)) return null;
    source = request.body;
    ({ variables, extensions } = source);
  } else if (request.method === 'GET') {
    if (!isRecord(request.query)) return null;
    source = request.query as Record<string, unknown>;
    variables = parseParameter(source.variables);
    extensions = parseParameter(source.extensions);
  } else {
    return null;
  }
  const { query, operationName } = source;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
  let document: string;
  if (extensions === undefined || extensions === null) {
    if (typeof query !== 'string' || query === '') return null;
    document = query;
  } else {
    if (query !== undefined || !isRecord(extensions) || Object.keys(extensions).length !== 1) return null;
    const persisted = extensions.persistedQuery;
    if (!isRecord(persisted) || typeof persisted.sha256Hash !== 'string' || typeof persisted.version !== 'number') return null;
    document = `#${persisted.version}:${persisted.sha256Hash}`;
  }
  let values = '{}';
  try {
    if (variables) values = JSON.stringify(variables);
  } catch {
    // Nested too deep to write out (the gate refuses such variables with a 400 of its own).
    return null;
  }
  return `graphql\u0000${operationName ?? ''}\u0000${document}\u0000${values}`;
}

/**
 * Anonymous GraphQL queries over HTTP through the response cache, before Apollo: a kept answer
 * goes out in `preHandler` (after the rate limit and every other `onRequest` hook), as the bytes
 * Apollo sent, with the media type Apollo would choose for this request's Accept. An answer is
 * kept in `onSend` when the operation gate's plugin has marked it storable: an admitted query
 * (every limit passed; for the same document, operation and variables the gate decides the same
 * again), data and no errors. A request with a credential is never looked up or kept. The HTTP
 * pipeline (api/http-pipeline.ts) registers the two hooks.
 */
@Injectable()
export class GraphQLCacheHooks {
  constructor(
    private readonly cache: ResponseCache,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  /**
   * A query's key; with more than one supported locale, the language Accept-Language chooses is
   * part of it (`posts` shows each translation group in it, CONTRACT §15).
   */
  private keyOf(request: FastifyRequest): string | null {
    const key = operationKey(request);
    if (key === null || this.config.supportedLocales.length < 2) return key;
    return `${key}\u0000${lookupLocale(request.headers['accept-language'], this.config.supportedLocales) ?? ''}`;
  }

  /** What the hooks keep on each request, decorated once so every request has the same shape. */
  static readonly requestFields = { graphqlCache: null } as const;

  /** The two hooks, for the GraphQL endpoint at `path`. */
  at(path: string): { answerGraphQLFromCache: preHandlerHookHandler; keepGraphQLAnswer: onSendHookHandler } {
    const answerGraphQLFromCache: preHandlerHookHandler = (request, reply, done) => {
      if (!this.cache.enabled || request.routeOptions.url !== path || request.headers.authorization !== undefined) return done();
      const key = this.keyOf(request);
      if (key === null) return done();
      const since = this.cache.generation();
      const hit = this.cache.get<CachedAnswer>(key);
      const mediaType = hit && singleResultMediaType(request.method, request.headers.accept);
      if (hit && mediaType) {
        this.metrics.recordGraphQLOperation('query');
        reply.header('cache-status', CACHE_STATUS.hit).header('content-type', mediaType).send(hit.body);
        return;
      }
      const tags = new Set<string>();
      request.graphqlCache = { key, since, storable: false, tags };
      collectReadTags(tags, done);
    };
    const keepGraphQLAnswer: onSendHookHandler = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
      const state = request.graphqlCache;
      if (state?.storable && reply.statusCode === 200 && typeof payload === 'string') {
        this.cache.set(state.key, { body: payload } satisfies CachedAnswer, payload.length, state.since, state.tags);
      }
      done(null, payload);
    };
    return { answerGraphQLFromCache, keepGraphQLAnswer };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The response cache's state of an anonymous GraphQL request; null otherwise. */
    graphqlCache: GraphQLCacheState | null;
  }
}
