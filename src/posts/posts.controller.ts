import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiCreate, ApiDelete, ApiGetList, ApiGetOne, ApiUpdate } from '../common/openapi/api-docs.decorators.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { IfMatch } from '../common/resource/etag.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, type ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { CreatePostDto } from './dto/create-post.dto.js';
import { ListPostsQuery } from './dto/list-posts.query.js';
import { UpdatePostDto } from './dto/update-post.dto.js';
import { POST_RESOURCE } from './post.resource.js';
import { PostsService } from './posts.service.js';

@ApiTags('posts')
@NegotiatedRepresentations()
@Controller()
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get('posts')
  @ApiOperation({ summary: 'Posts, newest first (filter by authorId)' })
  @ApiGetList(POST_RESOURCE)
  async list(@Query() query: ListPostsQuery): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.posts.list({ ...request, authorId: query.authorId });
    const next = nextPageHref('/posts', page.nextCursor, { limit: request.limit, authorId: query.authorId });
    return POST_RESOURCE.list(page.items, next);
  }

  @Get('users/:id/posts')
  @ApiTags('users')
  @ApiOperation({ summary: "A user's posts, newest first" })
  @ApiGetList(POST_RESOURCE)
  async listForAuthor(@Param('id', ParseIdPipe) authorId: number, @Query() query: PageQueryDto): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.posts.listForAuthor(authorId, request);
    const next = nextPageHref(`/users/${authorId}/posts`, page.nextCursor, { limit: request.limit });
    return POST_RESOURCE.list(page.items, next);
  }

  @Post('posts')
  @SignedIn()
  @ApiOperation({ summary: 'Write a post (authorId: admins only)' })
  @ApiCreate(POST_RESOURCE, 409)
  async create(
    @Body() input: CreatePostDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Resource> {
    const post = await this.posts.create(input, actor);
    reply.header('location', POST_RESOURCE.path(post.id));
    return POST_RESOURCE.one(post);
  }

  @Get('posts/:id')
  @ApiOperation({ summary: 'One post' })
  @ApiGetOne(POST_RESOURCE)
  async get(@Param('id', ParseIdPipe) id: number): Promise<Resource> {
    return POST_RESOURCE.one(await this.posts.get(id));
  }

  @Patch('posts/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Change a post (its author or an admin)' })
  @ApiUpdate(POST_RESOURCE)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: UpdatePostDto,
    @CurrentActor() actor: Actor,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Resource> {
    return POST_RESOURCE.one(await this.posts.update(id, input, actor, { expectedVersion }));
  }

  @Delete('posts/:id')
  @SignedIn()
  @ApiOperation({ summary: 'Delete a post and its comments (its author or an admin)' })
  @ApiDelete('Deleted')
  async delete(@Param('id', ParseIdPipe) id: number, @CurrentActor() actor: Actor): Promise<void> {
    await this.posts.delete(id, actor);
  }
}
