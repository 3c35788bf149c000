import { Injectable } from '@nestjs/common';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { sql } from '../common/persistence/sql-template.js';
import type { AuditCredential } from './audit-entry.entity.js';

/** An entry as AuditLog hands it to be written. */
export interface NewAuditEntry {
  at: Date;
  actorId: number | null;
  actorCredential: AuditCredential | null;
  actorKeyId: number | null;
  action: string;
  resourceType: string;
  resourceId: number | null;
  /** JSON text. */
  changes: string;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  traceId: string | null;
}

/** `audit_entries`: appended to in the transaction of each change; never updated but for an erasure. */
@Injectable()
export class AuditEntriesRepository {
  constructor(private readonly sql: Sql) {}

  /** Appends entries (one statement), in the caller's transaction. */
  async append(executor: Executor, entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map(
      (entry) =>
        sql`(${sql.in([
          this.sql.timestamp(entry.at),
          entry.actorId,
          entry.actorCredential,
          entry.actorKeyId,
          entry.action,
          entry.resourceType,
          entry.resourceId,
          entry.changes,
          entry.ip,
          entry.userAgent,
          entry.requestId,
          entry.traceId,
        ])})`,
    );
    await this.sql.rows(
      sql`INSERT INTO audit_entries (at, actor_id, actor_credential, actor_key_id, action, resource_type, resource_id, changes, ip, user_agent, request_id, trace_id) VALUES ${sql.join(rows)}`,
      executor,
    );
  }
}
