import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { TAG_RESOURCE } from '../../../tags/tag.resource.js';
import type { ItemPage } from './page.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="tag">
<h1><%= it.tag.name %></h1>
<p><code><%= it.tag.slug %></code>: <a rel="posts" href="<%= it.tag._links.posts.href %>"><%= it.tag.postCount %> posts</a></p>
</article>`);

/** A tag: its slug and how many public posts carry it. */
@Injectable()
export class TagPage implements ItemPage {
  readonly kind = TAG_RESOURCE.kind;

  title(tag: ListItem): string {
    return String(tag.name);
  }

  body(tag: ListItem): string {
    return TEMPLATE({ tag });
  }
}
