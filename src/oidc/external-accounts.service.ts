import { Injectable, Logger } from '@nestjs/common';
import { AuditLog, changesOf } from '../audit/audit-log.service.js';
import type { Role } from '../common/actor.js';
import type { VerifiedCredential } from '../auth/credential-verifiers.js';
import { DomainError } from '../common/errors/domain-error.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { EventPublisher } from '../events/event-publisher.js';
import { UsersRepository } from '../users/users.repository.js';
import { ExternalIdentitiesRepository } from './external-identities.repository.js';

/** What a verified token says about its subject. */
export interface ExternalClaims {
  issuer: string;
  subject: string;
  /** Unix seconds. */
  issuedAt: number;
  expiresAt: number;
  /** Lower-cased, NFKC-normalized; undefined when the token carries no usable address. */
  email?: string;
  /** The provider vouches for `email` (`email_verified: true`): only then may it become an account's address. */
  emailVerified: boolean;
  name?: string;
  role: Role;
}

/**
 * Stored as the password hash of accounts created by single sign-on: not a scrypt hash, so
 * no password ever matches it (verifyPassword refuses any other scheme).
 */
export const NO_PASSWORD = '!external';

const NAME_MAX = 100;

/**
 * The local user behind an OpenID Connect subject: created by its first token, its role kept
 * in line with the newest token's roles claim.
 */
