import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../../config/app-config.js';
import { REDIS } from '../../redis/redis.module.js';

/**
 * How long a client's last write is remembered at least: past it (and past
 * DATABASE_REPLICA_MAX_LAG_MS, the most a replica still used may be behind), a replica has replayed it.
 */
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

  private readonly ttlMs: number;

  constructor(@Inject(REDIS) private readonly redis: Redis | null, config: AppConfig) {
    this.ttlMs = Math.max(PENDING_WRITE_TTL_MS, config.databaseReplicaMaxLagMs);
  }

  async remember(client: string, lsn: bigint): Promise<void> {
    if (this.redis) {
      await this.redis.set(PREFIX + client, lsn.toString(), 'PX', this.ttlMs).catch(() => undefined);
      return;
    }
    if (this.memory.size >= MEMORY_MAX) this.prune();
    this.memory.set(client, { lsn, until: Date.now() + this.ttlMs });
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
