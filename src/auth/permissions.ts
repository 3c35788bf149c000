import type { Role } from '../common/actor.js';

/**
 * What a role may do with an action: on anyone's resource, only on its own (the resource's
 * author, or the user themselves), or not at all.
 */
export type Grant = 'any' | 'own' | 'none';

interface Permission {
  /** The action as the README's matrix names it. */
  label: string;
  grants: Readonly<Record<Role, Grant>>;
}

const everyone = (grant: Grant): Record<Role, Grant> => ({ admin: 'any', editor: grant, moderator: grant, author: grant });

/**
 * THE permission matrix (CONTRACT §9): the one table AuthorizationPolicy and ReadPolicy read,
 * whatever the door (REST, GraphQL over HTTP, WebSocket or SSE, the event feed). The README's
 * "Roles" table is rendered from it (`renderPermissionMatrix`, checked by a test).
 */
export const PERMISSIONS = {
  'posts.write': { label: 'Write posts', grants: everyone('own') },
  'posts.edit': {
    label: 'Change, publish, schedule, trash, restore and delete posts',
    grants: { admin: 'any', editor: 'any', moderator: 'own', author: 'own' },
  },
  'posts.readNonPublic': {
    label: 'See drafts, posts in review, scheduled and trashed posts, their comments, revisions, reviews and events',
    grants: { admin: 'any', editor: 'any', moderator: 'own', author: 'own' },
  },
  'posts.publish': {
    label: 'Publish and schedule posts without review (POSTS_REVIEW=required; with `off`, whoever may change a post)',
    grants: { admin: 'any', editor: 'any', moderator: 'none', author: 'none' },
  },
  'posts.submit': { label: 'Submit posts for review (status `in_review`)', grants: { admin: 'any', editor: 'any', moderator: 'own', author: 'own' } },
  'posts.review': {
    label: 'Review posts in review: approve (publish or schedule) or request changes',
    grants: { admin: 'any', editor: 'any', moderator: 'none', author: 'none' },
  },
  'posts.setAuthor': { label: "Set a post's author", grants: { admin: 'any', editor: 'none', moderator: 'none', author: 'none' } },
  'tags.manage': { label: 'Create, rename and delete tags', grants: { admin: 'any', editor: 'any', moderator: 'none', author: 'none' } },
  'comments.write': { label: 'Write comments (unless blocked)', grants: everyone('own') },
  'comments.edit': { label: "Change a comment's text", grants: everyone('own') },
  'comments.delete': { label: 'Delete comments', grants: { admin: 'any', editor: 'any', moderator: 'any', author: 'own' } },
  'comments.moderate': {
    label: 'Moderate comments (the queue, status, bulk), see held ones; never held themselves',
    grants: { admin: 'any', editor: 'any', moderator: 'any', author: 'none' },
  },
  'users.blockCommenters': { label: 'Block and unblock commenters', grants: { admin: 'any', editor: 'any', moderator: 'any', author: 'none' } },
  'users.edit': { label: "Change a user's name, avatar, password; sign them out everywhere; delete them", grants: everyone('own') },
  'users.export': { label: "Export a user's personal data (GET /users/{id}/export)", grants: everyone('own') },
  'users.setRole': { label: "Set a user's role", grants: { admin: 'any', editor: 'none', moderator: 'none', author: 'none' } },
  'apiKeys.manage': { label: 'See, create and revoke API keys', grants: everyone('own') },
  'webhooks.manage': { label: 'Manage webhooks and see their deliveries', grants: { admin: 'any', editor: 'none', moderator: 'none', author: 'none' } },
  'audit.read': { label: 'Read the audit log (GET /audit, auditEntries)', grants: { admin: 'any', editor: 'none', moderator: 'none', author: 'none' } },
} as const satisfies Record<string, Permission>;

export type Action = keyof typeof PERMISSIONS;

export function grantOf(role: Role, action: Action): Grant {
  return PERMISSIONS[action].grants[role];
}

/** The roles that may do `action` on anyone's resource. */
export function rolesWith(action: Action): readonly Role[] {
  return (Object.keys(PERMISSIONS[action].grants) as Role[]).filter((role) => PERMISSIONS[action].grants[role] === 'any');
}

const CELL: Record<Grant, string> = { any: 'yes', own: 'own', none: '—' };

/** The matrix as the README prints it: a Markdown table, one row per action, one column per role. */
export function renderPermissionMatrix(roles: readonly Role[]): string {
  const lines = [`| Action | ${roles.join(' | ')} |`, `|---|${roles.map(() => ':-:').join('|')}|`];
  for (const permission of Object.values(PERMISSIONS) as Permission[]) {
    lines.push(`| ${permission.label} | ${roles.map((role) => CELL[permission.grants[role]]).join(' | ')} |`);
  }
  return lines.join('\n');
}
