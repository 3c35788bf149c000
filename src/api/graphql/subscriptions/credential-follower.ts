import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { PubSubEngine } from 'graphql-subscriptions';
import type { Actor } from '../../../common/actor.js';
import { normalizeError } from '../../../common/errors/normalize-error.js';
import { MAX_INT32 } from '../../../common/validation/limits.js';
import { CREDENTIALS_CHANGED, type CredentialsChanged } from '../../../events/blog-events.js';
import { PUB_SUB } from '../../../events/event-publisher.js';
import { OperationGate } from '../gate/operation-gate.js';

/** The credential a socket or stream was opened with, and the actor it stood for when last looked at. */
export interface Credential {
  readonly authorization?: string;
  actor: Actor | null;
}

/** The longest delay setTimeout takes (a signed 32-bit number of milliseconds). */
const MAX_TIMEOUT_MS = MAX_INT32;

/**
 * Follows the credential of every live connection, WebSocket or event stream alike: a credential
 * is looked at afresh by the gate (`check`), and a followed one is revoked — the socket closed
 * with 4403, the stream ended — when it expires, or when a change to its user
 * (CREDENTIALS_CHANGED, from any instance: a password or role change, a deleted user or API key)
 * leaves it no longer authenticating.
 */
@Injectable()
export class CredentialFollower implements OnModuleInit, OnApplicationShutdown {
  private readonly byUser = new Map<number, Set<() => Promise<void>>>();
  private subscription?: number;
  private closing = false;

  constructor(
    private readonly gate: OperationGate,
    @Inject(PUB_SUB) private readonly pubSub: PubSubEngine,
  ) {}

  onModuleInit(): void {
    void this.pubSub
      .subscribe(CREDENTIALS_CHANGED, (message: CredentialsChanged) => void this.recheckUser(message.userId), {})
      .then((id) => {
        if (this.closing) void this.pubSub.unsubscribe(id);
        else this.subscription = id;
      });
  }

  onApplicationShutdown(): void {
    this.closing = true;
    if (this.subscription !== undefined) this.pubSub.unsubscribe(this.subscription);
  }

  /** The actor behind the credential, checked afresh (kept in `credential.actor`): throws as the gate does (401, 503). */
  async check(credential: Credential): Promise<Actor | null> {
    credential.actor = await this.gate.authenticate(credential.authorization);
    return credential.actor;
  }

  /** Calls `revoke` when the credential expires or stops authenticating; returns the function that stops following it. */
  follow(credential: Credential, revoke: () => void): () => void {
    const actor = credential.actor;
    if (!actor) return () => undefined;
    const cancelExpiry = onExpiry(actor.expiresAt, revoke);
    const recheck = async () => {
      try {
        await this.check(credential);
      } catch (error) {
        if (normalizeError(error).code === 'UNAUTHENTICATED') revoke();
      }
    };
    let watched = this.byUser.get(actor.id);
    if (!watched) this.byUser.set(actor.id, (watched = new Set()));
    watched.add(recheck);
    return () => {
      cancelExpiry();
      watched.delete(recheck);
      if (watched.size === 0 && this.byUser.get(actor.id) === watched) this.byUser.delete(actor.id);
    };
  }

  /** The credentials of `userId` may have changed: every connection acting for them looks again. */
  private async recheckUser(userId: number): Promise<void> {
    const watched = this.byUser.get(userId);
    if (watched) await Promise.all([...watched].map((recheck) => recheck()));
  }
}

/** Calls `expire` when the credential's time is up (Unix seconds); returns the cancel. */
function onExpiry(expiresAt: number | undefined, expire: () => void): () => void {
  if (expiresAt === undefined) return () => undefined;
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt * 1000 - Date.now();
    // setTimeout holds at most about 24.8 days; a longer credential re-arms.
    timer = setTimeout(left > MAX_TIMEOUT_MS ? arm : expire, Math.max(0, Math.min(left, MAX_TIMEOUT_MS)));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
