import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { inKeyOrder, keyedBy, type LoaderSet, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import type { Post } from '../posts/post.entity.js';
import type { Tag } from './tag.entity.js';
import { TagsService } from './tags.service.js';

export interface TagLoaderSet {
  /** One `WHERE id IN (...)` for every tag a request asks for in one tick (each with its postCount). */
  byId: DataLoader<number, Tag | null>;
  /** The tags of each post (Post.tags), by slug: one statement for every post of the request. */
  ofPost: DataLoader<number, Tag[]>;
  /** The newest public posts of each tag (Tag.posts), one statement for every tag of the request. */
  posts: (first: number) => DataLoader<number, Post[]>;
}

@Injectable()
export class TagLoaders implements LoaderSet<TagLoaderSet> {
  constructor(private readonly tags: TagsService) {}

  create(): TagLoaderSet {
    const byId = new DataLoader<number, Tag | null>(async (ids) => inKeyOrder(ids, await this.tags.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE });
    const ofPost = new DataLoader<number, Tag[]>(
      async (postIds) => {
        const tags = await this.tags.tagsOfPosts(postIds);
        return postIds.map((id) => {
          const list = tags.get(id) ?? [];
          for (const tag of list) byId.prime(tag.id, tag);
          return list;
        });
      },
      { maxBatchSize: MAX_BATCH_SIZE },
    );
    const posts = keyedBy(
      (first: number) =>
        new DataLoader<number, Post[]>(
          async (tagIds) => {
            const pages = await this.tags.publicPostsOf(tagIds, first);
            return tagIds.map((id) => pages.get(id) ?? []);
          },
          { maxBatchSize: MAX_BATCH_SIZE },
        ),
      String,
    );
    return { byId, ofPost, posts };
  }
}
