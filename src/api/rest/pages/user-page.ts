import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { USER_RESOURCE } from '../../../users/user.resource.js';
import type { ItemPage } from './page.js';
import { avatarSource } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="user">
<h1><img class="avatar" src="<%= it.avatar(it.user) %>" alt=""> <%= it.user.name %></h1>
<p><%= it.user.role %> · joined <time datetime="<%= it.user.createdAt %>"><%= it.user.createdAt %></time><% if (it.user.commentsBlocked !== undefined) { %> · comments <%= it.user.commentsBlocked ? 'blocked' : 'allowed' %><% } %></p>
<p><a href="<%= it.user._links.posts.href %>">Posts by <%= it.user.name %></a></p>
</article>`);

/** A user: their avatar, role and (to those the controller revealed it to) whether they may comment. */
@Injectable()
export class UserPage implements ItemPage {
  readonly kind = USER_RESOURCE.kind;

  title(user: ListItem): string {
    return String(user.name);
  }

  body(user: ListItem): string {
    return TEMPLATE({ user, avatar: avatarSource });
  }
}
