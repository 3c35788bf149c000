import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../common/errors/domain-error.js';
import { etagFor, ifNoneMatchHits } from '../../common/resource/etag.js';
import { HtmlRenderer } from './html.renderer.js';
import { AVAILABLE_MEDIA_TYPES, CONTENT_TYPES, type Format, negotiateFormat } from '../../common/resource/media-types.js';
import { Resource, ResourceList } from '../../common/resource/resource.js';
import { renderXml } from './xml.renderer.js';

import type { NegotiatedRouteConfig } from '../../common/resource/negotiated.js';

/** Adds Accept to Vary, keeping what is there (CORS adds Origin). */
function varyOnAccept(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', 'Accept');
    return;
  }
  const names = (Array.isArray(current) ? current.join(',') : String(current))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept')) return;
  reply.header('vary', [...names, 'Accept'].join(', '));
}

const isSafe = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';

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
 */
@Injectable()
export class RepresentationHooks {
  constructor(private readonly html: HtmlRenderer) {}

  register(fastify: FastifyInstance): void {
    fastify.decorateRequest('representationFormat', null);
    fastify.addHook('onRequest', (request, reply, done) => {
      if ((request.routeOptions.config as NegotiatedRouteConfig | undefined)?.negotiated !== true) return done();
      const safe = isSafe(request);
      const negotiated = negotiateFormat(request.headers.accept);
      // Whatever a GET answers (a representation, 304, 406, an error) was chosen with Accept in view.
      if (safe) varyOnAccept(reply);
      if (negotiated === null && safe) {
        return done(
          new DomainError('NOT_ACCEPTABLE', `None of the requested media types is available. Available: ${AVAILABLE_MEDIA_TYPES.join(', ')}`),
        );
      }
      // A write has already happened by the time it renders: answer it in JSON rather than 406.
      request.representationFormat = negotiated ?? 'json';
      reply.serializer(serializeRendered);
      done();
    });
    fastify.addHook('preSerialization', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const format = request.representationFormat;
      if (format === null || !(payload instanceof Resource || payload instanceof ResourceList)) return payload;
      return this.render(payload, format, request, reply);
    });
  }

  private async render(resource: Resource | ResourceList, format: Format, request: FastifyRequest, reply: FastifyReply): Promise<string | typeof NO_BODY> {
    const body = await this.serialize(resource, format);
    varyOnAccept(reply);
    reply.header('content-type', CONTENT_TYPES[format]);
    if (resource instanceof ResourceList) {
      if (resource.nextHref) reply.header('link', `<${resource.nextHref}>; rel="next"`);
      return body;
    }
    const etag = etagFor(format, resource.version, body);
    reply.header('etag', etag);
    if (isSafe(request) && ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      reply.status(304);
      return NO_BODY;
    }
    return body;
  }

  private serialize(resource: Resource | ResourceList, format: Format): string | Promise<string> {
    switch (format) {
      case 'xml':
        return renderXml(resource);
      case 'html':
        return this.html.render(resource);
      default:
        return JSON.stringify(resource instanceof Resource ? resource.view : resource.items);
    }
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The format a negotiated route answers in; null on other routes. */
    representationFormat: Format | null;
  }
}
