import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { REVISION_RESOURCE } from '../../../posts/post-revision.resource.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ol class="revisions">
<% it.items.forEach(function (r) { %><li><a href="<%= r._links.self.href %>">Revision <%= r.number %></a>: <%= r.title %> (<%= r.status %>) <time datetime="<%= r.createdAt %>"><%= r.createdAt %></time></li>
<% }) %></ol>
${NEXT_PAGE_TEMPLATE}`);

/** A post's revisions, oldest first. */
@Injectable()
export class RevisionListPage implements ListPage {
  readonly kind = REVISION_RESOURCE.kind;
  readonly title = 'Revisions';

  body(items: ListItem[], nextHref: string | null): string {
    return TEMPLATE({ title: this.title, items, nextHref });
  }
}
