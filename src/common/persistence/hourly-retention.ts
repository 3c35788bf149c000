import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { pruneInBatches } from './prune-in-batches.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

/**
 * A table kept to a number of days: once at start-up and then hourly, what is older than that is
 * deleted, oldest first, a batch at a time with a pause between batches (pruneInBatches). Runs
 * one after another; any instance may do it (deleting what another already deleted is a no-op);
 * shutdown waits for the running one. A subclass says what goes and how it is counted.
 */
export abstract class HourlyRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  /** `what`: the rows, as a log line names them ("audit entries", …). */
  protected constructor(
    name: string,
    private readonly what: string,
  ) {
    this.logger = new Logger(name);
  }

  /** How many days the rows are kept. */
  protected abstract get retentionDays(): number;

  /** Deletes up to `limit` of the rows from before `before`; returns how many went. */
  protected abstract pruneBatch(before: Date, limit: number): Promise<number>;

  /** Called with each batch's count (a metric). */
  protected pruned(_deleted: number): void {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.pruneQuietly(), EVERY_MS);
    this.timer.unref();
    void this.pruneQuietly();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes the rows from before `now` minus the retention; returns how many. */
  prune(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.retentionDays * DAY_MS);
    const run = this.running.then(async () => {
      const total = await pruneInBatches(
        (limit) => this.pruneBatch(before, limit),
        () => this.stopped,
        (deleted) => this.pruned(deleted),
      );
      if (total > 0) this.logger.log(`Pruned ${total} ${this.what} from before ${before.toISOString()}`);
      return total;
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  private async pruneQuietly(): Promise<void> {
    try {
      await this.prune();
    } catch (error) {
      // The database is away: the next run (within the hour) tries again.
      this.logger.warn(`Could not prune ${this.what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
