import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import type { RequestWithActor } from '../../auth/auth.decorators.js';
import { collectReadTags } from '../../common/cache/read-tags.js';
import { CACHE_STATUS, ResponseCache } from '../../common/cache/response-cache.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { varyOn, varyOnAccept } from '../../common/http/vary.js';
import { listLocale } from '../../common/i18n/locale-lookup.js';
import { AppConfig } from '../../config/app-config.js';
import { digestEtag, etagFor, ifNoneMatchHits } from '../../common/resource/etag.js';
import { HtmlRenderer } from './html.renderer.js';
import { availableMediaTypes, DEFAULT_REPRESENTATION, type Format, isFeed, negotiateRepresentation, type Representation } from '../../common/resource/media-types.js';
import { RenderedDocument } from '../../common/resource/rendered-document.js';
import { halItem, Resource, ResourceList } from '../../common/resource/resource.js';
import { FeedRenderer } from '../../publication/feed.renderer.js';
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
  /** An HTTP date (a RenderedDocument's). */
  lastModified?: string;
  /** The language the controller said it is in (a post's locale). */
  contentLanguage?: string;
}

/**
 * Whether a conditional GET is answered 304: If-None-Match against the ETag when it is sent,
 * else If-Modified-Since at or after Last-Modified (RFC 9110 §13.1.3: ignored with If-None-Match).
 */
