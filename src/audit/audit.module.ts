import { Global, Module } from '@nestjs/common';
import { AuditEntriesRepository } from './audit-entries.repository.js';
import { AuditLog } from './audit-log.service.js';

/** The audit log: every feature records its changes with AuditLog, in their transactions. */
@Global()
@Module({
  providers: [AuditEntriesRepository, AuditLog],
  exports: [AuditLog, AuditEntriesRepository],
})
export class AuditModule {}
