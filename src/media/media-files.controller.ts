import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor } from '../auth/auth.decorators.js';
import { ApiProblems } from '../common/openapi/api-docs.decorators.js';
import { headerRef } from '../common/openapi/schemas.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { AppConfig } from '../config/app-config.js';
import { parseRange } from './byte-range.js';
import { MediaFileQuery } from './dto/media-file.query.js';
import { IMAGE_TYPES } from './image-type.js';
import { MediaService } from './media.service.js';

const BINARY = { schema: { type: 'string', format: 'binary' } } as const;
const FILE_CONTENT = Object.fromEntries(Object.keys(IMAGE_TYPES).map((type) => [type, BINARY]));
const ACCEPT_RANGES = { description: 'bytes: a Range is answered', schema: { type: 'string', enum: ['bytes'] } };
const CACHE_CONTROL = { description: '`public, max-age={MEDIA_PUBLIC_MAX_AGE}` for a public file, `private, no-store` otherwise', schema: { type: 'string' } };
const FILE_HEADERS = { ETag: headerRef('ETag'), 'Accept-Ranges': ACCEPT_RANGES, 'Cache-Control': CACHE_CONTROL };
const CONTENT_RANGE = { description: 'The range sent (`bytes 0-1023/4096`), or the size after a 416 (`bytes */4096`)', schema: { type: 'string' } };

/**
 * The bytes of media items (CONTRACT §14): streamed from storage, never held whole; ETag,
 * Content-Length, one Range (206; 416 past the end), HEAD; public files cacheable for
 * MEDIA_PUBLIC_MAX_AGE, the others `private, no-store` (a file that stops being public is served
 * by no cache longer than that). Every answer carries nosniff and a CSP that loads nothing
 * (security-headers.ts), so an image is never run as a page.
 */
@ApiTags('media')
@Controller('media')
export class MediaFilesController {
  constructor(
    private readonly media: MediaService,
    private readonly config: AppConfig,
  ) {}

  @Get(':id/file')
  @ApiOperation({ summary: 'The bytes of a media item: the original (metadata stripped), or ?variant= one of the variants it lists' })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range (`bytes=0-1023`, `bytes=-500`); several ranges are answered whole' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier GET; 304 if unchanged' })
  @ApiProduces(...Object.keys(IMAGE_TYPES))
  @ApiResponse({ status: 200, description: 'The file', headers: FILE_HEADERS, content: FILE_CONTENT })
  @ApiResponse({ status: 206, description: 'The range asked for (Content-Range says which)', headers: { ...FILE_HEADERS, 'Content-Range': CONTENT_RANGE }, content: FILE_CONTENT })
  @ApiResponse({ status: 307, description: 'A listed variant not made yet: the original stands in for it (Location), and the answer is not cached', headers: { Location: { description: 'The original: /media/{id}/file', schema: { type: 'string' } }, 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } } })
  @ApiResponse({ status: 304, description: 'Not modified: the If-None-Match tag is current (no body)', headers: FILE_HEADERS })
  @ApiResponse({ status: 416, description: 'The range lies past the end of the file (Content-Range: bytes */{size})', headers: { ...FILE_HEADERS, 'Content-Range': CONTENT_RANGE } })
  @ApiProblems(404)
  async file(
    @Param('id', ParseIdPipe) id: number,
    @Query() query: MediaFileQuery,
    @CurrentActor() actor: Actor | null,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const file = await this.media.file(id, query.variant, actor);
    if (file.kind === 'pending') {
      await reply.code(307).header('location', file.location).header('cache-control', 'no-store').send();
      return;
    }
    const { size, etag } = file.object;
    reply.header('etag', etag);
    reply.header('accept-ranges', 'bytes');
    reply.header('cache-control', file.isPublic ? `public, max-age=${this.config.mediaPublicMaxAge}` : 'private, no-store');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))) {
      await reply.code(304).send();
      return;
    }
    const range = parseRange(request.headers.range, size);
    if (range === 'unsatisfiable') {
      await reply.code(416).header('content-range', `bytes */${size}`).send();
      return;
    }
    reply.type(file.mimeType);
    if (range) {
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
    } else {
      reply.header('content-length', size);
    }
    const stream = await file.open(range ?? undefined);
    if (!stream) {
      // Deleted between the stat and the read.
      reply.removeHeader('content-length');
      await reply.code(404).type('application/problem+json').send({ type: 'about:blank', title: 'Not Found', status: 404, detail: `Media ${id} not found` });
      return;
    }
    await reply.send(stream);
  }
}
