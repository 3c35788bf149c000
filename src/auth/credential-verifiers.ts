import type { Actor } from '../common/actor.js';

/**
 * What a verifier found behind a credential: its actor, and what AuthService needs to apply the
 * one revocation rule to every kind of credential alike (a credential issued before its user's
 * revocation stamp is refused).
 */
export interface VerifiedCredential {
  actor: Actor;
  /** When the credential came to be (Unix seconds, may be fractional): a token's `iat`, a key's creation. */
  issuedAt: number;
  /** The user's revocation stamp (a password change, a sign-out everywhere); null: none. */
  validAfter: Date | null;
}

/**
 * Verifies `blog_…` API keys. Provided by the feature that keeps the keys; without one, every
 * key is refused.
 */
export abstract class ApiKeyVerifier {
  /** The key's actor (its user, with the key's scopes), or null when the key is unknown or expired. */
  abstract verify(key: string): Promise<VerifiedCredential | null>;
}

/**
 * Verifies tokens of an external OpenID Connect provider (any JWT not signed with HS256).
 * Provided when AUTH_JWKS_URL is set; without one, such tokens are refused.
 */
export abstract class ExternalTokenVerifier {
  /** The token's actor; throws a 401 DomainError when the token is not valid. */
  abstract verify(token: string): Promise<VerifiedCredential>;
}
