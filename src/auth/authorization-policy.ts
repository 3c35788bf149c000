import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import type { Actor } from '../common/actor.js';

/**
 * Who may change what: the one policy behind REST, GraphQL and subscriptions.
 * Services call it with the actor and the resource; it throws 401/403 domain errors.
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

  /** What only a person may do, never an API key (creating keys): 403 INSUFFICIENT_SCOPE for a key. */
  requirePerson(actor: Actor | null | undefined): Actor {
    const who = this.requireActor(actor);
    if (who.apiKeyId !== undefined) throw new DomainError('INSUFFICIENT_SCOPE', 'An API key cannot create API keys');
    return who;
  }

  /** Posts and comments: their author or an admin. */
  assertCanModify(actor: Actor | null | undefined, resource: { authorId: number }, what: string): Actor {
    const who = this.requireActor(actor);
    if (who.role !== 'admin' && who.id !== resource.authorId) {
      throw DomainError.forbidden(`Only the author of this ${what} or an admin may change it`);
    }
    return who;
  }

  /** Users: themselves or an admin. */
  assertCanModifyUser(actor: Actor | null | undefined, userId: number): Actor {
    const who = this.requireActor(actor);
    if (who.role !== 'admin' && who.id !== userId) {
      throw DomainError.forbidden('Only the user themselves or an admin may change this user');
    }
    return who;
  }

  /** Fields only admins may set: a user's role, a post's author. */
  assertAdminFor(actor: Actor | null | undefined, field: string): Actor {
    const who = this.requireActor(actor);
    if (who.role !== 'admin') throw DomainError.forbidden(`Only admins may set ${field}`);
    return who;
  }

  /**
   * What only admins may do or see (webhooks, other users' keys): 401 anonymous, 403 anyone
   * else. An admin's API key needs `write` for it, reads included: `read` is what anyone may
   * read, never the admin's powers (403 INSUFFICIENT_SCOPE).
   */
  requireAdmin(actor: Actor | null | undefined, what: string): Actor {
    const who = this.requireSignedIn(actor);
    if (who.role !== 'admin') throw DomainError.forbidden(`Only admins may ${what}`);
    requireWriteScope(who, `This API key may only read (scope "read"); to ${what}, an admin's key needs the "write" scope`);
    return who;
  }

  /** What a user may see of their own account (their API keys): themselves with any credential, else an admin as above. */
  assertCanSeeUserPrivate(actor: Actor | null | undefined, userId: number, what: string): Actor {
    const who = this.requireSignedIn(actor);
    return who.id === userId ? who : this.requireAdmin(who, what);
  }
}

/** An API key without the `write` scope is refused with 403 INSUFFICIENT_SCOPE; tokens have every scope. */
function requireWriteScope(actor: Actor, message: string): void {
  if (actor.scopes && !actor.scopes.includes('write')) throw new DomainError('INSUFFICIENT_SCOPE', message);
}
