import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import type { PostReview } from './post-review.entity.js';
import { PostReviewsRepository } from './post-reviews.repository.js';
import { PostsRepository } from './posts.repository.js';

/**
 * The reads of a post's review decisions (CONTRACT §16): its author, editors and admins; 404 for
 * everyone else, published or not. Decisions are written by PostsService.review, in the write's transaction.
 */
@Injectable()
export class PostReviews {
  constructor(
    private readonly reviews: PostReviewsRepository,
    private readonly posts: PostsRepository,
    private readonly readPolicy: ReadPolicy,
  ) {}

  /** A post's decisions, newest first. */
  async list(postId: number, request: PageRequest, actor: Actor | null | undefined): Promise<Page<PostReview>> {
    await this.assertReadable(postId, actor);
    return this.reviews.page(postId, request);
  }

  async get(postId: number, id: number, actor: Actor | null | undefined): Promise<PostReview> {
    await this.assertReadable(postId, actor);
    const review = await this.reviews.find(postId, id);
    if (!review) throw DomainError.notFound('Review', id);
    return review;
  }

  private async assertReadable(postId: number, actor: Actor | null | undefined): Promise<void> {
    const post = await this.posts.visibilityOf(postId);
    if (!post || !this.readPolicy.canSeeReviews(actor, post)) throw DomainError.notFound('Post', postId);
  }
}
