import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { TAG_RESOURCE } from '../../../tags/tag.resource.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ul class="tags">
<% it.items.forEach(function (t) { %><li><a href="<%= t._links.self.href %>"><%= t.name %></a> <a rel="posts" href="<%= t._links.posts.href %>">(<%= t.postCount %>)</a></li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`);

/** A list of tags, each with its count of public posts. */
@Injectable()
export class TagListPage implements ListPage {
  readonly kind = TAG_RESOURCE.kind;
  readonly title = 'Tags';

  body(items: ListItem[], nextHref: string | null): string {
    return TEMPLATE({ title: this.title, items, nextHref });
  }
}
