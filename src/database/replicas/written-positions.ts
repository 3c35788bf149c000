import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '../../redis/redis.module.js';

/** How long a client's last write is remembered: past it, any healthy replica has long replayed it. */
export const PENDING_WRITE_TTL_MS = 5000;
const MEMORY_MAX = 10_000;
const PREFIX = 'blog:replica-rw:';

/**
 * The commit position (WAL LSN) of each client's last write, for a few seconds: in Redis when it
 * is configured (every instance knows it), else in this process's memory. A Redis failure costs
 * nothing but the routing: the read then goes to the primary.
 */
@Injectable()
export class WrittenPositions {
  private readonly memory = new Map<string, { lsn: bigint; until: number }>();

  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async remember(client: string, lsn: bigint): Promise<void> {
    if (this.redis) {
      await this.redis.set(PREFIX + client, lsn.toString(), 'PX', PENDING_WRITE_TTL_MS).catch(() => undefined);
      return;
    }
    if (this.memory.size >= MEMORY_MAX) this.prune();
    this.memory.set(client, { lsn, until: Date.now() + PENDING_WRITE_TTL_MS });
  }

  /** The client's pending write; `undefined` when it cannot be known (Redis down): read from the primary. */
  async pending(client: string): Promise<bigint | null | undefined> {
    if (this.redis) {
      try {
        const text = await this.redis.get(PREFIX + client);
        return text === null ? null : BigInt(text);
      } catch {
        return undefined;
      }
    }
    const entry = this.memory.get(client);
    if (entry === undefined) return null;
    if (entry.until > Date.now()) return entry.lsn;
    this.memory.delete(client);
    return null;
  }

  private prune(): void {
    const now = Date.now();
    for (const [client, entry] of this.memory) if (entry.until <= now) this.memory.delete(client);
    if (this.memory.size >= MEMORY_MAX) this.memory.clear();
  }
}
