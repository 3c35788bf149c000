import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { AppConfig } from '../config/app-config.js';
import { PostsService } from './posts.service.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;
/** Posts deleted per batch (each in its own short transaction, with its events). */
export const TRASH_BATCH = 50;

/**
 * Empties the trash of posts older than TRASH_RETENTION_DAYS: once at start-up and then hourly,
 * oldest first, a short batch at a time with a pause between batches, each post deleted for good
 * through the same path as a second DELETE (its comments' and its own POST_DELETED events).
 * Any instance may do it: a post another instance deleted first is passed over.
 */
@Injectable()
export class TrashRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TrashRetention');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly posts: PostsService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purgeQuietly(), EVERY_MS);
    this.timer.unref();
    void this.purgeQuietly();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes for good the posts trashed before `now` minus the retention; returns how many. Runs one after another. */
  purge(now = new Date()): Promise<number> {
    const run = this.running.then(() => this.purgeAll(new Date(now.getTime() - this.config.trashRetentionDays * DAY_MS)));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async purgeAll(before: Date): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const purged = await this.posts.purgeTrash(before, TRASH_BATCH);
      total += purged;
      if (purged < TRASH_BATCH) break;
      await delay(10);
    }
    if (total > 0) this.logger.log(`Deleted ${total} post(s) trashed before ${before.toISOString()}`);
    return total;
  }

  private async purgeQuietly(): Promise<void> {
    try {
      await this.purge();
    } catch (error) {
      this.logger.warn(`Could not empty the trash: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
