import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { POST_RESOURCE } from '../../../posts/post.resource.js';
import { UsersService } from '../../../users/users.service.js';
import { withAuthorNames } from './authors.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE, TAGS_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ul class="posts">
<% it.items.forEach(function (p) { %><li><a href="<%= p._links.self.href %>"><%= p.title %></a> by <a href="<%= p._links.author.href %>"><%= p.authorName %></a> <time datetime="<%= p.createdAt %>"><%= p.createdAt %></time> ${TAGS_TEMPLATE('p')}</li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`);

/** A list of posts (the public ones, a search's, an author's), each with its author's name. */
@Injectable()
export class PostListPage implements ListPage {
  readonly kind = POST_RESOURCE.kind;
  readonly title = 'Posts';

  constructor(private readonly users: UsersService) {}

  async body(posts: ListItem[], nextHref: string | null): Promise<string> {
    return TEMPLATE({ title: this.title, items: await withAuthorNames(this.users, posts), nextHref });
  }
}
