import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import type { RequestWithActor } from '../../auth/auth.decorators.js';
import { collectReadTags } from '../../common/cache/read-tags.js';
import { CACHE_STATUS, ResponseCache } from '../../common/cache/response-cache.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { varyOnAccept } from '../../common/http/vary.js';
import { etagFor, ifNoneMatchHits } from '../../common/resource/etag.js';
import { HtmlRenderer } from './html.renderer.js';
import { AVAILABLE_MEDIA_TYPES, DEFAULT_REPRESENTATION, type Format, negotiateRepresentation, type Representation } from '../../common/resource/media-types.js';
import { halItem, Resource, ResourceList } from '../../common/resource/resource.js';
import { renderXml } from './xml.renderer.js';

import type { NegotiatedRouteConfig } from '../../common/resource/negotiated.js';

const isSafe = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';
/** A preview link's read (CONTRACT §13): never from or into the response cache. */
const isPreview = (request: FastifyRequest) => (request.query as Record<string, unknown> | undefined)?.preview !== undefined;

/** A representation as the response cache keeps it. */
interface CachedRepresentation {
  body: string;
  contentType: string;
  etag?: string;
  link?: string;
}

/** Stands for "no body" between the preSerialization hook and the serializer (a 304). */
const NO_BODY = Symbol('no body');

/**
 * The reply serializer of negotiated routes: what the hook rendered goes out as it is, anything
 * else (an error's problem+json, say) is JSON, and NO_BODY becomes no payload at all, so that a
 * 304 carries no Content-Length.
 */
