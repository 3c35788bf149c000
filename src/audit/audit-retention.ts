import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { pruneInBatches } from '../common/persistence/prune-in-batches.js';
import { AppConfig } from '../config/app-config.js';
import { AuditEntriesRepository } from './audit-entries.repository.js';

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

/**
 * Keeps the audit log to AUDIT_RETENTION_DAYS: once at start-up and then hourly, deletes the
 * entries recorded before that, oldest first, a batch at a time with a pause between batches.
 * Any instance may do it (deleting what another already deleted is a no-op). Pruning is no
 * change of a resource: it records no entry of its own.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditRetention');
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly entries: AuditEntriesRepository,
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

  /** Deletes the entries recorded before `now` minus the retention; returns how many. Runs one after another. */
  prune(now = new Date()): Promise<number> {
    const run = this.running.then(() => this.pruneAll(new Date(now.getTime() - this.config.auditRetentionDays * DAY_MS)));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async pruneAll(before: Date): Promise<number> {
    const total = await pruneInBatches(
      (limit) => this.entries.pruneBatch(before, limit),
      () => this.stopped,
    );
    if (total > 0) this.logger.log(`Pruned ${total} audit entr${total === 1 ? 'y' : 'ies'} recorded before ${before.toISOString()}`);
    return total;
  }

  private async pruneQuietly(): Promise<void> {
    try {
      await this.prune();
    } catch (error) {
      // The database is away: the next run (within the hour) tries again.
      this.logger.warn(`Could not prune the audit log: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
