import { toDate } from '../common/persistence/sql.js';
import { User, type UserRole } from './user.entity.js';

/** Everything but the password hash. */
export const USER_COLUMNS = 'u.id, u.name, u.email, u.avatar_url, u.role, u.created_at, u.updated_at, u.version';

export interface UserRow {
  id: number;
  name: string;
  email: string;
  avatar_url: string | null;
  role: UserRole;
  created_at: unknown;
  updated_at: unknown;
  version: number;
}

export function userFromRow(row: UserRow): User {
  const user = new User();
  user.id = row.id;
  user.name = row.name;
  user.email = row.email;
  user.avatarUrl = row.avatar_url;
  user.role = row.role;
  user.createdAt = toDate(row.created_at);
  user.updatedAt = toDate(row.updated_at);
  user.version = row.version;
  return user;
}

/** The same columns under a prefix, for joining a user into another row. */
export const prefixedUserColumns = (prefix: string) =>
  USER_COLUMNS.split(', ').map((column) => `${column} AS ${prefix}${column.slice(2)}`).join(', ');

export function userFromPrefixedRow(row: Record<string, unknown>, prefix: string): User {
  return userFromRow({
    id: row[`${prefix}id`],
    name: row[`${prefix}name`],
    email: row[`${prefix}email`],
    avatar_url: row[`${prefix}avatar_url`],
    role: row[`${prefix}role`],
    created_at: row[`${prefix}created_at`],
    updated_at: row[`${prefix}updated_at`],
    version: row[`${prefix}version`],
  } as UserRow);
}
