import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { EVENT_LIST } from '../../../event-log/event-list.js';
import { REFS_TEMPLATE } from './event-parts.js';
import type { ItemPage } from './page.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="event">
<h1><code><%= it.event.type %></code></h1>
<p><time datetime="<%= it.event.occurredAt %>"><%= it.event.occurredAt %></time>${REFS_TEMPLATE('it.event')}</p>
<% if (it.event.resource) { %><p>As the write left it: <a href="<%= it.event.resource._links.self.href %>"><%= it.event.resource._links.self.href %></a></p><% } %>
<p><small>cursor <code><%= it.event.cursor %></code> · <a href="/events?after=<%= it.event.cursor %>">the events after it</a></small></p>
</article>`);

/** One event of the log: its type, its refs, the resource it left. */
@Injectable()
export class EventPage implements ItemPage {
  readonly kind = EVENT_LIST.kind;

  title(event: ListItem): string {
    return `Event ${String(event.type)}`;
  }

  body(event: ListItem): string {
    return TEMPLATE({ event });
  }
}
