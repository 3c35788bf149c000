import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditResolver } from './audit.resolver.js';
import { AuditEntries } from './audit-entries.service.js';
import { AuditEntriesRepository } from './audit-entries.repository.js';
import { AuditLog } from './audit-log.service.js';
import { AuditRetention } from './audit-retention.js';

/** The audit log: every feature records its changes with AuditLog, in their transactions; admins read it (GET /audit, auditEntries). */
@Global()
@Module({
  controllers: [AuditController],
  providers: [AuditEntriesRepository, AuditLog, AuditEntries, AuditResolver, AuditRetention],
  exports: [AuditLog, AuditEntriesRepository],
})
export class AuditModule {}
