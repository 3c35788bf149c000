import { registerEnumType } from '@nestjs/graphql';
import type { CommentStatus } from '../../auth/read-policy.js';

/**
 * GraphQL's `CommentStatus` enum. Its values stand for the stored (and REST) strings:
 * `APPROVED` is read and written as 'approved', and so on, so resolvers and services see only the latter.
 */
export const GraphQLCommentStatus = {
  APPROVED: 'approved',
  PENDING: 'pending',
  SPAM: 'spam',
  HIDDEN: 'hidden',
} as const satisfies Record<string, CommentStatus>;

registerEnumType(GraphQLCommentStatus, {
  name: 'CommentStatus',
  description: 'Where a comment is in moderation; only APPROVED comments are public',
  valuesMap: {
    APPROVED: { description: 'Public (where its post is)' },
    PENDING: { description: 'Waiting for a moderator (COMMENTS_MODERATION): seen by its author, moderators, editors and admins' },
    SPAM: { description: 'Marked as spam: seen only by moderators, editors and admins' },
    HIDDEN: { description: 'Hidden by a moderator: seen only by moderators, editors and admins' },
  },
});