function notModified(request: FastifyRequest, etag: string | undefined, lastModified: string | undefined): boolean {
  if (!isSafe(request)) return false;
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etag !== undefined && ifNoneMatchHits(ifNoneMatch, etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince === undefined || lastModified === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && since >= Date.parse(lastModified);
}

/** Feeds list public posts only (CONTRACT §13): a list of another state in a feed type is refused before any work. */
function refuseNonPublicFeed(request: FastifyRequest): DomainError | null {
  const { status } = (request.query ?? {}) as { status?: unknown };
  if (status === undefined || status === 'published') return null;
  return DomainError.badInput('A feed lists public posts only: leave status out (or ask for another type)', [
    { field: 'status', message: 'feeds list published posts only' },
  ]);
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
    private readonly feeds: FeedRenderer,
    private readonly config: AppConfig,
  ) {
    this.translated = config.supportedLocales.length > 1;
  }

  /** More than one supported locale: lists of posts are shown in one language (CONTRACT §15). */
  private readonly translated: boolean;

  /** What the hooks keep on each request, decorated once so every request has the same shape. */
  static readonly requestFields = { representation: null, cacheKey: null, cacheGeneration: 0, cacheTags: null } as const;

  /** `onRequest`: the representation of a negotiated route (406 on a GET that accepts none), and the cache key. */
  readonly negotiate: onRequestHookHandler = (request, reply, done) => {
    const route = request.routeOptions.config as NegotiatedRouteConfig | undefined;
    if (route?.negotiated !== true) return done();
    const safe = isSafe(request);
    reply.serializer(serializeRendered);
    // A document of one type (the sitemap) is not negotiated: it is what it is, whatever Accept says.
    if (route.document === true) {
      this.keyForCache(request, reply, route, 'document');
      return done();
    }
    const negotiated = negotiateRepresentation(request.headers.accept, route.feeds, route.streams === true);
    // Whatever a GET answers (a representation, 304, 406, an error) was chosen with Accept in view.
    if (safe) varyOnAccept(reply);
    const language = safe && route.languages === true && this.translated ? this.languageOf(request, reply) : '';
    if (negotiated === null && safe) {
      return done(
        new DomainError('NOT_ACCEPTABLE', `None of the requested media types is available. Available: ${availableMediaTypes(route.feeds, route.streams === true).join(', ')}`),
      );
    }
    if (safe && route.feeds === 'also' && isFeed(negotiated)) {
      const refused = refuseNonPublicFeed(request);
      if (refused) return done(refused);
    }
    // A write has already happened by the time it renders: answer it in JSON rather than 406.
    request.representation = negotiated ?? DEFAULT_REPRESENTATION;
    this.keyForCache(request, reply, route, request.representation.contentType + language);
    done();
  };

  /**
   * The language a list of posts is shown in (the rule the finder applies, PostFinder.languagesOf),
   * said in Content-Language (none for `*`, every translation) and Vary, as a part of its cache
   * key; a locale not supported is answered 400 by the controller, and never kept.
   */
  private languageOf(request: FastifyRequest, reply: FastifyReply): string {
    varyOn(reply, 'Accept-Language');
    const given = (request.query as Record<string, unknown> | undefined)?.locale;
    const accepted = request.headers['accept-language'];
    const chosen = given === undefined || typeof given === 'string' ? listLocale(given, accepted, this.config) : null;
    if (chosen === null) return '\u0000?';
    if (chosen.locale !== '*') reply.header('content-language', chosen.locale);
    return `\u0000${chosen.locale}`;
  }

  /** The cache key of an anonymous GET (none for a signed-in one, an uncached route or a preview, said in Cache-Status). */
  private keyForCache(request: FastifyRequest, reply: FastifyReply, route: NegotiatedRouteConfig, representation: string): void {
    if (!isSafe(request) || !this.cache.enabled) return;
    if (request.headers.authorization !== undefined || route.uncached === true || isPreview(request)) {
      reply.header('cache-status', CACHE_STATUS.uncacheable);
      return;
    }
    // Taken before any work: an answer read before a write is never kept after it.
    request.cacheGeneration = this.cache.generation();
    request.cacheKey = `rest\u0000${representation}\u0000${request.url}`;
  }

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
    if (hit.etag) reply.header('etag', hit.etag);
    if (hit.lastModified) reply.header('last-modified', hit.lastModified);
    if (hit.contentLanguage) reply.header('content-language', hit.contentLanguage);
    if (notModified(request, hit.etag, hit.lastModified)) {
      reply.status(304).send();
      return;
    }
    reply.header('content-type', hit.contentType).send(hit.body);
  };

  /** `preSerialization`: what the controller returned, rendered in the negotiated representation (and kept). */
  readonly renderRepresentation = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (payload instanceof RenderedDocument) return this.sendDocument(payload, request, reply);
    const representation = request.representation;
    if (representation === null || !(payload instanceof Resource || payload instanceof ResourceList)) return payload;
    // A list of posts asked for as a feed: the one feed renderer, whichever route listed them.
    if (isFeed(representation) && payload instanceof ResourceList) {
      // The list's chosen locale (languageOf); none for ?locale=*, which has no single language.
      const chosen = reply.getHeader('content-language');
      const language = this.translated ? (typeof chosen === 'string' ? chosen : undefined) : this.config.defaultLocale;
      return this.sendDocument(await this.feeds.render(representation.format, payload, request.url, language), request, reply);
    }
    return this.render(payload, representation, request, reply);
  };

  /** A rendered document: its type, a digest ETag, Last-Modified and Link, kept, and 304 for a matching condition. */
  private sendDocument(document: RenderedDocument, request: FastifyRequest, reply: FastifyReply): string | typeof NO_BODY {
    const { body, contentType } = document;
    const etag = digestEtag(body);
    const lastModified = document.lastModified?.toUTCString();
    const link = document.next ? `<${document.next}>; rel="next"` : undefined;
    reply.header('etag', etag);
    if (lastModified) reply.header('last-modified', lastModified);
    if (link) reply.header('link', link);
    this.keep(request, reply, { body, contentType, etag, link, lastModified });
    if (notModified(request, etag, lastModified)) {
      reply.removeHeader('content-type');
      reply.status(304);
      return NO_BODY;
    }
    reply.header('content-type', contentType);
    return body;
  }

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
    const etag = etagFor(format, resource.version, body, resource.variant);
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
    const contentLanguage = reply.getHeader('content-language');
    if (typeof contentLanguage === 'string') representation.contentLanguage = contentLanguage;
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
