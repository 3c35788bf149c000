import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import type { Actor } from '../common/actor.js';
import { type Action, grantOf, PERMISSIONS, rolesWith } from './permissions.js';

/**
 * Who may do what: the one policy behind REST, GraphQL and subscriptions. It reads the
 * permission table (src/auth/permissions.ts) and names no role; services call it with the actor,
 * the action and, for what has an owner, the owner's id (a post's or comment's author, the user
 * themselves). It throws 401/403 domain errors.
 */
@Injectable()
export class AuthorizationPolicy {
  /** A signed-in actor allowed to write: an API key needs the `write` scope (403 INSUFFICIENT_SCOPE). */
  requireActor(actor: Actor | null | undefined): Actor {
    const who = this.requireSignedIn(actor);
    requireWriteScope(who, 'This API key may only read (scope "read"); writing needs the "write" scope');
    return who;
  }

  /** A signed-in actor, whatever its scopes: for the reads that need one. */
  requireSignedIn(actor: Actor | null | undefined): Actor {
    if (!actor) throw DomainError.unauthenticated();
    return actor;
  }

  /** What only a person may do, never an API key (creating keys, exporting personal data): 403 INSUFFICIENT_SCOPE for a key, whatever its scopes. */
  requirePerson(actor: Actor | null | undefined, refusal = 'An API key cannot create API keys'): Actor {
    const who = this.requireSignedIn(actor);
    if (who.apiKeyId !== undefined) throw new DomainError('INSUFFICIENT_SCOPE', refusal);
    return who;
  }

  /** Whether the actor's role grants `action` on what `ownerId` owns (on anything when `ownerId` is omitted, for an 'own' grant: no). Scopes aside. */
  may(actor: Actor | null | undefined, action: Action, ownerId?: number): boolean {
    if (!actor) return false;
    const grant = grantOf(actor.role, action);
    return grant === 'any' || (grant === 'own' && ownerId !== undefined && ownerId === actor.id);
  }

  /**
   * A write: 401 anonymous, 403 INSUFFICIENT_SCOPE for a read key, then 403 FORBIDDEN unless the
   * actor's role grants `action` on anyone's resource, or on its own and `ownerId` is the actor.
   */
  authorize(actor: Actor | null | undefined, action: Action, ownerId?: number): Actor {
    const who = this.requireActor(actor);
    if (!this.may(who, action, ownerId)) throw forbidden(who, action);
    return who;
  }

  /** Like `authorizeRead`, as a yes or no. */
  mayRead(actor: Actor | null | undefined, action: Action, ownerId?: number): boolean {
    if (!actor) return false;
    if (ownerId !== undefined && ownerId === actor.id && grantOf(actor.role, action) !== 'none') return true;
    return grantOf(actor.role, action) === 'any' && (!actor.scopes || actor.scopes.includes('write'));
  }

  /**
   * A read that takes a grant (webhooks, another user's API keys): 401 anonymous, 403 FORBIDDEN
   * without the grant. On what is the actor's own, any credential will do; reading what the
   * grant opens beyond that needs an API key's `write` scope: `read` is what anyone may read,
   * never a role's powers (403 INSUFFICIENT_SCOPE).
   */
  authorizeRead(actor: Actor | null | undefined, action: Action, ownerId?: number): Actor {
    const who = this.requireSignedIn(actor);
    if (this.mayRead(who, action, ownerId)) return who;
    if (grantOf(who.role, action) !== 'any') throw forbidden(who, action);
    requireWriteScope(who, `This API key may only read (scope "read"): what anyone may read, never a role's powers; ${action} (${PERMISSIONS[action].label}) needs the "write" scope`);
    return who;
  }
}

function forbidden(actor: Actor, action: Action): DomainError {
  const own = grantOf(actor.role, action) === 'own';
  return DomainError.forbidden(
    `${action} (${PERMISSIONS[action].label}): ${own ? `the ${actor.role} role may do it only on its own` : `not for the ${actor.role} role`}; on anyone's: ${rolesWith(action).join(', ')}`,
  );
}

/** An API key without the `write` scope is refused with 403 INSUFFICIENT_SCOPE; tokens have every scope. */
function requireWriteScope(actor: Actor, message: string): void {
  if (actor.scopes && !actor.scopes.includes('write')) throw new DomainError('INSUFFICIENT_SCOPE', message);
}
