/** The roles of CONTRACT §9, the widest first; what each may do is src/auth/permissions.ts. */
export const ROLES = ['admin', 'editor', 'moderator', 'author'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is making a request: resolved from a credential, the same for every transport. */
export interface Actor {
  id: number;
  role: Role;
  /** When the credential stops being valid (Unix seconds); absent when it never expires. */
  expiresAt?: number;
  /** When the credential was issued (Unix seconds, a token's `iat`); absent for API keys. */
  issuedAt?: number;
  /** What an API key may do; absent for tokens, which may do everything their user may. */
  scopes?: readonly Scope[];
  /** The API key behind the actor, when there is one. */
  apiKeyId?: number;
  /** Set when the credential is an identity provider's token (OIDC), not one of ours: `sso` in the audit log. */
  external?: boolean;
}
