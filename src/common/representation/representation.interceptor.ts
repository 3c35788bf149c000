import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, mergeMap, type Observable } from 'rxjs';
import { DomainError } from '../errors/domain-error.js';
import { etagFor, ifNoneMatchHits } from './etag.js';
import { HtmlRenderer } from './html.renderer.js';
import { AVAILABLE_MEDIA_TYPES, CONTENT_TYPES, type Format, negotiateFormat } from './media-types.js';
import { Resource, ResourceList } from './resource.js';
import { renderXml } from './xml.renderer.js';

const NEGOTIATED = 'representation:negotiated';

/** Marks a controller whose routes serve resources in every format (others, like /health, stay JSON). */
export const NegotiatedRepresentations = () => SetMetadata(NEGOTIATED, true);

/** Adds Accept to Vary, keeping what is there (CORS adds Origin). */
function varyOnAccept(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const names = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept')) return;
  reply.header('vary', [...names, 'Accept'].join(', '));
}

/**
 * The one place where resources become bytes. Controllers return a Resource or ResourceList;
 * this picks the format from Accept (406 on a GET that accepts none of ours, before any work),
 * renders it, and adds Vary, Content-Type, ETag (with If-None-Match → 304) and Link.
 */
@Injectable()
export class RepresentationInterceptor implements NestInterceptor {
  constructor(
    private readonly html: HtmlRenderer,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    if (!this.reflector.get<boolean>(NEGOTIATED, context.getClass())) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const safe = request.method === 'GET' || request.method === 'HEAD';
    const negotiated = negotiateFormat(request.headers.accept);
    // Whatever a GET answers (a representation, 304, 406, an error) was chosen with Accept in view.
    if (safe) varyOnAccept(reply);
    if (negotiated === null && safe) {
      throw new DomainError(
        'NOT_ACCEPTABLE',
        `None of the requested media types is available. Available: ${AVAILABLE_MEDIA_TYPES.join(', ')}`,
      );
    }
    // A write has already happened by the time it renders: answer it in JSON rather than 406.
    const format = negotiated ?? 'json';
    return next.handle().pipe(
      mergeMap((result: unknown) => {
        if (!(result instanceof Resource) && !(result instanceof ResourceList)) return [result];
        return from(this.render(result, format, request, reply, safe));
      }),
    );
  }

  private async render(
    resource: Resource | ResourceList,
    format: Format,
    request: FastifyRequest,
    reply: FastifyReply,
    safe: boolean,
  ): Promise<string | undefined> {
    const body = await this.serialize(resource, format);
    varyOnAccept(reply);
    reply.header('content-type', CONTENT_TYPES[format]);
    if (resource instanceof ResourceList) {
      if (resource.nextHref) reply.header('link', `<${resource.nextHref}>; rel="next"`);
      return body;
    }
    const etag = etagFor(format, resource.version, body);
    reply.header('etag', etag);
    if (safe && ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      reply.status(304);
      return undefined;
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
