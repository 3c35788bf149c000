import type { UserRole } from '../users/user.entity.js';

/** Who is making a request: resolved from a bearer token by AuthService, the same for every transport. */
export interface Actor {
  id: number;
  role: UserRole;
  /** When the credential stops being valid (Unix seconds); absent when it never expires. */
  expiresAt?: number;
}
