import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import type { SchemaObject } from '../common/openapi/schemas.js';
import { ApiCreate, ApiDelete, ApiGetList, ApiGetOne, ApiUpdate } from '../common/openapi/api-docs.decorators.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { IfMatch } from '../common/resource/etag.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, type ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { AppConfig } from '../config/app-config.js';
import { UpdateMediaDto } from './dto/update-media.dto.js';
import { IMAGE_TYPES } from './image-type.js';
import { MEDIA_RESOURCE } from './media.resource.js';
import { MediaService } from './media.service.js';
import { uploadFrom } from './upload-request.js';

const UPLOAD_FORM: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The image: JPEG, PNG, GIF, WebP or AVIF (read from its bytes), at most MEDIA_MAX_BYTES' },
    alt: { type: 'string', maxLength: 500 },
    caption: { type: 'string', maxLength: 1000 },
  },
};

@ApiTags('media')
@NegotiatedRepresentations()
@Controller('media')
export class MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The media items you may see (an author: their own and the public ones), newest first' })
  @ApiGetList(MEDIA_RESOURCE)
  async list(@Query() query: PageQueryDto, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.media.list(request, actor);
    return MEDIA_RESOURCE.list(page.items, nextPageHref('/media', page.nextCursor, { limit: request.limit }));
  }

  @Post()
  @SignedIn()
  @ApiOperation({
    summary:
      'Upload an image (multipart/form-data with a part file, or the raw image with its image/* Content-Type and a Content-Disposition filename): its type read from its bytes (415 unless JPEG, PNG, GIF, WebP, AVIF), 413 past MEDIA_MAX_BYTES or MEDIA_MAX_PIXELS, metadata stripped; variants follow in the background',
  })
  @ApiConsumes('multipart/form-data', ...Object.keys(IMAGE_TYPES))
  @ApiHeader({ name: 'Content-Disposition', required: false, description: 'For a raw upload: `attachment; filename="photo.jpg"` (the name is for display only)' })
  @ApiBody({
    schema: UPLOAD_FORM,
    description: 'multipart/form-data: the form; image/*: the file itself',
  })
  @ApiCreate(MEDIA_RESOURCE, 413, 415)
  async upload(@Req() request: FastifyRequest, @CurrentActor() actor: Actor, @Res({ passthrough: true }) reply: FastifyReply): Promise<Resource> {
    const writer = await this.media.admit(actor);
    const item = await uploadFrom(request, writer, this.media, this.config.mediaMaxBytes);
    reply.header('location', MEDIA_RESOURCE.path(item.id));
    return MEDIA_RESOURCE.one(item);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One media item (404 unless public, yours, or you are an editor or admin)' })
  @ApiGetOne(MEDIA_RESOURCE)
  async get(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    return MEDIA_RESOURCE.one(await this.media.get(id, actor));
  }

  @Patch(':id')
  @SignedIn()
  @ApiOperation({ summary: "Change a media item's alt, caption or focal point (its uploader, editors and admins)" })
  @ApiUpdate(MEDIA_RESOURCE, 404)
  async update(@Param('id', ParseIdPipe) id: number, @Body() input: UpdateMediaDto, @CurrentActor() actor: Actor, @IfMatch() expectedVersion: number | undefined): Promise<Resource> {
    return MEDIA_RESOURCE.one(await this.media.update(id, input, actor, { expectedVersion }));
  }

  @Delete(':id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a media item and its files (its uploader, editors and admins); 409 while a post uses it, naming the posts you may see' })
  @ApiDelete('Deleted', 404, 409)
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.media.delete(id, actor);
  }
}
