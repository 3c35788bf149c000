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
    if (who.scopes && !who.scopes.includes('write')) {
      throw new DomainError('INSUFFICIENT_SCOPE', 'This API key may only read (scope "read"); writing needs the "write" scope');
    }
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

  /** What only admins may do or see (webhooks): 401 anonymous, 403 anyone else. */
  requireAdmin(actor: Actor | null | undefined, what: string): Actor {
    const who = this.requireSignedIn(actor);
    if (who.role !== 'admin') throw DomainError.forbidden(`Only admins may ${what}`);
    return who;
  }

  /** Whether an event about a resource may reach a subscriber. Every resource is public today. */
  canSee(_actor: Actor | null | undefined, _resource: unknown): boolean {
    return true;
  }
}
