import { registerEnumType } from '@nestjs/graphql';
import type { Role } from '../../common/actor.js';

/**
 * GraphQL's `Role` enum. Its values stand for the stored (and REST) strings: `ADMIN` is read
 * and written as 'admin', `AUTHOR` as 'author', so resolvers and services see only the latter.
 */
export const GraphQLRole = { ADMIN: 'admin', AUTHOR: 'author' } as const satisfies Record<string, Role>;

registerEnumType(GraphQLRole, {
  name: 'Role',
  description: 'What a user may do',
  valuesMap: {
    ADMIN: { description: 'May also change and delete any user, post or comment, set roles, and write posts for others' },
    AUTHOR: { description: 'May write posts and comments, and change or delete their own' },
  },
});
