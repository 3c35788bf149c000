import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../../../comments/comment.resource.js';
import { UsersService } from '../../../users/users.service.js';
import { authorOf } from './authors.js';
import type { ItemPage } from './page.js';
import { AVATAR_TEMPLATE, avatarSource } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="comment">
<header class="byline">${AVATAR_TEMPLATE}<span><a rel="author" href="<%= it.comment._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a> on <a href="<%= it.comment._links.post.href %>">post <%= it.comment.postId %></a></span> <time datetime="<%= it.comment.createdAt %>"><%= it.comment.createdAt %></time></header>
<div class="body"><%= it.comment.body %></div>
</article>`);

/** A comment, with its author's name and avatar. */
@Injectable()
export class CommentPage implements ItemPage {
  readonly kind = COMMENT_RESOURCE.kind;

  constructor(private readonly users: UsersService) {}

  title(comment: ListItem): string {
    return `Comment ${String(comment.id)}`;
  }

  async body(comment: ListItem): Promise<string> {
    return TEMPLATE({ comment, author: await authorOf(this.users, comment), avatar: avatarSource });
  }
}
