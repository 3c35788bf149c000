import { registerEnumType } from '@nestjs/graphql';

/** A reviewer's decision on a post in review (CONTRACT §16), as REST and the table spell it. */
export const REVIEW_DECISIONS = ['approve', 'request_changes'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/** GraphQL's `ReviewDecision`: its values stand for the REST strings, as PostStatus's do. */
export const GraphQLReviewDecision = {
  APPROVE: 'approve',
  REQUEST_CHANGES: 'request_changes',
} as const satisfies Record<string, ReviewDecision>;

registerEnumType(GraphQLReviewDecision, {
  name: 'ReviewDecision',
  description: 'What a reviewer decided about a post in review',
  valuesMap: {
    APPROVE: { description: 'Publish it (or schedule it, when its publishAt is still in the future)' },
    REQUEST_CHANGES: { description: 'Send it back to its author as a draft' },
  },
});
