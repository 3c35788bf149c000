import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { inKeyOrder, type LoaderSet, MAX_BATCH_SIZE } from '../common/graphql/loaders.js';
import type { User } from './user.entity.js';
import { UsersService } from './users.service.js';

export interface UserLoaderSet {
  /** One `WHERE id IN (...)` for every user a request asks for in one tick. */
  byId: DataLoader<number, User | null>;
}

@Injectable()
export class UserLoaders implements LoaderSet<UserLoaderSet> {
  constructor(private readonly users: UsersService) {}

  create(): UserLoaderSet {
    return { byId: new DataLoader(async (ids) => inKeyOrder(ids, await this.users.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE }) };
  }
}
