import type { ReadRoute } from './read-route.js';

/**
 * Where Sql sends an anonymous request's plain reads: the read replicas when there are any
 * (database/replicas/replica-set.ts), given the primary as the fallback.
 */
export abstract class ReadRouter {
  abstract readonly enabled: boolean;
  abstract read(text: string, params: readonly unknown[], route: ReadRoute, primary: () => Promise<unknown[]>): Promise<unknown[]>;
}