@Injectable()
export class ExternalAccountsService {
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly identities: ExternalIdentitiesRepository,
    private readonly users: UsersRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly audit: AuditLog,
  ) {}

  /** The token's actor, with what AuthService's revocation rule needs (the token's `iat`, the user's stamp). */
  async actorFor(claims: ExternalClaims): Promise<VerifiedCredential> {
    const { id, role, tokensValidAfter } = await this.account(claims);
    return { actor: { id, role, expiresAt: claims.expiresAt, issuedAt: claims.issuedAt, external: true }, issuedAt: claims.issuedAt, validAfter: tokensValidAfter };
  }

  private async account(claims: ExternalClaims): Promise<Account> {
    const link = await this.identities.find(claims.issuer, claims.subject);
    if (!link) return this.create(claims);
    if (link.userId === null || link.role === null) {
      // The user was deleted: tokens issued until then stay refused, a later one starts afresh.
      if (link.orphanedAt === null) {
        await this.transactions.single(() => this.identities.markOrphaned(link.id, nowS()));
        throw deleted();
      }
      if (claims.issuedAt <= link.orphanedAt) throw deleted();
      return this.create(claims, link.id);
    }
    const { tokensValidAfter } = link;
    if (claims.issuedAt <= link.rolesIssuedAt) return { id: link.userId, role: link.role, tokensValidAfter };
    // A revoked token changes no role: AuthService refuses it.
    if (tokensValidAfter && claims.issuedAt * 1000 < tokensValidAfter.getTime()) return { id: link.userId, role: link.role, tokensValidAfter };
    if (claims.role === link.role) {
      await this.transactions.single(() => this.identities.advanceRolesIssuedAt(link.id, claims.issuedAt));
      return { id: link.userId, role: link.role, tokensValidAfter };
    }
    return { ...(await this.changeRole(link.id, link.userId, claims)), tokensValidAfter };
  }

  /**
   * The role of the newest token wins: a token issued earlier than one already applied leaves
   * the role as it is (an old admin token cannot undo a demotion, and two open connections
   * with tokens of different roles cannot flip the role back and forth).
   */
  private async changeRole(linkId: number, userId: number, claims: ExternalClaims): Promise<{ id: number; role: Role }> {
    const result = await this.transactions.run(async (manager) => {
      const user = await this.users.findById(userId, manager);
      if (!user) throw deleted();
      if (!(await this.identities.advanceRolesIssuedAt(linkId, claims.issuedAt, manager))) return { role: user.role, changed: false };
      if (user.role === claims.role) return { role: user.role, changed: false };
      if (user.role === 'admin' && (await this.users.countWithRole('admin', manager)) <= 1) {
        this.logger.warn(`User ${userId} stays admin: the identity provider no longer grants the role, but they are the last admin`);
        return { role: user.role, changed: false };
      }
      await this.users.update(userId, { role: claims.role }, undefined, manager);
      // The provider's roles claim, applied on the sign-in of its token: the user's own, through single sign-on.
      await this.audit.record(manager, { id: userId, role: claims.role, external: true }, { action: 'users.setRole', resource: { type: 'user', id: userId }, changes: { role: { from: user.role, to: claims.role } } });
      return { role: claims.role, changed: true };
    });
    if (result.changed) this.events.credentialsChanged(userId);
    return { id: userId, role: result.role };
  }

  /**
   * The subject's first token (or its first since its user was deleted): a new local user. Its
   * e-mail must be one the provider verified: an unverified address is anyone's to type, and
   * taking it would keep its owner from signing up with it.
   */
  private async create(claims: ExternalClaims, orphanedLinkId?: number): Promise<Account> {
    const email = claims.email;
    if (email === undefined) {
      throw DomainError.unauthenticated('The identity provider\'s token has no usable "email" claim, which a new account needs');
    }
    if (!claims.emailVerified) {
      throw DomainError.unauthenticated(
        'The identity provider has not verified the e-mail address of this token ("email_verified" is not true), which a new account needs',
      );
    }
    const name = [...(claims.name ?? email)].slice(0, NAME_MAX).join(''); // code points: never half a surrogate pair
    try {
      const created = await this.transactions.run(async (manager) => {
        // A concurrent first token of the same subject may have committed meanwhile.
        const again = await this.identities.find(claims.issuer, claims.subject, manager);
        if (again && again.userId !== null && again.role !== null) return { id: again.userId, role: again.role, tokensValidAfter: again.tokensValidAfter };
        // Taken, perhaps by a concurrent first token of this subject that committed meanwhile:
        // answered below, once that transaction's link can be seen.
        if (await this.users.findByEmail(email, manager)) throw DomainError.conflict('The e-mail address is taken');
        const user = await this.users.insert({ name, email, passwordHash: NO_PASSWORD, avatarUrl: null, role: claims.role }, manager);
        await this.audit.record(manager, { id: user.id, role: user.role, external: true }, {
          action: 'users.create',
          resource: { type: 'user', id: user.id },
          changes: changesOf(null, user, ['name', 'email', 'avatarUrl', 'role']),
        });
        if (orphanedLinkId === undefined) await this.identities.insert(claims.issuer, claims.subject, user.id, claims.issuedAt, manager);
        else if (!(await this.identities.relink(orphanedLinkId, user.id, claims.issuedAt, manager))) throw DomainError.conflict('The identity was linked meanwhile');
        return { id: user.id, role: user.role, tokensValidAfter: null };
      });
      this.events.changed();
      return created;
    } catch (error) {
      if (normalizeError(error).code !== 'CONFLICT') throw error;
      // The subject (a concurrent first token won) or the e-mail (taken by another account).
      const link = await this.identities.find(claims.issuer, claims.subject);
      if (link && link.userId !== null && link.role !== null) return { id: link.userId, role: link.role, tokensValidAfter: link.tokensValidAfter };
      throw emailTaken();
    }
  }
}

/** The local user behind a subject, with their revocation stamp. */
interface Account {
  id: number;
  role: Role;
  tokensValidAfter: Date | null;
}

const nowS = () => Math.floor(Date.now() / 1000);

const deleted = () =>
  DomainError.unauthenticated('The blog account of this identity was deleted; sign in at the identity provider again to start a new one');

/**
 * An existing account is never taken over by a token that merely carries its e-mail address:
 * the provider's say-so about an address is not proof of owning that account's password.
 */
const emailTaken = () =>
  DomainError.unauthenticated(
    'The e-mail address of this identity already belongs to another blog account, which is not linked to single sign-on automatically',
  );
