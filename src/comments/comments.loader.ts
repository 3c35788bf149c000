import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { handOver, inKeyOrder, keyedBy, type LoaderSet, type Loaders, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import { pageKey } from '../common/graphql/page.args.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import { UserLoaders } from '../users/users.loader.js';
import type { Comment } from './comment.entity.js';
import { CommentsService } from './comments.service.js';

export interface CommentLoaderSet {
  byId: DataLoader<number, Comment | null>;
  /**
   * One page of comments per post (Post.comments), for every post of the request in one
   * statement. With `withAuthors` the authors come in the same statement and prime the
   * request's user loader.
   */
  byPost: (page: PageRequest, withAuthors: boolean) => DataLoader<number, Comment[]>;
  /** Post.commentCount: one GROUP BY for every post of the request. */
  countByPost: DataLoader<number, number>;
}

@Injectable()
export class CommentLoaders implements LoaderSet<CommentLoaderSet> {
  constructor(
    private readonly comments: CommentsService,
    private readonly users: UserLoaders,
  ) {}

  create(loaders: Loaders): CommentLoaderSet {
    const options = { maxBatchSize: MAX_BATCH_SIZE };
    const byPage = keyedBy(
      ({ page, withAuthors }: { page: PageRequest; withAuthors: boolean }) =>
        new DataLoader<number, Comment[]>(async (postIds) => {
          const pages = await this.comments.listForPosts(postIds, page, { withAuthors });
          return postIds.map((id) => {
            const list = pages.get(id) ?? [];
            if (withAuthors) handOver(list, 'author', loaders.of(this.users).byId);
            return list;
          });
        }, options),
      ({ page, withAuthors }) => `${pageKey(page)}:${withAuthors}`,
    );
    return {
      byId: new DataLoader(async (ids) => inKeyOrder(ids, await this.comments.findByIds(ids)), options),
      byPost: (page, withAuthors) => byPage({ page, withAuthors }),
      countByPost: new DataLoader(async (postIds) => {
        const counts = await this.comments.countForPosts(postIds);
        return postIds.map((id) => counts.get(id) ?? 0);
      }, options),
    };
  }
}
