import { type Links, userLinks } from '../common/representation/links.js';
import type { User, UserRole } from './user.entity.js';

/** A user as clients see it: never the password hash. */
export interface UserView {
  id: number;
  name: string;
  email: string;
  avatarUrl: string | null;
  role: UserRole;
  createdAt: string;
  updatedAt: string;
  _links: Links;
  [field: string]: unknown;
}

export function toUserView(user: User): UserView {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    avatarUrl: user.avatarUrl,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
    _links: userLinks(user),
  };
}
