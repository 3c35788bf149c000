import { ROLES } from '../common/actor.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { User } from './user.entity.js';

export const USER_RESOURCE = defineResource({
  kind: 'user',
  plural: 'users',
  entity: User,
  links: (user: User) => ({ posts: { href: `/users/${user.id}/posts` } }),
  fieldSchemas: { role: { type: 'string', enum: [...ROLES] }, commentsBlocked: { type: 'boolean' } },
  // Shown to the user themselves and to those who may block commenters (UsersService.revealsCommentsBlocked).
  privateFields: ['commentsBlocked'],
});
