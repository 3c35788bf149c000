import type { Role } from '../common/actor.js';

export interface Account {
  id: number;
  role: Role;
  /** Tokens issued before this are refused (null: none revoked). */
  tokensValidAfter: Date | null;
}

/**
 * What authentication needs to know of an account, whoever keeps the accounts: the users
 * feature provides it (the credential floor stays below the features).
 */
export abstract class AccountLookup {
  /** The account's current role and revocation stamp, or null when it no longer exists. */
  abstract findAccount(id: number): Promise<Account | null>;
}
