/** Why a live connection was not let in. */
export type Refusal = 'instance' | 'address';

/** One open socket or stream whose credential is watched. */
export interface Watched {
  /** Looks at the credential again: the connection goes (4403, or the stream ends) when it no longer holds. */
  recheck(): Promise<void>;
}

/**
 * The live connections of this instance — WebSockets from the upgrade on (before their
 * connection_init) and event streams — counted per instance and per client address, and indexed
 * by the user they act for, so that a change to that user's credentials reaches them.
 */
export class LiveConnections {
  private total = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly byUser = new Map<number, Set<Watched>>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Takes a slot for `address`; returns its release (call it once), or why there is none. */
  admit(address: string): (() => void) | Refusal {
    if (this.total >= this.maxTotal) return 'instance';
    const held = this.perAddress.get(address) ?? 0;
    if (held >= this.maxPerAddress) return 'address';
    this.total += 1;
    this.perAddress.set(address, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    };
  }

  /** Follows a connection acting for `userId`; returns the function that stops following it. */
  watch(userId: number, watched: Watched): () => void {
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(watched);
    return () => {
      set.delete(watched);
      if (set.size === 0 && this.byUser.get(userId) === set) this.byUser.delete(userId);
    };
  }

  /** The credentials of `userId` may have changed: every connection acting for them looks again. */
  async recheck(userId: number): Promise<void> {
    const watched = this.byUser.get(userId);
    if (watched) await Promise.all([...watched].map((connection) => connection.recheck()));
  }
}

/** Calls `expire` when the credential's time is up (Unix seconds); returns the cancel. */
export function onExpiry(expiresAt: number | undefined, expire: () => void): () => void {
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

const MAX_TIMEOUT_MS = 2 ** 31 - 1;
