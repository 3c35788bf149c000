import { Injectable } from '@nestjs/common';
import { HourlyRetention } from '../common/persistence/hourly-retention.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { AppConfig } from '../config/app-config.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/**
 * Keeps the webhook deliveries and their attempts to EVENTS_RETENTION_DAYS, as the event log is
 * kept (HourlyRetention): the deliveries that ended (delivered or given up) longer ago than that
 * go with their attempts. A delivery still pending stays, whatever its age.
 */
@Injectable()
export class WebhookRetention extends HourlyRetention {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly config: AppConfig,
  ) {
    super('WebhookRetention', 'webhook deliveries (and their attempts)');
  }

  protected get retentionDays(): number {
    return this.config.eventsRetentionDays;
  }

  protected pruneBatch(before: Date, limit: number): Promise<number> {
    return this.transactions.single(() => this.deliveries.pruneBatch(before, limit));
  }
}
