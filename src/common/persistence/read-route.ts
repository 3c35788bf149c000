import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the work of one request may read from: present only while an anonymous read (a REST GET
 * or HEAD, a GraphQL query over HTTP) runs, so that everything else — writes, transactions,
 * authenticated requests, subscriptions, the event feed — reads from the primary by default.
 */
export interface ReadRoute {
  /**
   * The commit position (WAL LSN) of this client's last write while it is remembered: only a
   * replica that has replayed that far may answer it (read-your-writes). Null: none pending.
   */
  readonly pendingLsn: bigint | null;
}

export const readRoute = new AsyncLocalStorage<ReadRoute>();

/** Plain reads only: a SELECT (or WITH … SELECT) that locks nothing and calls nothing that writes. */
export function isPlainRead(statement: string): boolean {
  return /^\s*(SELECT|WITH)\b/i.test(statement) && !/\b(INSERT|UPDATE|DELETE|FOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)|pg_notify|nextval|setval|pg_advisory\w*)\b/i.test(statement);
}

/** `X/Y` (pg_lsn as text) as a number that compares. */
export function parseLsn(text: string | null | undefined): bigint | null {
  if (!text) return null;
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined) return null;
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}
