import { setTimeout as delay } from 'node:timers/promises';

/** Rows deleted per statement: each batch is a short transaction, so writes never wait long. */
export const PRUNE_BATCH = 1000;

/**
 * Runs `deleteBatch` until it deletes fewer than PRUNE_BATCH rows (or `stopped()` says so),
 * pausing between batches so that queued writes (SQLite's single writer) and requests go
 * first. Returns how many rows went.
 */
export async function pruneInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  stopped: () => boolean,
  onBatch: (deleted: number) => void = () => undefined,
): Promise<number> {
  let total = 0;
  while (!stopped()) {
    const deleted = await deleteBatch(PRUNE_BATCH);
    total += deleted;
    onBatch(deleted);
    if (deleted < PRUNE_BATCH) break;
    await delay(10);
  }
  return total;
}
