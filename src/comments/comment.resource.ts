import { AVATAR_TEMPLATE, NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { Comment } from './comment.entity.js';

export const COMMENT_RESOURCE = defineResource({
  kind: 'comment',
  plural: 'comments',
  entity: Comment,
  links: (comment: Comment) => ({ post: { href: `/posts/${comment.postId}` }, author: { href: `/users/${comment.authorId}` } }),
  events: ['commentCreated', 'commentUpdated', 'commentDeleted'],
  eventRefs: { commentId: 'id', postId: 'postId', authorId: 'authorId' },
  html: {
    title: (view) => `Comment ${view.id}`,
    page: `<article class="comment">
<header class="byline">${AVATAR_TEMPLATE}<span><a rel="author" href="<%= it.comment._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a> on <a href="<%= it.comment._links.post.href %>">post <%= it.comment.postId %></a></span> <time datetime="<%= it.comment.createdAt %>"><%= it.comment.createdAt %></time></header>
<div class="body"><%= it.comment.body %></div>
</article>`,
    list: `<h1><%= it.title %></h1>
<ol class="comments">
<% it.items.forEach(function (c) { %><li><strong><a href="<%= c._links.author.href %>"><%= c.authorName %></a></strong> <time datetime="<%= c.createdAt %>"><%= c.createdAt %></time><div class="body"><%= c.body %></div><a href="<%= c._links.self.href %>">link</a></li>
<% }) %></ol>
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
