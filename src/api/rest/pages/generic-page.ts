import type { ListItem } from '../../../common/resource/resource.js';
import type { ItemPage } from './page.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="<%= it.kind %>">
<h1><%= it.title %></h1>
<dl>
<% it.fields.forEach(function ({ name, value }) { %><dt><%= name %></dt><dd><%= value %></dd>
<% }) %></dl>
</article>`);

export const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A field's value as text: an array's entries one after the other, anything else as JSON would write it. */
const asText = (value: unknown): string =>
  Array.isArray(value) ? value.map(asText).join(', ') : typeof value === 'string' ? value : value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);

/**
 * The page of a resource whose kind has no page of its own (pages.module lists those that do):
 * its fields, in the order of its view, under `{Kind} {id}`; the renderer adds its links. So a
 * new resource answers text/html before anyone writes it a page.
 */
export class GenericPage implements ItemPage {
  constructor(readonly kind: string) {}

  title(view: ListItem): string {
    return `${capitalized(this.kind)} ${asText(view.id)}`;
  }

  body(view: ListItem): string {
    const fields = Object.entries(view)
      .filter(([name]) => name !== '_links')
      .map(([name, value]) => ({ name, value: asText(value) }));
    return TEMPLATE({ kind: this.kind, title: this.title(view), fields });
  }
}
