import { Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import { CommentsService } from '../../comments/comments.service.js';
import { toCommentView } from '../../comments/comment.view.js';
import { UsersService } from '../../users/users.service.js';
import * as templates from './html-templates.js';
import type { Resource, ResourceList, ResourceView } from './resource.js';

const COMMENTS_ON_POST_PAGE = 100;

type Template = ReturnType<Eta['compile']>;

/**
 * Readable pages for browsers. A page shows names rather than ids, so this renderer loads
 * the authors (one batched query) and, for a post, its first comments.
 */
@Injectable()
export class HtmlRenderer {
  private readonly eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false });
  private readonly compiled = new Map<string, Template>();

  constructor(
    private readonly users: UsersService,
    private readonly comments: CommentsService,
  ) {}

  async render(resource: Resource | ResourceList): Promise<string> {
    if ('items' in resource) return this.renderList(resource);
    const view = resource.view;
    switch (resource.kind) {
      case 'post': {
        const page = await this.comments.listForPost(view.id as number, { limit: COMMENTS_ON_POST_PAGE });
        const comments = page.items.map(toCommentView);
        const names = await this.authorNames([view, ...comments]);
        return this.page(String(view.title), 'POST_PAGE', {
          post: view,
          author: names.get(view.authorId as number),
          comments: comments.map((comment) => ({ ...comment, authorName: names.get(comment.authorId)?.name ?? 'unknown' })),
          moreComments: page.nextCursor !== null,
        });
      }
      case 'comment': {
        const names = await this.authorNames([view]);
        return this.page(`Comment ${view.id}`, 'COMMENT_PAGE', { comment: view, author: names.get(view.authorId as number) });
      }
      case 'user':
        return this.page(String(view.name), 'USER_PAGE', { user: view });
    }
  }

  private async renderList(list: ResourceList): Promise<string> {
    const title = list.plural[0].toUpperCase() + list.plural.slice(1);
    const names = list.kind === 'user' ? new Map() : await this.authorNames(list.items);
    const items = list.items.map((item) => ({ ...item, authorName: names.get(item.authorId as number)?.name ?? 'unknown' }));
    const template = { post: 'POST_LIST', comment: 'COMMENT_LIST', user: 'USER_LIST' }[list.kind] as keyof typeof templates;
    return this.page(title, template, { title, items, nextHref: list.nextHref });
  }

  private async authorNames(views: ResourceView[]): Promise<Map<number, { name: string; avatarUrl: string | null }>> {
    const ids = [...new Set(views.map((view) => view.authorId as number))];
    const users = await this.users.findByIds(ids);
    return new Map(users.map((user) => [user.id, { name: user.name, avatarUrl: user.avatarUrl }]));
  }

  private page(title: string, name: keyof typeof templates, data: Record<string, unknown>): string {
    const body = this.template(name).call(this.eta, data);
    return this.template('LAYOUT').call(this.eta, { title, body });
  }

  private template(name: keyof typeof templates): Template {
    let template = this.compiled.get(name);
    if (!template) {
      template = this.eta.compile(templates[name]);
      this.compiled.set(name, template);
    }
    return template;
  }
}