function serializeRendered(payload: unknown): string {
  if (payload === NO_BODY) return undefined as unknown as string;
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/**
 * The one place where resources become bytes. Controllers return a Resource or ResourceList;
 * on a negotiated route, `onRequest` picks the format from Accept (406 on a GET that accepts
 * none of ours, before any work) and `preSerialization` renders what the controller returned,
 * adding Vary, Content-Type, ETag (with If-None-Match → 304) and Link.
 *
 * Anonymous GETs (and HEADs) go through the response cache: keyed by the path and query and by
 * the representation chosen, a kept answer goes out in `preHandler` (after the rate limit and
 * every other `onRequest` hook, before any work), and a 200 rendered here is kept. The HTTP
 * pipeline (api/http-pipeline.ts) registers the three hooks.
 */
@Injectable()
export class RepresentationHooks {
  constructor(
    private readonly html: HtmlRenderer,
    private readonly cache: ResponseCache,
  ) {}

  /** What the hooks keep on each request, decorated once so every request has the same shape. */
  static readonly requestFields = { representation: null, cacheKey: null, cacheGeneration: 0, cacheTags: null } as const;

  /** `onRequest`: the representation of a negotiated route (406 on a GET that accepts none), and the cache key. */
  readonly negotiate: onRequestHookHandler = (request, reply, done) => {
    const route = request.routeOptions.config as NegotiatedRouteConfig | undefined;
    if (route?.negotiated !== true) return done();
    const safe = isSafe(request);
    const negotiated = negotiateRepresentation(request.headers.accept);
    // Whatever a GET answers (a representation, 304, 406, an error) was chosen with Accept in view.
    if (safe) varyOnAccept(reply);
    if (negotiated === null && safe) {
      return done(
        new DomainError('NOT_ACCEPTABLE', `None of the requested media types is available. Available: ${AVAILABLE_MEDIA_TYPES.join(', ')}`),
      );
    }
    // A write has already happened by the time it renders: answer it in JSON rather than 406.
    request.representation = negotiated ?? DEFAULT_REPRESENTATION;
    reply.serializer(serializeRendered);
    if (safe && this.cache.enabled) {
      if (request.headers.authorization !== undefined || route.uncached === true || isPreview(request)) {
        reply.header('cache-status', CACHE_STATUS.uncacheable);
      } else {
        // Taken before any work: an answer read before a write is never kept after it.
        request.cacheGeneration = this.cache.generation();
        request.cacheKey = `rest\u0000${request.representation.contentType}\u0000${request.url}`;
      }
    }
    done();
  };

  /** `preHandler`: a kept representation goes out before the controller runs; on a miss, what the controller reads is tagged. */
  readonly answerRepresentationFromCache: preHandlerHookHandler = (request, reply, done) => {
    if (request.cacheKey === null) return done();
    const hit = this.cache.get<CachedRepresentation>(request.cacheKey);
    if (!hit) {
      reply.header('cache-status', CACHE_STATUS.miss);
      const tags = (request.cacheTags = new Set<string>());
      return collectReadTags(tags, done);
    }
    reply.header('cache-status', CACHE_STATUS.hit);
    request.cacheKey = null;
    if (hit.link) reply.header('link', hit.link);
    if (hit.etag) {
      reply.header('etag', hit.etag);
      if (ifNoneMatchHits(request.headers['if-none-match'], hit.etag)) {
        reply.status(304).send();
        return;
      }
    }
    reply.header('content-type', hit.contentType).send(hit.body);
  };

  /** `preSerialization`: what the controller returned, rendered in the negotiated representation (and kept). */
  readonly renderRepresentation = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const representation = request.representation;
    if (representation === null || !(payload instanceof Resource || payload instanceof ResourceList)) return payload;
    return this.render(payload, representation, request, reply);
  };

  private async render(
    resource: Resource | ResourceList,
    { format, contentType }: Representation,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<string | typeof NO_BODY> {
    const body = await this.serialize(resource, format, request);
    varyOnAccept(reply);
    if (resource instanceof ResourceList) {
      reply.header('content-type', contentType);
      const link = resource.nextHref ? `<${resource.nextHref}>; rel="next"` : undefined;
      if (link) reply.header('link', link);
      this.keep(request, reply, { body, contentType, link });
      return body;
    }
    const etag = etagFor(format, resource.version, body);
    reply.header('etag', etag);
    this.keep(request, reply, { body, contentType, etag });
    if (isSafe(request) && ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      // RFC 9110 §15.4.5: a 304 has no content, so nothing describes one.
      reply.removeHeader('content-type');
      reply.status(304);
      return NO_BODY;
    }
    reply.header('content-type', contentType);
    return body;
  }

  private keep(request: FastifyRequest, reply: FastifyReply, representation: CachedRepresentation): void {
    if (request.cacheKey === null || reply.statusCode !== 200) return;
    this.cache.set(request.cacheKey, representation, Buffer.byteLength(representation.body), request.cacheGeneration, request.cacheTags ?? []);
  }

  private serialize(resource: Resource | ResourceList, format: Format, request: FastifyRequest): string | Promise<string> {
    switch (format) {
      case 'xml':
        return renderXml(resource);
      case 'html':
        return this.html.render(resource, (request as FastifyRequest & RequestWithActor).actor ?? null);
      case 'hal':
        return JSON.stringify(resource instanceof Resource ? halItem(resource.origin, resource.view) : halCollection(resource, request.url));
      default:
        return JSON.stringify(resource instanceof Resource ? resource.view : resource.items);
    }
  }
}

/**
 * A list as a HAL collection: the items embedded under the resource's plural, each with its own
 * `_links`, and the list's own `self` (the path and query asked for) and `next`.
 */
function halCollection(list: ResourceList, self: string): object {
  const links: Record<string, { href: string }> = { self: { href: self } };
  if (list.nextHref) links.next = { href: list.nextHref };
  const items = list.origin.halLinks ? list.items.map((item) => halItem(list.origin, item)) : list.items;
  return { _links: links, _embedded: { [list.plural]: items } };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The representation a negotiated route answers in; null on other routes. */
    representation: Representation | null;
    /** The response cache's key of an anonymous GET on a negotiated route; null otherwise. */
    cacheKey: string | null;
    /** The cache's generation when the request arrived. */
    cacheGeneration: number;
    /** On a miss of the response cache, the tags of what the request read (read-tags.ts); null otherwise. */
    cacheTags: Set<string> | null;
  }
}
