import { Injectable } from '@nestjs/common';
import { HourlyRetention } from '../common/persistence/hourly-retention.js';
import { AppConfig } from '../config/app-config.js';
import { AuditEntriesRepository } from './audit-entries.repository.js';

/**
 * Keeps the audit log to AUDIT_RETENTION_DAYS, at start-up and hourly (HourlyRetention). Pruning
 * is no change of a resource: it records no entry of its own.
 */
@Injectable()
export class AuditRetention extends HourlyRetention {
  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly config: AppConfig,
  ) {
    super('AuditRetention', 'audit entries');
  }

  protected get retentionDays(): number {
    return this.config.auditRetentionDays;
  }

  protected pruneBatch(before: Date, limit: number): Promise<number> {
    return this.entries.pruneBatch(before, limit);
  }
}
