import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { inKeyOrder, type LoaderSet, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import type { Media } from './media.entity.js';
import { MediaService } from './media.service.js';

export interface MediaLoaderSet {
  /** One `WHERE id IN (...)` (and one for their variants) for every item a request asks for in one tick, whoever may see them. */
  byId: DataLoader<number, Media | null>;
}

@Injectable()
export class MediaLoaders implements LoaderSet<MediaLoaderSet> {
  constructor(private readonly media: MediaService) {}

  create(): MediaLoaderSet {
    return { byId: new DataLoader<number, Media | null>(async (ids) => inKeyOrder(ids, await this.media.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE }) };
  }
}
