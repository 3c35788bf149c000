import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { EVENT_LIST } from '../../../event-log/event-list.js';
import { REFS_TEMPLATE } from './event-parts.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ol class="events">
<% it.items.forEach(function (e) { %><li><code><%= e.type %></code> <time datetime="<%= e.occurredAt %>"><%= e.occurredAt %></time><% if (e.resource) { %> <a href="<%= e.resource._links.self.href %>"><%= e.resource._links.self.href %></a><% } %>${REFS_TEMPLATE('e')} <small>cursor <a href="/events/<%= e.cursor %>"><code><%= e.cursor %></code></a></small></li>
<% }) %></ol>
${NEXT_PAGE_TEMPLATE}`);

/** A page of the event log. */
@Injectable()
export class EventListPage implements ListPage {
  readonly kind = EVENT_LIST.kind;
  readonly title = 'Events';

  body(items: ListItem[], nextHref: string | null): string {
    return TEMPLATE({ title: this.title, items, nextHref });
  }
}
