import { Injectable } from '@nestjs/common';
import type { Actor } from '../../../common/actor.js';
import type { ListItem } from '../../../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../../../comments/comment.resource.js';
import { CommentsService } from '../../../comments/comments.service.js';
import { POST_RESOURCE } from '../../../posts/post.resource.js';
import { UsersService } from '../../../users/users.service.js';
import { authorOf, withAuthorNames } from './authors.js';
import { COMMENT_THREAD_TEMPLATE, threaded } from './comment-thread.js';
import type { ItemPage } from './page.js';
import { AVATAR_TEMPLATE, avatarSource, TAGS_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

/** How many of a post's comments its page shows (a link leads to the rest). */
const COMMENTS_ON_POST_PAGE = 100;

const TEMPLATE = compileTemplate(`<article class="post">
<h1><%= it.post.title %></h1>
<header class="byline">${AVATAR_TEMPLATE}<span>by <a rel="author" href="<%= it.post._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a></span> <time datetime="<%= it.post.createdAt %>"><%= it.post.createdAt %></time> <span class="status"><%= it.post.status %></span></header>
<div class="body"><%= it.post.body %></div>
${TAGS_TEMPLATE('it.post')}
</article>
<% if (it.comments) { %><section>
<h2>Comments (<%= it.commentCount %><%= it.moreComments ? '+' : '' %>)</h2>
${COMMENT_THREAD_TEMPLATE}<% thread(it.comments) %>
<% if (it.moreComments) { %><p><a href="<%= it.post._links.comments.href %>">All comments</a></p><% } %>
</section><% } %>`);

/** A post: its author's name and avatar, and its first comments as threads, those the reader may see. */
@Injectable()
export class PostPage implements ItemPage {
  readonly kind = POST_RESOURCE.kind;

  constructor(
    private readonly users: UsersService,
    private readonly comments: CommentsService,
  ) {}

  title(post: ListItem): string {
    return String(post.title);
  }

  async body(post: ListItem, reader: Actor | null): Promise<string> {
    const author = await authorOf(this.users, post);
    const page = await this.comments.firstPageOf(post.id as number, { limit: COMMENTS_ON_POST_PAGE }, reader);
    const comments = await withAuthorNames(this.users, page.items.map((comment) => COMMENT_RESOURCE.view(comment)));
    return TEMPLATE({ post, author, comments: threaded(comments), commentCount: comments.length, moreComments: page.nextCursor !== null, avatar: avatarSource });
  }
}
