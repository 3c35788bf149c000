import type { ListItem } from '../../../common/resource/resource.js';
import { capitalized } from './generic-page.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ul class="<%= it.plural %>">
<% it.items.forEach(function (item) { %><li><% if (item._links && item._links.self) { %><a href="<%= item._links.self.href %>"><%= item._links.self.href %></a><% } else { %><%= JSON.stringify(item) %><% } %></li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`);

/** The list of resources whose kind has no list page of its own: a link to each item (GenericPage shows it). */
export class GenericListPage implements ListPage {
  readonly title: string;

  constructor(
    readonly kind: string,
    private readonly plural: string,
  ) {
    this.title = capitalized(plural);
  }

  body(items: ListItem[], nextHref: string | null): string {
    return TEMPLATE({ title: this.title, plural: this.plural, items, nextHref });
  }
}
