import { Injectable } from '@nestjs/common';
import type { Role } from '../common/actor.js';
import { toDate } from '../common/persistence/entity-table.js';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { Sql } from '../common/persistence/sql.js';
import { ApiKey } from './api-key.entity.js';

/** What checking a key needs: the key's scopes and expiry, and its user's current role. */
export interface KeyCredential {
  id: number;
  userId: number;
  role: Role;
  scopes: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

@Injectable()
export class ApiKeysRepository extends ResourceRepository<ApiKey> {
  constructor(sql: Sql) {
    super(sql, ApiKey);
  }

  /** One indexed lookup by the key's hash, joined with its user (a deleted user's keys are gone with it). */
  async findCredential(keyHash: string): Promise<KeyCredential | null> {
    const statement = this.cached(
      'credential',
      () => 'SELECT k.id, k.user_id, k.scopes, k.expires_at, k.last_used_at, u.role FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1',
    );
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, [keyHash]);
    if (!row) return null;
    return {
      id: row.id as number,
      userId: row.user_id as number,
      role: row.role as Role,
      scopes: row.scopes as string,
      expiresAt: row.expires_at == null ? null : toDate(row.expires_at),
      lastUsedAt: row.last_used_at == null ? null : toDate(row.last_used_at),
    };
  }

  listForUser(userId: number): Promise<ApiKey[]> {
    return this.page({ limit: 1000 }, 'asc', { column: 'userId', value: userId }).then((page) => page.items);
  }

  async touch(id: number, at: Date): Promise<void> {
    const statement = this.cached('touch', () => 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 RETURNING id');
    await this.sql.written(statement, [this.sql.timestamp(at), id]);
  }

  /** Deletes one of a user's keys; false when that user has no such key. */
  async deleteForUser(userId: number, id: number): Promise<boolean> {
    const statement = this.cached('deleteForUser', () => 'DELETE FROM api_keys WHERE id = $1 AND user_id = $2 RETURNING id');
    return (await this.sql.written(statement, [id, userId])).length > 0;
  }
}
