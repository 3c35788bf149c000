import DataLoader from 'dataloader';
import type { PageRequest } from '../common/pagination/cursor.js';
import type { User } from '../users/user.entity.js';
import { inKeyOrder, MAX_BATCH_SIZE } from '../users/users.loader.js';
import type { Comment } from './comment.entity.js';
import type { CommentsService } from './comments.service.js';

export function createCommentByIdLoader(comments: CommentsService): DataLoader<number, Comment | null> {
  return new DataLoader(async (ids) => inKeyOrder(ids, await comments.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE });
}

/**
 * One page of comments per post (Post.comments), for every post of the request in one
 * statement. With `withAuthors` the authors come in the same statement and are handed to
 * `onAuthor` (the request's user loader primes its cache with them).
 */
export function createCommentsByPostLoader(
  comments: CommentsService,
  page: PageRequest,
  withAuthors: boolean,
  onAuthor: (author: User) => void,
): DataLoader<number, Comment[]> {
  return new DataLoader(
    async (postIds) => {
      const byPost = await comments.listForPosts(postIds, page, { withAuthors });
      return postIds.map((id) => {
        const list = byPost.get(id) ?? [];
        for (const comment of list) {
          if (comment.author) onAuthor(comment.author);
          delete comment.author;
        }
        return list;
      });
    },
    { maxBatchSize: MAX_BATCH_SIZE },
  );
}

/** Post.commentCount: one GROUP BY for every post of the request. */
export function createCommentCountByPostLoader(comments: CommentsService): DataLoader<number, number> {
  return new DataLoader(
    async (postIds) => {
      const counts = await comments.countForPosts(postIds);
      return postIds.map((id) => counts.get(id) ?? 0);
    },
    { maxBatchSize: MAX_BATCH_SIZE },
  );
}
