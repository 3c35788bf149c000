import { Injectable } from '@nestjs/common';
import { HourlyRetention } from '../common/persistence/hourly-retention.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { EventLogRepository } from './event-log.repository.js';

/** Keeps the event log to EVENTS_RETENTION_DAYS, at start-up and hourly (HourlyRetention), counted in events_pruned_total. */
@Injectable()
export class EventRetention extends HourlyRetention {
  constructor(
    private readonly repository: EventLogRepository,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    super('EventRetention', 'events');
  }

  protected get retentionDays(): number {
    return this.config.eventsRetentionDays;
  }

  protected pruneBatch(before: Date, limit: number): Promise<number> {
    return this.repository.pruneBatch(before, limit);
  }

  protected override pruned(deleted: number): void {
    this.metrics.eventsPruned.inc(deleted);
  }
}
