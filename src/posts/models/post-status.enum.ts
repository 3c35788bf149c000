import { registerEnumType } from '@nestjs/graphql';
import type { PostStatus } from '../../auth/read-policy.js';

/**
 * GraphQL's `PostStatus` enum. Its values stand for the stored (and REST) strings: `DRAFT` is
 * read and written as 'draft', and so on, so resolvers and services see only the latter.
 */
export const GraphQLPostStatus = {
  DRAFT: 'draft',
  IN_REVIEW: 'in_review',
  SCHEDULED: 'scheduled',
  PUBLISHED: 'published',
  TRASHED: 'trashed',
} as const satisfies Record<string, PostStatus>;

registerEnumType(GraphQLPostStatus, {
  name: 'PostStatus',
  description: 'Where a post is in its editorial life; only PUBLISHED posts are public',
  valuesMap: {
    DRAFT: { description: 'Being written: seen only by its author and admins' },
    IN_REVIEW: { description: 'Submitted for review (POSTS_REVIEW): seen only by its author, editors and admins until reviewPost approves it or requests changes' },
    SCHEDULED: { description: 'Published by the service at publishAt' },
    PUBLISHED: { description: 'Public' },
    TRASHED: { description: 'In the trash: restored by a PATCH of status, deleted for good by a second delete or after TRASH_RETENTION_DAYS' },
  },
});
