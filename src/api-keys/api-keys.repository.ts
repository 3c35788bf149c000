import { Injectable } from '@nestjs/common';
import type { Role } from '../common/actor.js';
import { toDate } from '../common/persistence/entity-table.js';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { sql } from '../common/persistence/sql-template.js';
import { ApiKey } from './api-key.entity.js';

/** What checking a key needs: the key's scopes, creation and expiry, and its user's current role and revocation stamp. */
export interface KeyCredential {
  id: number;
  userId: number;
  role: Role;
  scopes: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  tokensValidAfter: Date | null;
}

@Injectable()
export class ApiKeysRepository extends ResourceRepository<ApiKey> {
  constructor(db: Sql) {
    super(db, ApiKey);
  }

  /** One indexed lookup by the key's hash, joined with its user (a deleted user's keys are gone with it). */
  async findCredential(keyHash: string): Promise<KeyCredential | null> {
    const statement = sql`SELECT k.id, k.user_id, k.scopes, k.created_at, k.expires_at, k.last_used_at, u.role, u.tokens_valid_after FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ${keyHash}`;
    const [row] = await this.sql.rows<Record<string, unknown>>(statement);
    if (!row) return null;
    return {
      id: row.id as number,
      userId: row.user_id as number,
      role: row.role as Role,
      scopes: row.scopes as string,
      createdAt: toDate(row.created_at),
      expiresAt: row.expires_at == null ? null : toDate(row.expires_at),
      lastUsedAt: row.last_used_at == null ? null : toDate(row.last_used_at),
      tokensValidAfter: row.tokens_valid_after == null ? null : toDate(row.tokens_valid_after),
    };
  }

  /** The user's keys still in force: not those created before the user's revocation stamp (AuthService refuses them). */
  async listForUser(userId: number): Promise<ApiKey[]> {
    const statement = sql`SELECT ${this.select} FROM ${this.from} JOIN users u ON u.id = t.user_id WHERE t.user_id = ${userId} AND (u.tokens_valid_after IS NULL OR t.created_at >= u.tokens_valid_after) ORDER BY t.id LIMIT 1000`;
    return this.map(await this.sql.rows(statement));
  }

  async touch(id: number, at: Date): Promise<void> {
    await this.sql.written(sql`UPDATE api_keys SET last_used_at = ${this.sql.timestamp(at)} WHERE id = ${id} RETURNING id`);
  }

  /** Deletes one of a user's keys: its name and user, or null when that user has no such key. */
  async deleteForUser(userId: number, id: number, executor?: Executor): Promise<{ name: string; userId: number } | null> {
    const [row] = await this.sql.written<{ name: string; user_id: number }>(sql`DELETE FROM api_keys WHERE id = ${id} AND user_id = ${userId} RETURNING name, user_id`, executor);
    return row ? { name: row.name, userId: Number(row.user_id) } : null;
  }
}
