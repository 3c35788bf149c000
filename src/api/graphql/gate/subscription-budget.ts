import { GraphQLError } from 'graphql';

interface Held {
  refs: number;
  cost: number;
}

/**
 * What one client address may make every event cost. Subscribers asking the same operation
 * share one execution per event, so an address pays once for each distinct operation it holds
 * (text, operation name and variables) — its cost (query-limits.ts) — and nothing for repeats. Without a
 * bound, a few dozen distinct heavy documents from one address would make every write cost
 * hundreds of milliseconds of CPU.
 */
export class SubscriptionBudget {
  private readonly byAddress = new Map<string, { total: number; held: Map<string, Held> }>();

  constructor(private readonly maxPerAddress: number) {}

  /** Holds one subscription of `key`; returns its release (call it once), or the refusal. */
  hold(address: string, key: string, operationCost: number): (() => void) | GraphQLError {
    let account = this.byAddress.get(address);
    if (!account) this.byAddress.set(address, (account = { total: 0, held: new Map() }));
    let held = account.held.get(key);
    if (!held) {
      const cost = Math.max(1, operationCost);
      if (account.total + cost > this.maxPerAddress) {
        if (account.held.size === 0) this.byAddress.delete(address);
        return new GraphQLError(
          `The subscriptions of this address would cost ${account.total + cost} per event; at most ${this.maxPerAddress} is allowed (identical subscriptions count once)`,
          { extensions: { code: 'RATE_LIMITED', http: { status: 429 } } },
        );
      }
      account.total += cost;
      account.held.set(key, (held = { refs: 0, cost }));
    }
    held.refs += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(address, key);
    };
  }

  /** What an address holds now (for tests and metrics). */
  costOf(address: string): number {
    return this.byAddress.get(address)?.total ?? 0;
  }

  private release(address: string, key: string): void {
    const account = this.byAddress.get(address);
    const held = account?.held.get(key);
    if (!account || !held) return;
    held.refs -= 1;
    if (held.refs > 0) return;
    account.held.delete(key);
    account.total -= held.cost;
    if (account.held.size === 0) this.byAddress.delete(address);
  }
}
