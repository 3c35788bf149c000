import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/errors/domain-error.js';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from './authorization-policy.js';

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

describe('AuthorizationPolicy.requireActor', () => {
  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED', (anonymous) => {
    expect(refusal(() => policy.requireActor(anonymous)).code).toBe('UNAUTHENTICATED');
  });

  it('returns the actor it was given', () => {
    expect(policy.requireActor(author)).toBe(author);
  });
});

describe('AuthorizationPolicy.assertCanModify (posts and comments)', () => {
  const ownPost = { authorId: author.id };
  const othersPost = { authorId: otherAuthor.id };

  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED, not FORBIDDEN', (anonymous) => {
    expect(refusal(() => policy.assertCanModify(anonymous, ownPost, 'post')).code).toBe('UNAUTHENTICATED');
  });

  it('lets an author change their own resource', () => {
    expect(policy.assertCanModify(author, ownPost, 'post')).toBe(author);
  });

  it("refuses an author someone else's resource with FORBIDDEN, naming what it is", () => {
    const error = refusal(() => policy.assertCanModify(author, othersPost, 'comment'));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('comment');
  });

  it("lets an admin change anyone's resource", () => {
    expect(policy.assertCanModify(admin, othersPost, 'post')).toBe(admin);
  });
});

describe('AuthorizationPolicy.assertCanModifyUser', () => {
  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED', (anonymous) => {
    expect(refusal(() => policy.assertCanModifyUser(anonymous, author.id)).code).toBe('UNAUTHENTICATED');
  });

  it('lets a user change themselves', () => {
    expect(policy.assertCanModifyUser(author, author.id)).toBe(author);
  });

  it('refuses a user changing another user with FORBIDDEN', () => {
    expect(refusal(() => policy.assertCanModifyUser(author, otherAuthor.id)).code).toBe('FORBIDDEN');
  });

  it('lets an admin change any user', () => {
    expect(policy.assertCanModifyUser(admin, otherAuthor.id)).toBe(admin);
  });
});

describe('AuthorizationPolicy.assertAdminFor (admin-only fields)', () => {
  it.each([null, undefined])('refuses an anonymous caller (%s) with UNAUTHENTICATED', (anonymous) => {
    expect(refusal(() => policy.assertAdminFor(anonymous, 'role')).code).toBe('UNAUTHENTICATED');
  });

  it('refuses an author with FORBIDDEN, naming the field', () => {
    const error = refusal(() => policy.assertAdminFor(author, 'authorId'));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('authorId');
  });

  it('lets an admin set the field', () => {
    expect(policy.assertAdminFor(admin, 'role')).toBe(admin);
  });
});

describe('AuthorizationPolicy: API key scopes', () => {
  const readKey: Actor = { id: 5, role: 'admin', scopes: ['read'], apiKeyId: 1 };
  const writeKey: Actor = { id: 5, role: 'author', scopes: ['read', 'write'], apiKeyId: 2 };
  const codeOf = (check: () => unknown) => {
    try {
      check();
      return 'allowed';
    } catch (error) {
      return (error as DomainError).code;
    }
  };

  it('a read key may not write, whatever its user may do', () => {
    expect(codeOf(() => policy.requireActor(readKey))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.assertCanModify(readKey, { authorId: 5 }, 'post'))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.assertAdminFor(readKey, 'role'))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.requireSignedIn(readKey))).toBe('allowed');
  });

  it("an admin's read key gets none of the admin's powers, reads included; its write key does", () => {
    expect(codeOf(() => policy.requireAdmin(readKey, 'see webhooks'))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.assertCanSeeUserPrivate(readKey, 6, "see another user's API keys"))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.assertCanSeeUserPrivate(readKey, 5, "see another user's API keys"))).toBe('allowed');
    const adminWriteKey: Actor = { ...readKey, scopes: ['read', 'write'] };
    expect(codeOf(() => policy.requireAdmin(adminWriteKey, 'see webhooks'))).toBe('allowed');
    expect(codeOf(() => policy.assertCanSeeUserPrivate(adminWriteKey, 6, "see another user's API keys"))).toBe('allowed');
    // Not an admin: FORBIDDEN, whatever the key's scopes.
    expect(codeOf(() => policy.requireAdmin(writeKey, 'see webhooks'))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.assertCanSeeUserPrivate(author, otherAuthor.id, "see another user's API keys"))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.assertCanSeeUserPrivate(null, 5, "see another user's API keys"))).toBe('UNAUTHENTICATED');
  });

  it('a write key acts as its user, but never creates keys', () => {
    expect(codeOf(() => policy.assertCanModify(writeKey, { authorId: 5 }, 'post'))).toBe('allowed');
    expect(codeOf(() => policy.assertCanModify(writeKey, { authorId: 6 }, 'post'))).toBe('FORBIDDEN');
    expect(codeOf(() => policy.requirePerson(writeKey))).toBe('INSUFFICIENT_SCOPE');
    expect(codeOf(() => policy.requirePerson({ id: 5, role: 'author' }))).toBe('allowed');
  });
});
