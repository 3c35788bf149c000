import { describe, expect, it } from 'vitest';
import type { Actor } from '../common/actor.js';
import { POST_STATUSES, ReadPolicy } from './read-policy.js';

const policy = new ReadPolicy();
const AUTHOR: Actor = { id: 1, role: 'author' };
const OTHER: Actor = { id: 2, role: 'author' };
const ADMIN: Actor = { id: 3, role: 'admin' };
const KEY_OF_AUTHOR: Actor = { id: 1, role: 'author', scopes: ['read'], apiKeyId: 9 };

describe('ReadPolicy', () => {
  const readers = { anonymous: null, other: OTHER, author: AUTHOR, admin: ADMIN, "the author's read key": KEY_OF_AUTHOR };
  const sees: Record<string, boolean> = { anonymous: false, other: false, author: true, admin: true, "the author's read key": true };

  for (const status of POST_STATUSES) {
    for (const [name, actor] of Object.entries(readers)) {
      const expected = status === 'published' || sees[name];
      it(`${name} ${expected ? 'sees' : 'does not see'} a ${status} post, its events likewise`, () => {
        const post = { status, authorId: AUTHOR.id };
        expect(policy.canSeePost(actor, post)).toBe(expected);
        expect(policy.canSeeAudience(actor, policy.audienceOf(post))).toBe(expected);
      });
    }
  }

  it('revisions only for the author and admins, even of a published post', () => {
    const post = { status: 'published' as const, authorId: AUTHOR.id };
    expect([null, OTHER, AUTHOR, ADMIN].map((actor) => policy.canSeeRevisions(actor, post))).toEqual([false, false, true, true]);
  });

  it('scopes: public for anonymous, public and own for a user, all for an admin', () => {
    expect(policy.postScope(null)).toEqual({ kind: 'public' });
    expect(policy.postScope(OTHER)).toEqual({ kind: 'public-or-own', ownerId: 2 });
    expect(policy.postScope(ADMIN)).toEqual({ kind: 'all' });
  });

  it('a restricted event without an owner reaches only admins', () => {
    const event = { audience: 'restricted' as const, owner: null };
    expect([null, AUTHOR, ADMIN].map((actor) => policy.canSeeAudience(actor, event))).toEqual([false, false, true]);
  });
});
