import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { handOver, inKeyOrder, keyedBy, type LoaderSet, type Loaders, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import { pageKey } from '../common/graphql/page.args.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import { UserLoaders } from '../users/users.loader.js';
import type { Post } from './post.entity.js';
import { PostsService } from './posts.service.js';

export interface PostLoaderSet {
  byId: DataLoader<number, Post | null>;
  /** The same, with each post's author read in the same statement (priming the request's user loader). */
  byIdWithAuthor: DataLoader<number, Post | null>;
  /** One page of posts per author (User.posts), for every author of the request in one statement. */
  byAuthor: (page: PageRequest) => DataLoader<number, Post[]>;
}

@Injectable()
export class PostLoaders implements LoaderSet<PostLoaderSet> {
  constructor(
    private readonly posts: PostsService,
    private readonly users: UserLoaders,
  ) {}

  create(loaders: Loaders): PostLoaderSet {
    const byId = new DataLoader<number, Post | null>(async (ids) => inKeyOrder(ids, await this.posts.findByIds(ids)), {
      maxBatchSize: MAX_BATCH_SIZE,
    });
    const byIdWithAuthor = new DataLoader<number, Post | null>(
      async (ids) => {
        const posts = await this.posts.findByIds(ids, { withAuthors: true });
        handOver(posts, 'author', loaders.of(this.users).byId);
        for (const post of posts) byId.prime(post.id, post);
        return inKeyOrder(ids, posts);
      },
      { maxBatchSize: MAX_BATCH_SIZE },
    );
    const byAuthor = keyedBy(
      (page: PageRequest) =>
        new DataLoader<number, Post[]>(
          async (authorIds) => {
            const pages = await this.posts.listForAuthors(authorIds, page);
            return authorIds.map((id) => {
              const list = pages.get(id) ?? [];
              for (const post of list) byId.prime(post.id, post);
              return list;
            });
          },
          { maxBatchSize: MAX_BATCH_SIZE },
        ),
      pageKey,
    );
    return { byId, byIdWithAuthor, byAuthor };
  }
}
