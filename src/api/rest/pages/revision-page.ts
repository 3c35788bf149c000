import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { REVISION_RESOURCE } from '../../../posts/post-revision.resource.js';
import type { ItemPage } from './page.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<article class="revision">
<h1><%= it.revision.title %></h1>
<p>Revision <%= it.revision.number %> (<%= it.revision.status %>) · <time datetime="<%= it.revision.createdAt %>"><%= it.revision.createdAt %></time> · <a href="<%= it.revision._links.post.href %>">the post</a></p>
<div class="body"><%= it.revision.body %></div>
</article>`);

/** One revision of a post, as it was. */
@Injectable()
export class RevisionPage implements ItemPage {
  readonly kind = REVISION_RESOURCE.kind;

  title(revision: ListItem): string {
    return `Revision ${String(revision.number)}: ${String(revision.title)}`;
  }

  body(revision: ListItem): string {
    return TEMPLATE({ revision });
  }
}
