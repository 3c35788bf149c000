import DataLoader from 'dataloader';
import type { PageRequest } from '../common/pagination/cursor.js';
import { inKeyOrder, MAX_BATCH_SIZE } from '../users/users.loader.js';
import type { Post } from './post.entity.js';
import type { PostsService } from './posts.service.js';

export function createPostByIdLoader(posts: PostsService): DataLoader<number, Post | null> {
  return new DataLoader(async (ids) => inKeyOrder(ids, await posts.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE });
}

/** One page of posts per author (User.posts), for every author of the request in one statement. */
export function createPostsByAuthorLoader(
  posts: PostsService,
  page: PageRequest,
  onLoaded: (post: Post) => void,
): DataLoader<number, Post[]> {
  return new DataLoader(
    async (authorIds) => {
      const byAuthor = await posts.listForAuthors(authorIds, page);
      return authorIds.map((id) => {
        const list = byAuthor.get(id) ?? [];
        list.forEach(onLoaded);
        return list;
      });
    },
    { maxBatchSize: MAX_BATCH_SIZE },
  );
}
