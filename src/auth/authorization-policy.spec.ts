import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/errors/domain-error.js';
import { type Actor, ROLES } from '../common/actor.js';
import { AuthorizationPolicy } from './authorization-policy.js';
import { type Action, grantOf, PERMISSIONS } from './permissions.js';

const policy = new AuthorizationPolicy();
const author: Actor = { id: 7, role: 'author' };
const otherAuthor: Actor = { id: 8, role: 'author' };
const admin: Actor = { id: 1, role: 'admin' };

/** The DomainError that `act` throws, failing the test when it throws nothing or something else. */
function refusal(act: () => unknown): DomainError {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

const codeOf = (check: () => unknown) => {
  try {
    check();
    return 'allowed';
  } catch (error) {
    return (error as DomainError).code;
  }
};

describe('AuthorizationPolicy.requireActor', () => {
  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED', (anonymous) => {
    expect(refusal(() => policy.requireActor(anonymous)).code).toBe('UNAUTHENTICATED');
  });

  it('returns the actor it was given', () => {
    expect(policy.requireActor(author)).toBe(author);
  });
});

describe('AuthorizationPolicy.authorize follows the permission table, cell by cell', () => {
  const cells = (Object.keys(PERMISSIONS) as Action[]).flatMap((action) => ROLES.map((role) => ({ action, role, grant: grantOf(role, action) })));

  it.each(cells)('$action for a $role ($grant)', ({ action, role, grant }) => {
    const actor: Actor = { id: 40, role };
    expect(codeOf(() => policy.authorize(actor, action, 40))).toBe(grant === 'none' ? 'FORBIDDEN' : 'allowed');
    expect(codeOf(() => policy.authorize(actor, action, 41))).toBe(grant === 'any' ? 'allowed' : 'FORBIDDEN');
    expect(codeOf(() => policy.authorize(actor, action))).toBe(grant === 'any' ? 'allowed' : 'FORBIDDEN');
  });

  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED, not FORBIDDEN', (anonymous) => {
    expect(refusal(() => policy.authorize(anonymous, 'posts.edit', 7)).code).toBe('UNAUTHENTICATED');
  });

  it('names the action and who may do it in the refusal', () => {
    const error = refusal(() => policy.authorize(author, 'comments.edit', otherAuthor.id));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('comments.edit');
    expect(error.message).toContain('the author role may do it only on its own');
    expect(refusal(() => policy.authorize({ id: 2, role: 'editor' }, 'posts.setAuthor')).message).toMatch(/posts\.setAuthor.*not for the editor role; on anyone's: admin$/);
  });

  it("lets an admin change anyone's resource", () => {
    expect(policy.authorize(admin, 'posts.edit', otherAuthor.id)).toBe(admin);
  });
});

describe('AuthorizationPolicy: API key scopes', () => {
  const readKey: Actor = { id: 5, role: 'admin', scopes: ['read'], apiKeyId: 1 };
  const writeKey: Actor = { id: 5, role: 'author', scopes: ['read', 'write'], apiKeyId: 2 };

  it('a read key may not write, whatever its user may do', () => {
    expect(codeOf(() => policy.requireActor(readKey))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.authorize(readKey, 'posts.edit', 5))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.authorize(readKey, 'users.setRole'))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.requireSignedIn(readKey))).toBe('allowed');
  });

  it("an admin's read key gets none of the admin's powers, reads included; its write key does", () => {
    expect(codeOf(() => policy.authorizeRead(readKey, 'webhooks.manage'))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.authorizeRead(readKey, 'apiKeys.manage', 6))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.authorizeRead(readKey, 'apiKeys.manage', 5))).toBe('allowed');
    const adminWriteKey: Actor = { ...readKey, scopes: ['read', 'write'] };
    expect(codeOf(() => policy.authorizeRead(adminWriteKey, 'webhooks.manage'))).toBe('allowed');
    expect(codeOf(() => policy.authorizeRead(adminWriteKey, 'apiKeys.manage', 6))).toBe('allowed');
    // Without the grant: FORBIDDEN, whatever the key's scopes.
    expect(codeOf(() => policy.authorizeRead(writeKey, 'webhooks.manage'))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.authorizeRead({ id: 3, role: 'editor', scopes: ['read'], apiKeyId: 3 }, 'webhooks.manage'))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.authorizeRead(author, 'apiKeys.manage', otherAuthor.id))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.authorizeRead(null, 'apiKeys.manage', 5))).toBe('UNAUTHENTICATED');
  });

  it('a write key acts as its user, but never creates keys', () => {
    expect(codeOf(() => policy.authorize(writeKey, 'posts.edit', 5))).toBe('allowed');
    expect(codeOf(() => policy.authorize(writeKey, 'posts.edit', 6))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.requirePerson(writeKey))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.requirePerson({ id: 5, role: 'author' }))).toBe('allowed');
  });

  it("an editor's read key cannot edit another's post, its write key can", () => {
    const editorRead: Actor = { id: 9, role: 'editor', scopes: ['read'], apiKeyId: 4 };
    expect(codeOf(() => policy.authorize(editorRead, 'posts.edit', 5))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.authorize({ ...editorRead, scopes: ['read', 'write'] }, 'posts.edit', 5))).toBe('allowed');
  });
});
