import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { CommentScope } from '../auth/read-policy.js';
import { handOver, inKeyOrder, keyedBy, type LoaderSet, type Loaders, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import { pageKey } from '../common/graphql/page.args.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import { UserLoaders } from '../users/users.loader.js';
import type { Comment } from './comment.entity.js';
import { CommentsService } from './comments.service.js';

/**
 * Every list and count is keyed by the reader's CommentScope as well as by its page: a
 * subscription's execution is shared by the readers of one ReadPolicy.viewKey, and readers
 * with different scopes must never share an answer.
 */
export interface CommentLoaderSet {
  /** The comments with these ids, each with its post; the resolver asks the read policy before handing one out. */
  byId: DataLoader<number, Comment | null>;
  /**
   * One page of comments per post (Post.comments), for every post of the request in one
   * statement. With `withAuthors` the authors come in the same statement and prime the
   * request's user loader.
   */
  byPost: (page: PageRequest, withAuthors: boolean, scope: CommentScope) => DataLoader<number, Comment[]>;
  /** Comment.replies: one page of replies per comment, for every comment of the request in one statement. */
  repliesOf: (page: PageRequest, withAuthors: boolean, scope: CommentScope) => DataLoader<number, Comment[]>;
  /** Post.commentCount: one GROUP BY for every post of the request. */
  countByPost: (scope: CommentScope) => DataLoader<number, number>;
}

interface ListKey {
  page: PageRequest;
  withAuthors: boolean;
  scope: CommentScope;
}

const listKey = ({ page, withAuthors, scope }: ListKey) => `${pageKey(page)}:${withAuthors}:${JSON.stringify(scope)}`;

@Injectable()
export class CommentLoaders implements LoaderSet<CommentLoaderSet> {
  constructor(
    private readonly comments: CommentsService,
    private readonly users: UserLoaders,
  ) {}

  create(loaders: Loaders): CommentLoaderSet {
    const options = { maxBatchSize: MAX_BATCH_SIZE };
    const lists = (load: (ids: readonly number[], key: ListKey) => Promise<Map<number, Comment[]>>) =>
      keyedBy(
        (key: ListKey) =>
          new DataLoader<number, Comment[]>(async (ids) => {
            const pages = await load(ids, key);
            return ids.map((id) => {
              const list = pages.get(id) ?? [];
              if (key.withAuthors) handOver(list, 'author', loaders.of(this.users).byId);
              return list;
            });
          }, options),
        listKey,
      );
    const byPost = lists((postIds, { page, withAuthors, scope }) => this.comments.listForPosts(postIds, page, scope, { withAuthors }));
    const replies = lists((commentIds, { page, withAuthors, scope }) => this.comments.repliesFor(commentIds, page, scope, { withAuthors }));
    const counts = keyedBy(
      (scope: CommentScope) =>
        new DataLoader<number, number>(async (postIds) => {
          const found = await this.comments.countForPosts(postIds, scope);
          return postIds.map((id) => found.get(id) ?? 0);
        }, options),
      (scope) => JSON.stringify(scope),
    );
    return {
      byId: new DataLoader(async (ids) => inKeyOrder(ids, await this.comments.findByIds(ids)), options),
      byPost: (page, withAuthors, scope) => byPost({ page, withAuthors, scope }),
      repliesOf: (page, withAuthors, scope) => replies({ page, withAuthors, scope }),
      countByPost: counts,
    };
  }
}
