import { defineResource } from '../common/resource/resource-definition.js';
import { REVIEW_DECISIONS } from './models/review-decision.enum.js';
import { PostReview } from './post-review.entity.js';

/** A post's review decisions: `/posts/{postId}/reviews/{id}`, for its author, editors and admins. */
export const REVIEW_RESOURCE = defineResource({
  kind: 'review',
  plural: 'reviews',
  entity: PostReview,
  fieldSchemas: { decision: { type: 'string', enum: [...REVIEW_DECISIONS] } },
  links: (review: PostReview) => ({
    self: { href: `/posts/${review.postId}/reviews/${review.id}` },
    post: { href: `/posts/${review.postId}` },
  }),
});
