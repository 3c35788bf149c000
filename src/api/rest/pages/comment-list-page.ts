import { Injectable } from '@nestjs/common';
import type { ListItem, ResourceView } from '../../../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../../../comments/comment.resource.js';
import { UsersService } from '../../../users/users.service.js';
import { withAuthorNames } from './authors.js';
import { COMMENT_THREAD_TEMPLATE, threaded } from './comment-thread.js';
import type { ListPage } from './page.js';
import { NEXT_PAGE_TEMPLATE } from './page-parts.js';
import { compileTemplate } from './template.js';

const TEMPLATE = compileTemplate(`<h1><%= it.title %></h1>
${COMMENT_THREAD_TEMPLATE}<% thread(it.items) %>
${NEXT_PAGE_TEMPLATE}`);

/** A list of comments (a post's, the moderation queue) as threads, with their authors' names. */
@Injectable()
export class CommentListPage implements ListPage {
  readonly kind = COMMENT_RESOURCE.kind;
  readonly title = 'Comments';

  constructor(private readonly users: UsersService) {}

  async body(comments: ListItem[], nextHref: string | null): Promise<string> {
    const items = threaded(await withAuthorNames(this.users, comments as ResourceView[]));
    return TEMPLATE({ title: this.title, items, nextHref });
  }
}
