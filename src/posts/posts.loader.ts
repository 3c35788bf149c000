import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { handOver, inKeyOrder, keyedBy, type LoaderSet, type Loaders, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import { pageKey } from '../common/graphql/page.args.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import { UserLoaders } from '../users/users.loader.js';
import type { Post } from './post.entity.js';
import type { PostRevision } from './post-revision.entity.js';
import { PostFinder } from './post-finder.service.js';
import { PostRevisions } from './post-revisions.service.js';

export interface PostLoaderSet {
  /**
   * Rows whatever their state: resolvers apply the read policy per reader (ReadPolicy.canSeePost),
   * so a loader's results are the same for every reader and may be shared between subscribers.
   */
  byId: DataLoader<number, Post | null>;
  /** The same, with each post's author read in the same statement (priming the request's user loader). */
  byIdWithAuthor: DataLoader<number, Post | null>;
  /** The first public posts of each author (User.posts), for every author of the request in one statement. */
  byAuthor: (page: PageRequest) => DataLoader<number, Post[]>;
  /** The newest public posts of each tag (Tag.posts), one statement for every tag of the request. */
  byTag: (first: number) => DataLoader<number, Post[]>;
  /** The other posts of each post's group whatever their state (Post.translations; resolvers apply the read policy), one statement for every post of the request. */
  translations: DataLoader<number, Post[]>;
  /** The newest revisions of each post (Post.revisions), one statement for every post of the request; callers check canSeeRevisions. */
  revisions: (first: number) => DataLoader<number, PostRevision[]>;
}

@Injectable()
export class PostLoaders implements LoaderSet<PostLoaderSet> {
  constructor(
    private readonly posts: PostFinder,
    private readonly revisions: PostRevisions,
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
            const pages = await this.posts.listForAuthors(authorIds, page.limit);
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
    const byTag = keyedBy(
      (first: number) =>
        new DataLoader<number, Post[]>(
          async (tagIds) => {
            const pages = await this.posts.listForTags(tagIds, first);
            return tagIds.map((id) => pages.get(id) ?? []);
          },
          { maxBatchSize: MAX_BATCH_SIZE },
        ),
      String,
    );
    const revisions = keyedBy(
      (first: number) =>
        new DataLoader<number, PostRevision[]>(
          async (postIds) => {
            const newest = await this.revisions.newest(postIds, first);
            return postIds.map((id) => newest.get(id) ?? []);
          },
          { maxBatchSize: MAX_BATCH_SIZE },
        ),
      String,
    );
    const translations = new DataLoader<number, Post[]>(
      async (postIds) => {
        const groups = await this.posts.translationsOf(postIds);
        return postIds.map((id) => {
          const list = groups.get(id) ?? [];
          for (const post of list) byId.prime(post.id, post);
          return list;
        });
      },
      { maxBatchSize: MAX_BATCH_SIZE },
    );
    return { byId, byIdWithAuthor, byAuthor, byTag, revisions, translations };
  }
}
