import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { pruneInBatches } from '../common/persistence/prune-in-batches.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { AppConfig } from '../config/app-config.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

/**
 * Keeps the webhook deliveries and their attempts to EVENTS_RETENTION_DAYS, as the event log is
 * kept: once at start-up and then hourly, the deliveries that ended (delivered or given up) longer
 * ago than that are deleted with their attempts, a batch at a time with a pause between batches.
 * A delivery still pending stays, whatever its age. Any instance may do it.
 */
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookRetention');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly config: AppConfig,
  ) {}

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

  /** Deletes the deliveries that ended before `now` minus the retention; returns how many. Runs one after another. */
  prune(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.eventsRetentionDays * DAY_MS);
    const run = this.running.then(async () => {
      const total = await pruneInBatches(
        (limit) => this.transactions.single(() => this.deliveries.pruneBatch(before, limit)),
        () => this.stopped,
      );
      if (total > 0) this.logger.log(`Pruned ${total} webhook deliveries (and their attempts) that ended before ${before.toISOString()}`);
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
      this.logger.warn(`Could not prune webhook deliveries: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
