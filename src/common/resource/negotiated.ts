import { RouteConfig } from '@nestjs/platform-fastify';
import type { FeedOffer } from './media-types.js';

/** The metadata key under which @RouteConfig stores a handler's Fastify route config. */
const ROUTE_CONFIG_METADATA = RouteConfig({}).KEY;

/** Fastify route config of the routes that serve resources in every format. */
export interface NegotiatedRouteConfig {
  negotiated?: boolean;
  /** Never answered from (nor kept in) the response cache. */
  uncached?: boolean;
  /** Also (`also`) or only (`only`, Atom the default) the feed types: the route returns a list of posts (CONTRACT §13). */
  feeds?: FeedOffer;
  /** A document of one type (sitemap, robots.txt: a RenderedDocument): not negotiated, but cached and conditional like the rest. */
  document?: boolean;
  /**
   * A list of posts shown in one language (CONTRACT §15: `?locale=`, else Accept-Language): with
   * more than one supported locale, it varies on Accept-Language, says its Content-Language and is
   * cached per chosen locale.
   */
  languages?: boolean;
  /** A list that also answers NDJSON (CONTRACT §16's export): its handler streams the whole result when the request chose it. */
  streams?: boolean;
}

/** Adds to a handler's route config (several of these decorators may stand on one handler). */
const routeConfig =
  (config: NegotiatedRouteConfig): MethodDecorator =>
  (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const current = (Reflect.getMetadata(ROUTE_CONFIG_METADATA, method) ?? {}) as object;
    Reflect.defineMetadata(ROUTE_CONFIG_METADATA, { ...current, ...config }, method);
  };

/** Keeps a negotiated route out of the response cache (what it shows changes without a write). */
export const Uncached = (): MethodDecorator => routeConfig({ uncached: true });

/** A route of posts that also serves them as Atom, RSS and JSON Feed (`also`), or as those alone (`only`, Atom by default). */
export const ServesFeeds = (offer: 'also' | 'only'): MethodDecorator => routeConfig({ feeds: offer });

/** A route whose handler returns a RenderedDocument of its own type: no negotiation, but cached, with ETag and Last-Modified. */
export const ServesDocument = (): MethodDecorator => routeConfig({ document: true });

/** A list that also streams its whole result as NDJSON when Accept asks (NegotiatedRouteConfig.streams). */
export const StreamsNdjson = (): MethodDecorator => routeConfig({ streams: true });

/** A list of posts in the language the request chooses (NegotiatedRouteConfig.languages). */
export const ChoosesLanguage = (): MethodDecorator => routeConfig({ languages: true });

/**
 * Marks a controller whose routes serve resources in every format (others, like /health, stay
 * JSON). It sets Fastify route config on each route — `{ negotiated: true }` — which the
 * representation hooks read: Fastify hooks rather than a Nest interceptor, because Nest runs an
 * interceptor through rxjs and async resources on every request and resolver call, which cost
 * more than everything else a `GET /posts/{id}` does besides writing to the socket.
 */
export function NegotiatedRepresentations(): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (name === 'constructor' || typeof method !== 'function') continue;
      const config = (Reflect.getMetadata(ROUTE_CONFIG_METADATA, method) ?? {}) as object;
      Reflect.defineMetadata(ROUTE_CONFIG_METADATA, { ...config, negotiated: true }, method);
    }
  };
}
