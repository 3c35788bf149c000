import { NEXT_PAGE_TEMPLATE } from '../common/resource/html.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { Tag } from './tag.entity.js';

/** The path of the public posts carrying a tag. */
export const postsTaggedPath = (slug: string) => `/posts?tag=${encodeURIComponent(slug)}`;

export const TAG_RESOURCE = defineResource({
  kind: 'tag',
  plural: 'tags',
  entity: Tag,
  links: (tag: Tag) => ({ posts: { href: postsTaggedPath(tag.slug) } }),
  computed: { postCount: { schema: { type: 'integer', minimum: 0, description: 'How many public posts carry it' } } },
  html: {
    title: (view) => String(view.name),
    page: `<article class="tag">
<h1><%= it.tag.name %></h1>
<p><code><%= it.tag.slug %></code>: <a rel="posts" href="<%= it.tag._links.posts.href %>"><%= it.tag.postCount %> posts</a></p>
</article>`,
    list: `<h1><%= it.title %></h1>
<ul class="tags">
<% it.items.forEach(function (t) { %><li><a href="<%= t._links.self.href %>"><%= t.name %></a> <a rel="posts" href="<%= t._links.posts.href %>">(<%= t.postCount %>)</a></li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`,
  },
});
