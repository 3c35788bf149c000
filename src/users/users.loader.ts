import DataLoader from 'dataloader';
import type { User } from './user.entity.js';
import type { UsersService } from './users.service.js';

/** Results in the order of the keys, null where a row is missing (what DataLoader expects). */
export function inKeyOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): (T | null)[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** Batch sizes stay well below the bind-parameter limits of SQLite and PostgreSQL. */
export const MAX_BATCH_SIZE = 500;

/** Users by id: one `WHERE id IN (...)` for every user a GraphQL request asks for in one tick. */
export function createUserByIdLoader(users: UsersService): DataLoader<number, User | null> {
  return new DataLoader(async (ids) => inKeyOrder(ids, await users.findByIds(ids)), { maxBatchSize: MAX_BATCH_SIZE });
}
