import { Injectable } from '@nestjs/common';
import type { ListItem } from '../../../common/resource/resource.js';
import { USER_RESOURCE } from '../../../users/user.resource.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
<ul class="users">
<% it.items.forEach(function (u) { %><li><a href="<%= u._links.self.href %>"><%= u.name %></a> (<%= u.role %>)</li>
<% }) %></ul>
${NEXT_PAGE_TEMPLATE}`);

/** A list of users, with their roles. */
@Injectable()
export class UserListPage implements ListPage {
  readonly kind = USER_RESOURCE.kind;
  readonly title = 'Users';

  body(items: ListItem[], nextHref: string | null): string {
    return TEMPLATE({ title: this.title, items, nextHref });
  }
}
