import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { CommentScope } from '../auth/read-policy.js';
import type { GraphQLResolveInfo } from 'graphql';
import { handOver, inKeyOrder, keepPartial, keyedBy, type LoaderSet, type Loaders, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import { selectedFields } from '../common/graphql/selection.js';
import { pageKey } from '../common/graphql/page.args.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import { UserLoaders } from '../users/users.loader.js';
import type { Comment } from './comment.entity.js';
import type { User } from '../users/user.entity.js';
import { type CommentListReading, CommentsService } from './comments.service.js';

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
   * statement, reading what `reading` says (`readingFor` a field's selection). With
   * `withAuthors` the authors come in the same statement: whole ones prime the request's user
   * loader, partial ones stay with their comments (Comment.author finds them there).
   */
  byPost: (page: PageRequest, reading: CommentListReading, scope: CommentScope) => DataLoader<number, Comment[]>;
  /** Comment.replies: one page of replies per comment, for every comment of the request in one statement. */
  repliesOf: (page: PageRequest, reading: CommentListReading, scope: CommentScope) => DataLoader<number, Comment[]>;
  /** Post.commentCount: one GROUP BY for every post of the request. */
  countByPost: (scope: CommentScope) => DataLoader<number, number>;
}

interface ListKey {
  page: PageRequest;
  reading: CommentListReading;
  scope: CommentScope;
}

const listKey = ({ page, reading, scope }: ListKey) =>
  `${pageKey(page)}:${reading.withAuthors === true}:${reading.columns?.join(',') ?? '*'}:${reading.authorColumns?.join(',') ?? '*'}:${JSON.stringify(scope)}`;

/** The author's fields read straight off the row (no resolver of theirs looks at another column). */
const PLAIN_AUTHOR_FIELDS = new Set<string>(['id', 'name', 'avatarUrl']);

/**
 * What a list field (Post.comments, Comment.replies) reads for its selection: only the columns it
 * names, and the author joined in when it is selected — a partial author when only plain fields
 * of it are, a whole one (for the users' loader) otherwise.
 */
export function readingFor(info: GraphQLResolveInfo): CommentListReading {
  // The names of the selected fields; the service keeps those that are columns (the others are relations).
  const fields = selectedFields(info);
  const columns = [...fields.keys()];
  const author = fields.get('author');
  if (author === undefined) return { columns };
  const authorFields = [...selectedFields(info, author).keys()].filter((name) => name !== '__typename');
  if (!authorFields.every((name) => PLAIN_AUTHOR_FIELDS.has(name))) return { columns, withAuthors: true };
  return { columns, withAuthors: true, authorColumns: authorFields as (keyof User & string)[] };
}

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
              if (key.reading.authorColumns) keepPartial(list, 'author');
              else if (key.reading.withAuthors) handOver(list, 'author', loaders.of(this.users).byId);
              return list;
            });
          }, options),
        listKey,
      );
    const byPost = lists((postIds, { page, reading, scope }) => this.comments.listForPosts(postIds, page, scope, reading));
    const replies = lists((commentIds, { page, reading, scope }) => this.comments.repliesFor(commentIds, page, scope, reading));
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
      byPost: (page, reading, scope) => byPost({ page, reading, scope }),
      repliesOf: (page, reading, scope) => replies({ page, reading, scope }),
      countByPost: counts,
    };
  }
}
