import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Actor } from '../common/actor.js';
import { CurrentActor, SignedIn } from '../auth/auth.decorators.js';
import { ApiCreate, ApiGetList, ApiGetOne } from '../common/openapi/api-docs.decorators.js';
import { PageQueryDto, toPageRequest } from '../common/pagination/cursor.js';
import { NegotiatedRepresentations } from '../common/resource/negotiated.js';
import { nextPageHref, type Resource, type ResourceList } from '../common/resource/resource.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { ReviewPostDto } from './dto/review-post.dto.js';
import { REVIEW_RESOURCE } from './post-review.resource.js';
import { PostReviews } from './post-reviews.service.js';
import { PostsService } from './posts.service.js';

/** Review before publishing (CONTRACT §16): the decisions on a post in review, and their list. */
@ApiTags('posts')
@NegotiatedRepresentations()
@Controller('posts/:id/reviews')
export class PostReviewsController {
  constructor(
    private readonly posts: PostsService,
    private readonly reviews: PostReviews,
  ) {}

  @Post()
  @SignedIn()
  @ApiOperation({
    summary: 'Decide on a post in review: approve (publishes it, or schedules it when its publishAt is in the future) or request changes (back to draft) (editors and admins; 409 when it is not in review)',
  })
  @ApiCreate(REVIEW_RESOURCE, 404, 409)
  async create(
    @Param('id', ParseIdPipe) id: number,
    @Body() input: ReviewPostDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Resource> {
    const review = await this.posts.review(id, input.decision, input.note ?? null, actor);
    reply.header('location', `/posts/${id}/reviews/${review.id}`);
    return REVIEW_RESOURCE.one(review);
  }

  @Get()
  @ApiOperation({ summary: "A post's review decisions, newest first (its author, editors and admins; 404 for others)" })
  @ApiGetList(REVIEW_RESOURCE)
  async list(@Param('id', ParseIdPipe) id: number, @Query() query: PageQueryDto, @CurrentActor() actor: Actor | null): Promise<ResourceList> {
    const request = toPageRequest(query);
    const page = await this.reviews.list(id, request, actor);
    return REVIEW_RESOURCE.list(page.items, nextPageHref(`/posts/${id}/reviews`, page.nextCursor, { limit: request.limit }));
  }

  @Get(':reviewId')
  @ApiOperation({ summary: 'One review decision on a post (its author, editors and admins; 404 for others)' })
  @ApiGetOne(REVIEW_RESOURCE)
  async get(@Param('id', ParseIdPipe) id: number, @Param('reviewId', ParseIdPipe) reviewId: number, @CurrentActor() actor: Actor | null): Promise<Resource> {
    return REVIEW_RESOURCE.one(await this.reviews.get(id, reviewId, actor));
  }
}
