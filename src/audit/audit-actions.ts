import type { Action } from '../auth/permissions.js';

interface AuditAction {
  /** What the entry records, as the docs' audit table says it. */
  label: string;
  /** The row of the permissions table (src/auth/permissions.ts) the change is done under; none for security events of nobody yet (a sign-in). */
  permission: Action | null;
  /** A second row it is done under, in some cases (a post written for another author: posts.setAuthor). */
  alsoUnder?: Action;
  /** The type of the resource an entry of this action names (singular). */
  resource: AuditResourceType;
}

export const AUDIT_RESOURCE_TYPES = ['post', 'comment', 'tag', 'user', 'apiKey', 'webhook', 'media'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/**
 * THE vocabulary of the audit log (CONTRACT §16): every change and security event has its name
 * here, and docs/audit.md's table is rendered from it (`renderAuditActions`, checked by a test).
 * Reads are not changes and have no entry, but for a personal data export.
 */
export const AUDIT_ACTIONS = {
  'posts.create': { label: 'A post written (with `authorId`: for another author)', permission: 'posts.write', alsoUnder: 'posts.setAuthor', resource: 'post' },
  'posts.update': { label: "A post's fields changed (a PATCH, a revision restored, unpublished to draft)", permission: 'posts.edit', resource: 'post' },
  'posts.submit': { label: 'A post submitted for review (status `in_review`)', permission: 'posts.submit', resource: 'post' },
  'posts.publish': { label: 'A post published (by its writer, on approval, or by the scheduler: `system`)', permission: 'posts.publish', resource: 'post' },
  'posts.schedule': { label: 'A post scheduled, or its publishAt moved', permission: 'posts.publish', resource: 'post' },
  'posts.review': { label: 'A review decision: approve or request changes', permission: 'posts.review', resource: 'post' },
  'posts.trash': { label: 'A post moved to the trash', permission: 'posts.edit', resource: 'post' },
  'posts.restore': { label: 'A post restored from the trash', permission: 'posts.edit', resource: 'post' },
  'posts.delete': { label: 'A post deleted for good (by a caller, or by the trash retention: `system`)', permission: 'posts.edit', resource: 'post' },
  'tags.create': { label: "A tag created (or made by a post's writer naming a new tag: `postId` in changes)", permission: 'tags.manage', resource: 'tag' },
  'tags.update': { label: 'A tag renamed', permission: 'tags.manage', resource: 'tag' },
  'tags.delete': { label: 'A tag deleted', permission: 'tags.manage', resource: 'tag' },
  'comments.create': { label: 'A comment written', permission: 'comments.write', resource: 'comment' },
  'comments.update': { label: "A comment's text changed", permission: 'comments.edit', resource: 'comment' },
  'comments.delete': { label: 'A comment deleted', permission: 'comments.delete', resource: 'comment' },
  'comments.moderate': { label: "A comment's status set by a moderator (one entry per comment of a bulk change)", permission: 'comments.moderate', resource: 'comment' },
  'media.create': { label: 'A medium uploaded', permission: 'posts.write', resource: 'media' },
  'media.update': { label: "A medium's alt text or caption changed", permission: 'posts.edit', resource: 'media' },
  'media.delete': { label: 'A medium deleted', permission: 'posts.edit', resource: 'media' },
  'users.create': { label: 'A user created (sign-up: actor null; a first sign-in with an identity provider: `sso`; the first admin of ADMIN_EMAIL: `system`)', permission: null, resource: 'user' },
  'users.update': { label: "A user's name or avatar changed", permission: 'users.edit', resource: 'user' },
  'users.changePassword': { label: "A user's password changed (named, never valued)", permission: 'users.edit', resource: 'user' },
  'users.signOutEverywhere': { label: "A user's tokens and keys revoked (sign out everywhere)", permission: 'users.edit', resource: 'user' },
  'users.delete': { label: 'A user deleted (erasure)', permission: 'users.edit', resource: 'user' },
  'users.setRole': { label: "A user's role changed", permission: 'users.setRole', resource: 'user' },
  'users.block': { label: 'A user blocked from commenting', permission: 'users.blockCommenters', resource: 'user' },
  'users.unblock': { label: 'A user unblocked', permission: 'users.blockCommenters', resource: 'user' },
  'users.export': { label: "A user's personal data exported (GET /users/{id}/export)", permission: 'users.export', resource: 'user' },
  'auth.signIn': { label: 'A sign-in: a token issued (password: `token`; identity provider: `sso`)', permission: null, resource: 'user' },
  'auth.signInFailed': { label: 'A failed sign-in (actor null; the e-mail tried is in `changes`)', permission: null, resource: 'user' },
  'apiKeys.create': { label: 'An API key created (its secret never recorded)', permission: 'apiKeys.manage', resource: 'apiKey' },
  'apiKeys.revoke': { label: 'An API key revoked', permission: 'apiKeys.manage', resource: 'apiKey' },
  'webhooks.create': { label: 'A webhook created (its secret named, never valued)', permission: 'webhooks.manage', resource: 'webhook' },
  'webhooks.update': { label: 'A webhook changed', permission: 'webhooks.manage', resource: 'webhook' },
  'webhooks.delete': { label: 'A webhook deleted', permission: 'webhooks.manage', resource: 'webhook' },
} as const satisfies Record<string, AuditAction>;

export type AuditActionName = keyof typeof AUDIT_ACTIONS;

export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as AuditActionName[];

/** The table docs/audit.md prints: one row per action. */
export function renderAuditActions(): string {
  const lines = ['| Action | What it records | Permission | Resource |', '|---|---|---|---|'];
  for (const [name, action] of Object.entries(AUDIT_ACTIONS) as [string, AuditAction][]) {
    const permissions = [action.permission, action.alsoUnder].filter(Boolean).map((permission) => `\`${permission}\``);
    lines.push(`| \`${name}\` | ${action.label} | ${permissions.join(', ') || '—'} | \`${action.resource}\` |`);
  }
  return lines.join('\n');
}
