import { ROLES } from '../common/actor.js';
import { NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
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
  html: {
    title: (view) => String(view.name),
    page: `<article class="user">
<h1><img class="avatar" src="<%= it.avatar(it.user) %>" alt=""> <%= it.user.name %></h1>
<p><%= it.user.role %> · joined <time datetime="<%= it.user.createdAt %>"><%= it.user.createdAt %></time><% if (it.user.commentsBlocked !== undefined) { %> · comments <%= it.user.commentsBlocked ? 'blocked' : 'allowed' %><% } %></p>
<p><a href="<%= it.user._links.posts.href %>">Posts by <%= it.user.name %></a></p>
</article>`,
    list: `<h1><%= it.title %></h1>
<ul class="users">
<% it.items.forEach(function (u) { %><li><a href="<%= u._links.self.href %>"><%= u.name %></a> (<%= u.role %>)</li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`,
  },
});
