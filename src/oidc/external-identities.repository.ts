import { Injectable } from '@nestjs/common';
import type { Role } from '../common/actor.js';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { sql } from '../common/persistence/sql-template.js';

/** An OpenID Connect subject and the local user it is (null once that user was deleted). */
export interface ExternalIdentity {
  id: number;
  userId: number | null;
  /** The user's current role; null when the user is gone. */
  role: Role | null;
  /** `iat` of the newest token whose roles claim was applied (Unix seconds). */
  rolesIssuedAt: number;
  /** When the deletion of the user was first noticed (Unix seconds). */
  orphanedAt: number | null;
  /** The user's revocation stamp (tokens issued before it are refused); null: none. */
  tokensValidAfter: Date | null;
}

/** A user's link to an identity provider, as their personal-data export shows it. */
export interface LinkedIdentity {
  id: number;
  issuer: string;
  subject: string;
  createdAt: Date;
}

interface Row {
  id: number;
  user_id: number | null;
  role: Role | null;
  roles_issued_at: number | string;
  orphaned_at: number | string | null;
  tokens_valid_after: unknown;
}

/** The `external_identities` table (see its migration). */
@Injectable()
export class ExternalIdentitiesRepository {
  constructor(private readonly sql: Sql) {}

  async find(issuer: string, subject: string, executor?: Executor): Promise<ExternalIdentity | null> {
    const [row] = await this.sql.rows<Row>(
      sql`SELECT e.id, e.user_id, u.role, u.tokens_valid_after, e.roles_issued_at, e.orphaned_at FROM external_identities e LEFT JOIN users u ON u.id = e.user_id WHERE e.issuer = ${issuer} AND e.subject = ${subject}`,
      executor,
    );
    if (!row) return null;
    return {
      id: Number(row.id),
      userId: row.role === null || row.user_id === null ? null : Number(row.user_id),
      role: row.role,
      rolesIssuedAt: Number(row.roles_issued_at),
      orphanedAt: row.orphaned_at === null ? null : Number(row.orphaned_at),
      tokensValidAfter: row.tokens_valid_after == null ? null : toDate(row.tokens_valid_after),
    };
  }

  /** The identities linked to the user (at most one: user_id is unique), for their personal-data export. */
  async linkedTo(userId: number): Promise<LinkedIdentity[]> {
    const rows = await this.sql.rows<{ id: number | string; issuer: string; subject: string; created_at: unknown }>(
      sql`SELECT e.id, e.issuer, e.subject, e.created_at FROM external_identities e WHERE e.user_id = ${userId} ORDER BY e.id`,
    );
    return rows.map((row) => ({ id: Number(row.id), issuer: row.issuer, subject: row.subject, createdAt: toDate(row.created_at) }));
  }

  /** Fails with a unique violation when the subject already has a row (a concurrent first token). */
  async insert(issuer: string, subject: string, userId: number, rolesIssuedAt: number, executor: Executor): Promise<void> {
    const statement = sql`INSERT INTO external_identities (issuer, subject, user_id, roles_issued_at, created_at) VALUES (${issuer}, ${subject}, ${userId}, ${rolesIssuedAt}, ${this.sql.timestamp(new Date())}) RETURNING id`;
    await this.sql.rows(statement, executor);
  }

  /** Points an orphaned row at a new user; false when another token did it first. */
  async relink(id: number, userId: number, rolesIssuedAt: number, executor: Executor): Promise<boolean> {
    const statement = sql`UPDATE external_identities SET user_id = ${userId}, roles_issued_at = ${rolesIssuedAt}, orphaned_at = NULL WHERE id = ${id} AND (user_id IS NULL OR user_id NOT IN (SELECT id FROM users)) RETURNING id`;
    return (await this.sql.written(statement, executor)).length > 0;
  }

  /** Records a newer token's `iat`; false when a token at least as new was applied already. */
  async advanceRolesIssuedAt(id: number, issuedAt: number, executor?: Executor): Promise<boolean> {
    const statement = sql`UPDATE external_identities SET roles_issued_at = ${issuedAt} WHERE id = ${id} AND roles_issued_at < ${issuedAt} RETURNING id`;
    return (await this.sql.written(statement, executor)).length > 0;
  }

  /** Notes (once) when the deletion of the user was first seen. */
  async markOrphaned(id: number, now: number): Promise<void> {
    await this.sql.written(sql`UPDATE external_identities SET orphaned_at = ${now} WHERE id = ${id} AND orphaned_at IS NULL RETURNING id`);
  }
}
