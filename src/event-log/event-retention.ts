import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { pruneInBatches } from '../common/persistence/prune-in-batches.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { EventLogRepository } from './event-log.repository.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

/**
 * Keeps the event log to EVENTS_RETENTION_DAYS: once at start-up and then hourly, deletes the
 * events older than that, oldest first, a batch at a time with a pause between batches. Any
 * instance may do it (deleting what another already deleted is a no-op).
 */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventRetention');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly repository: EventLogRepository,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
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

  /** Deletes the events that occurred before `now` minus the retention; returns how many. Runs one after another. */
  prune(now = new Date()): Promise<number> {
    const run = this.running.then(() => this.pruneAll(new Date(now.getTime() - this.config.eventsRetentionDays * DAY_MS)));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async pruneAll(before: Date): Promise<number> {
    const total = await pruneInBatches(
      (limit) => this.repository.pruneBatch(before, limit),
      () => this.stopped,
      (deleted) => this.metrics.eventsPruned.inc(deleted),
    );
    if (total > 0) this.logger.log(`Pruned ${total} event(s) older than ${before.toISOString()}`);
    return total;
  }

  private async pruneQuietly(): Promise<void> {
    try {
      await this.prune();
    } catch (error) {
      // The database is away: the next run (within the hour) tries again.
      this.logger.warn(`Could not prune the event log: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
