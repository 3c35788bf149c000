import { NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { POST_STATUSES } from '../auth/read-policy.js';
import { PostRevision } from './post-revision.entity.js';

/** A post's revisions: `/posts/{postId}/revisions/{number}`, for its author and admins. */
export const REVISION_RESOURCE = defineResource({
  kind: 'revision',
  plural: 'revisions',
  entity: PostRevision,
  fieldSchemas: { status: { type: 'string', enum: [...POST_STATUSES] } },
  links: (revision: PostRevision) => ({
    self: { href: `/posts/${revision.postId}/revisions/${revision.number}` },
    post: { href: `/posts/${revision.postId}` },
  }),
  html: {
    title: (view) => `Revision ${String(view.number)}: ${String(view.title)}`,
    page: `<article class="revision">
<h1><%= it.revision.title %></h1>
<p>Revision <%= it.revision.number %> (<%= it.revision.status %>) · <time datetime="<%= it.revision.createdAt %>"><%= it.revision.createdAt %></time> · <a href="<%= it.revision._links.post.href %>">the post</a></p>
<div class="body"><%= it.revision.body %></div>
</article>`,
    list: `<h1><%= it.title %></h1>
<ol class="revisions">
<% it.items.forEach(function (r) { %><li><a href="<%= r._links.self.href %>">Revision <%= r.number %></a>: <%= r.title %> (<%= r.status %>) <time datetime="<%= r.createdAt %>"><%= r.createdAt %></time></li>
<% }) %></ol>
${NEXT_PAGE_TEMPLATE}`,
  },
});
