import { AVATAR_TEMPLATE, NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { COMMENT_STATUSES } from '../auth/read-policy.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { COMMENT_THREAD_TEMPLATE } from './comment-thread.html.js';
import { Comment } from './comment.entity.js';

export const COMMENT_RESOURCE = defineResource({
  kind: 'comment',
  plural: 'comments',
  entity: Comment,
  links: (comment: Comment) => ({
    post: { href: `/posts/${comment.postId}` },
    author: { href: `/users/${comment.authorId}` },
    ...(comment.parentId === null || comment.parentId === undefined ? {} : { parent: { href: `/comments/${comment.parentId}` } }),
    replies: { href: `/posts/${comment.postId}/comments?parentId=${comment.id}` },
  }),
  optionalLinks: ['parent'],
  fieldSchemas: { status: { type: 'string', enum: [...COMMENT_STATUSES] } },
  events: { commentCreated: 'A comment was written', commentUpdated: 'A comment was changed', commentDeleted: 'A comment was deleted' },
  eventRefs: { commentId: { field: 'id', description: 'The comment it is about; null for post events' }, postId: 'postId', authorId: 'authorId' },
  html: {
    title: (view) => `Comment ${view.id}`,
    page: `<article class="comment">
<header class="byline">${AVATAR_TEMPLATE}<span><a rel="author" href="<%= it.comment._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a> on <a href="<%= it.comment._links.post.href %>">post <%= it.comment.postId %></a></span> <time datetime="<%= it.comment.createdAt %>"><%= it.comment.createdAt %></time></header>
<div class="body"><%= it.comment.body %></div>
</article>`,
    // The items are threads (the list's loader nests them: see comments.module).
    list: `<h1><%= it.title %></h1>
${COMMENT_THREAD_TEMPLATE}<% thread(it.items) %>
${NEXT_PAGE_TEMPLATE}`,
  },
});

declare module '../events/blog-events.js' {
  interface BlogEvents {
    commentCreated: Comment;
    commentUpdated: Comment;
    commentDeleted: { id: number; postId: number; authorId: number };
  }
}
