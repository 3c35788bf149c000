import type { Actor } from '../common/actor.js';

/**
 * Verifies `blog_…` API keys. Provided by the feature that keeps the keys; without one, every
 * key is refused.
 */
export abstract class ApiKeyVerifier {
  /** The key's actor (its user, with the key's scopes), or null when the key is unknown, expired or revoked. */
  abstract verify(key: string): Promise<Actor | null>;
}

/**
 * Verifies tokens of an external OpenID Connect provider (any JWT not signed with HS256).
 * Provided when AUTH_JWKS_URL is set; without one, such tokens are refused.
 */
export abstract class ExternalTokenVerifier {
  /** The token's actor; throws a 401 DomainError when the token is not valid. */
  abstract verify(token: string): Promise<Actor>;
}
