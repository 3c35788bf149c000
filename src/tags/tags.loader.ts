import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { inKeyOrder, type LoaderSet, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import type { Tag } from './tag.entity.js';
import { TagsService } from './tags.service.js';

export interface TagLoaderSet {
  /** One `WHERE id IN (...)` for every tag a request asks for in one tick (each with its postCount). */
  byId: DataLoader<number, Tag | null>;
  /** The tags of each post (Post.tags), by slug: one statement for every post of the request. */
  ofPost: DataLoader<number, Tag[]>;
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
    return { byId, ofPost };
  }
}
