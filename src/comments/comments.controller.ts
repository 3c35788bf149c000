import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiCreate, ApiDelete, ApiGetList, ApiGetOne, ApiUpdate } from '../common/openapi/api-docs.decorators.js';
import { toPageRequest } from '../common/pagination/cursor.js';
import { IfMatch } from '../common/resource/etag.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, type ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { COMMENT_RESOURCE } from './comment.resource.js';
import { CommentsService } from './comments.service.js';
import { CreateCommentDto } from './dto/create-comment.dto.js';
import { ListCommentsQuery } from './dto/list-comments.query.js';
import { UpdateCommentDto } from './dto/update-comment.dto.js';

@ApiTags('comments')
@NegotiatedRepresentations()
@Controller()
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get('posts/:id/comments')
  @ApiOperation({ summary: "A post's comments the caller sees, oldest first, replies included (each with its parentId); `parentId`: one comment's replies" })
  @ApiGetList(COMMENT_RESOURCE)
  async list(@Param('id', ParseIdPipe) postId: number, @Query() query: ListCommentsQuery, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.comments.listForPost(postId, request, actor, query.parentId);
    const next = nextPageHref(`/posts/${postId}/comments`, page.nextCursor, { limit: request.limit, parentId: query.parentId });
    return COMMENT_RESOURCE.list(page.items, next);
  }

  @Post('posts/:id/comments')
  @SignedIn()
  @ApiOperation({ summary: 'Comment on a post' })
  @ApiCreate(COMMENT_RESOURCE, 409)
  async create(
    @Param('id', ParseIdPipe) postId: number,
    @Body() input: CreateCommentDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Resource> {
    const comment = await this.comments.create(postId, input, actor);
    reply.header('location', COMMENT_RESOURCE.path(comment.id));
    return COMMENT_RESOURCE.one(comment);
  }

  @Get('comments/:id')
  @ApiOperation({ summary: 'One comment' })
  @ApiGetOne(COMMENT_RESOURCE)
  async get(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    return COMMENT_RESOURCE.one(await this.comments.get(id, actor));
  }

  @Patch('comments/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a comment: its text (its author or an admin) and/or its status (moderators, editors, admins)' })
  @ApiUpdate(COMMENT_RESOURCE)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdateCommentDto,
    @CurrentActor() actor: Actor,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Resource> {
    return COMMENT_RESOURCE.one(await this.comments.update(id, input, actor, { expectedVersion }));
  }

  @Delete('comments/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a comment (its author or an admin)' })
  @ApiDelete('Deleted')
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.comments.delete(id, actor);
  }
}
