import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PostsService } from './posts.service.js';

/** How often the schedule is looked at: a post is published within about this long of its publishAt. */
export const SCHEDULE_POLL_MS = 1000;
/** Posts published per transaction: a batch holds its rows only briefly. */
export const SCHEDULE_BATCH = 25;

/**
 * Publishes scheduled posts when their publishAt comes: at start-up (what fell due while the
 * service was down) and then every second. Each batch is one transaction that locks the due rows
 * (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite has one writer), so with several instances on one
 * database each post is published once, by whichever locked it, through the same write path as
 * a PATCH (revision, POST_PUBLISHED, cache invalidation).
 */
@Injectable()
export class PostScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PostScheduler');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly posts: PostsService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runQuietly(), SCHEDULE_POLL_MS);
    this.timer.unref();
    void this.runQuietly();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Publishes every post due at `now`, a batch at a time; returns how many this instance published. Runs one after another. */
  run(now = new Date()): Promise<number> {
    const run = this.running.then(() => this.publishAll(now));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async publishAll(now: Date): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const published = await this.posts.publishDue(now, SCHEDULE_BATCH);
      total += published;
      if (published < SCHEDULE_BATCH) break;
    }
    if (total > 0) this.logger.log(`Published ${total} scheduled post(s)`);
    return total;
  }

  private async runQuietly(): Promise<void> {
    try {
      await this.run();
    } catch (error) {
      // The database is away: the next tick tries again.
      this.logger.warn(`Could not publish scheduled posts: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
