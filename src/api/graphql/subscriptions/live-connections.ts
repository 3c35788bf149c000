import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';

/** Why a live connection was not let in. */
export type Refusal = 'instance' | 'address';

/**
 * The live connections of this instance — WebSockets from the upgrade on (before their
 * connection_init) and event streams, counted together — per instance
 * (SUBSCRIPTIONS_MAX_CONNECTIONS) and per client address (SUBSCRIPTIONS_MAX_PER_ADDRESS).
 */
@Injectable()
export class LiveConnections {
  private total = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly maxTotal: number;
  private readonly maxPerAddress: number;

  constructor(config: AppConfig) {
    this.maxTotal = config.subscriptionsMaxConnections;
    this.maxPerAddress = config.subscriptionsMaxPerAddress;
  }

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
}
