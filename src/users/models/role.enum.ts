import { registerEnumType } from '@nestjs/graphql';
import type { Role } from '../../common/actor.js';

/**
 * GraphQL's `Role` enum. Its values stand for the stored (and REST) strings: `ADMIN` is read
 * and written as 'admin', `AUTHOR` as 'author', so resolvers and services see only the latter.
 */
export const GraphQLRole = { ADMIN: 'admin', EDITOR: 'editor', MODERATOR: 'moderator', AUTHOR: 'author' } as const satisfies Record<string, Role>;

registerEnumType(GraphQLRole, {
  name: 'Role',
  description: 'What a user may do',
  valuesMap: {
    ADMIN: { description: 'Everything: also users, roles, webhooks, and posts written for others' },
    EDITOR: { description: 'Writes, publishes, trashes and restores any post, sees every draft, moderates comments' },
    MODERATOR: { description: 'Moderates comments and blocks commenters; their own posts and comments' },
    AUTHOR: { description: 'Their own posts and comments (the default)' },
  },
});
