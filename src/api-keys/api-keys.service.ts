import { createHmac, randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AuditLog, changesOf } from '../audit/audit-log.service.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { ApiKeyVerifier, type VerifiedCredential } from '../auth/credential-verifiers.js';
import { type Actor, SCOPES, type Scope } from '../common/actor.js';
import { DomainError } from '../common/errors/domain-error.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { AppConfig } from '../config/app-config.js';
import { EventPublisher } from '../events/event-publisher.js';
import { UsersService } from '../users/users.service.js';
import type { ApiKey } from './api-key.entity.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import type { CreateApiKeyDto } from './dto/create-api-key.dto.js';

/** An API key as its owner sees it (JSON writes the dates in ISO 8601); `key` only in the answer that created it. */
export interface ApiKeyView {
  id: number;
  name: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  key?: string;
}

const PREFIX = 'blog_';
/** A key's fields its audit entries show. */
const AUDITED_FIELDS = ['userId', 'name', 'scopes', 'expiresAt'] as const;
/** How often `lastUsedAt` is written for a key in use (a write per request would cost more than the request). */
const TOUCH_EVERY_MS = 60_000;

/**
 * API keys for integrators, and their check on every request. A key is 256 random bits: it is
 * stored as an HMAC-SHA256 keyed with a secret derived from JWT_SECRET, not as a slow password
 * hash — nobody can guess 256 random bits, so slowness would protect nothing and would cost
 * every request; the HMAC key means a leaked table alone verifies nothing.
 */
@Injectable()
export class ApiKeysService extends ApiKeyVerifier {
  private readonly logger = new Logger('ApiKeys');
  private readonly hmacKey: Buffer;

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly users: UsersService,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    config: AppConfig,
    private readonly audit: AuditLog,
  ) {
    super();
    this.hmacKey = createHmac('sha256', config.jwtSecret).update('blog api keys v1').digest();
  }

  /**
   * A new key, shown once. Only a person, never a key; and one who proved to be at the keyboard
   * lately — a token less than 5 minutes old, or `currentPassword` (an admin creating a key for
   * someone else gives their own) — so that a stolen token cannot mint a lasting credential.
   */
  async create(userId: number, input: CreateApiKeyDto, actor: Actor | null, clientAddress = 'unknown'): Promise<ApiKeyView & { key: string }> {
    const who = this.policy.requirePerson(actor);
    this.policy.authorize(actor, 'apiKeys.manage', userId);
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw DomainError.badInput('expiresAt must be in the future', [{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    if (!(await this.users.exists(userId))) throw DomainError.notFound('User', userId);
    await this.users.confirmPresence(who, input.currentPassword, clientAddress);
    const key = PREFIX + randomBytes(32).toString('base64url');
    const scopes = SCOPES.filter((scope) => input.scopes.includes(scope)).join(',');
    const created = await this.transactions.run(async (manager) => {
      const inserted = await this.keys.insert({ userId, name: input.name, keyHash: this.hash(key), scopes, expiresAt: input.expiresAt ?? null, lastUsedAt: null }, manager);
      // The key's view: never the key, nor its hash.
      await this.audit.record(manager, who, { action: 'apiKeys.create', resource: { type: 'apiKey', id: inserted.id }, changes: changesOf(null, { ...toView(inserted), userId }, AUDITED_FIELDS) });
      return inserted;
    });
    return { ...toView(created), key };
  }

  /** The keys in force (those revoked with their user's tokens are gone from the list too). */
  async list(userId: number, actor: Actor | null): Promise<ApiKeyView[]> {
    this.policy.authorizeRead(actor, 'apiKeys.manage', userId);
    if (!(await this.users.exists(userId))) throw DomainError.notFound('User', userId);
    return (await this.keys.listForUser(userId)).map(toView);
  }

  /** Refused from now on, on every instance: the sockets and streams opened with it close at once. */
  async revoke(userId: number, keyId: number, actor: Actor | null): Promise<void> {
    const who = this.policy.authorize(actor, 'apiKeys.manage', userId);
    const revoked = await this.transactions.run(async (manager) => {
      const deleted = await this.keys.deleteForUser(userId, keyId, manager);
      if (deleted) await this.audit.record(manager, who, { action: 'apiKeys.revoke', resource: { type: 'apiKey', id: keyId }, changes: changesOf(deleted, null, ['name', 'userId']) });
      return deleted !== null;
    });
    if (!revoked) throw DomainError.notFound('API key', keyId);
    this.events.credentialsChanged(userId);
  }

  /**
   * The actor of a key (its user, with the key's scopes), or null when unknown, expired or its
   * user is gone. Whether its user's revocation stamp came after it is AuthService's rule.
   */
  async verify(key: string): Promise<VerifiedCredential | null> {
    const credential = await this.keys.findCredential(this.hash(key));
    const now = Date.now();
    if (!credential || (credential.expiresAt && credential.expiresAt.getTime() <= now)) return null;
    if (!credential.lastUsedAt || now - credential.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
      void this.keys.touch(credential.id, new Date(now)).catch((error: unknown) => this.logger.warn(`lastUsedAt not written: ${String(error)}`));
    }
    return {
      actor: {
        id: credential.userId,
        role: credential.role,
        scopes: credential.scopes.split(',') as Scope[],
        apiKeyId: credential.id,
        expiresAt: credential.expiresAt ? credential.expiresAt.getTime() / 1000 : undefined,
      },
      issuedAt: credential.createdAt.getTime() / 1000,
      validAfter: credential.tokensValidAfter,
    };
  }

  private hash(key: string): string {
    return createHmac('sha256', this.hmacKey).update(key).digest('hex');
  }
}

function toView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes.split(',') as Scope[],
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
  };
}
