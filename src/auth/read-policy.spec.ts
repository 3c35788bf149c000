import { describe, expect, it } from 'vitest';
import { type Actor, ROLES } from '../common/actor.js';
import { loadSqliteDriver } from '../database/sqlite-driver.js';
import { audienceBeyondSql, type AudienceSet, audienceSql, COMMENT_STATUSES, type EventAudience, POST_STATUSES, ReadPolicy } from './read-policy.js';

const policy = new ReadPolicy();
const AUTHOR: Actor = { id: 1, role: 'author' };
const OTHER: Actor = { id: 2, role: 'author' };
const ADMIN: Actor = { id: 3, role: 'admin' };
const KEY_OF_AUTHOR: Actor = { id: 1, role: 'author', scopes: ['read'], apiKeyId: 9 };
const EDITOR: Actor = { id: 4, role: 'editor' };
const MODERATOR: Actor = { id: 5, role: 'moderator' };
const COMMENTER: Actor = { id: 6, role: 'author' };
/** `read` keys read what anonymous callers read (CONTRACT §3); a `write` key reads what its user reads. */
const READ_KEY_OF_ADMIN: Actor = { id: 3, role: 'admin', scopes: ['read'], apiKeyId: 10 };
const READ_KEY_OF_MODERATOR: Actor = { id: 5, role: 'moderator', scopes: ['read'], apiKeyId: 11 };
const READ_KEY_OF_COMMENTER: Actor = { id: 6, role: 'author', scopes: ['read'], apiKeyId: 12 };
const WRITE_KEY_OF_ADMIN: Actor = { id: 3, role: 'admin', scopes: ['read', 'write'], apiKeyId: 13 };

describe('ReadPolicy', () => {
  const readers = {
    anonymous: null,
    other: OTHER,
    author: AUTHOR,
    admin: ADMIN,
    "the author's read key": KEY_OF_AUTHOR,
    "the admin's read key": READ_KEY_OF_ADMIN,
    "the admin's write key": WRITE_KEY_OF_ADMIN,
  };
  const sees: Record<string, boolean> = {
    anonymous: false,
    other: false,
    author: true,
    admin: true,
    "the author's read key": false,
    "the admin's read key": false,
    "the admin's write key": true,
  };

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

  it('a post in review is seen as a draft is (CONTRACT §16): its author, editors and admins', () => {
    const post = { status: 'in_review' as const, authorId: AUTHOR.id };
    const actors = [null, OTHER, AUTHOR, ADMIN, EDITOR, MODERATOR, KEY_OF_AUTHOR, READ_KEY_OF_ADMIN];
    const expected = [false, false, true, true, true, false, false, false];
    expect(actors.map((actor) => policy.canSeePost(actor, post))).toEqual(expected);
    expect(policy.audienceOf(post)).toEqual({ audience: 'restricted', owner: AUTHOR.id });
    // Its reviews, and the events of its review whatever its state: the same readers.
    for (const status of ['in_review', 'published', 'draft'] as const) {
      expect(actors.map((actor) => policy.canSeeReviews(actor, { status, authorId: AUTHOR.id })), status).toEqual(expected);
      const audience = policy.reviewAudienceOf({ status, authorId: AUTHOR.id });
      expect(actors.map((actor) => policy.canSeeAudience(actor, audience)), status).toEqual(expected);
    }
  });

  it('revisions only for the author, editors and admins, even of a published post', () => {
    const post = { status: 'published' as const, authorId: AUTHOR.id };
    expect([null, OTHER, AUTHOR, ADMIN, EDITOR, MODERATOR, KEY_OF_AUTHOR, READ_KEY_OF_ADMIN].map((actor) => policy.canSeeRevisions(actor, post))).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('scopes: public for anonymous, public and own for a user, all for an admin', () => {
    expect(policy.postScope(null)).toEqual({ kind: 'public' });
    expect(policy.postScope(OTHER)).toEqual({ kind: 'public-or-own', ownerId: 2 });
    expect(policy.postScope(ADMIN)).toEqual({ kind: 'all' });
    for (const key of [KEY_OF_AUTHOR, READ_KEY_OF_ADMIN]) expect(policy.postScope(key)).toEqual({ kind: 'public' });
    expect(policy.postScope(WRITE_KEY_OF_ADMIN)).toEqual({ kind: 'all' });
  });

  it('a read key is anonymous to the policy: the same view key, the anonymous reader of audiences', () => {
    for (const key of [KEY_OF_AUTHOR, READ_KEY_OF_ADMIN, READ_KEY_OF_MODERATOR]) {
      expect(policy.reader(key)).toBeNull();
      expect(policy.viewKey(key)).toBe(policy.viewKey(null));
      expect(policy.audienceReader(key)).toEqual({ role: null, userId: null });
      expect(policy.readsAll(key) || policy.moderates(key)).toBe(false);
    }
    expect(policy.audienceReader(WRITE_KEY_OF_ADMIN)).toEqual({ role: 'admin', userId: 3 });
  });

  it('tags: the public ones for anonymous, also those on their own posts for a user, all for editors and admins (and a moderator sees as a user)', () => {
    expect([null, OTHER, MODERATOR, EDITOR, ADMIN].map((actor) => policy.tagScope(actor))).toEqual([
      { kind: 'public' },
      { kind: 'public-or-own', ownerId: OTHER.id },
      { kind: 'public-or-own', ownerId: MODERATOR.id },
      { kind: 'all' },
      { kind: 'all' },
    ]);
  });

  it('a restricted event without an owner reaches only admins', () => {
    const event = { audience: 'restricted' as const, owner: null };
    expect([null, AUTHOR, ADMIN].map((actor) => policy.canSeeAudience(actor, event))).toEqual([false, false, true]);
  });

  describe('comments (CONTRACT §9)', () => {
    const readers: Record<string, Actor | null> = {
      anonymous: null,
      other: OTHER,
      'the commenter': COMMENTER,
      "the commenter's read key": READ_KEY_OF_COMMENTER,
      "the post's author": AUTHOR,
      moderator: MODERATOR,
      "the moderator's read key": READ_KEY_OF_MODERATOR,
      editor: EDITOR,
      admin: ADMIN,
    };
    const keys = { "the commenter's read key": false, "the moderator's read key": false };
    const expected: Record<string, Record<string, boolean>> = {
      approved: { anonymous: true, other: true, 'the commenter': true, "the post's author": true, moderator: true, editor: true, admin: true, ...keys, "the commenter's read key": true, "the moderator's read key": true },
      pending: { anonymous: false, other: false, 'the commenter': true, "the post's author": false, moderator: true, editor: true, admin: true, ...keys },
      spam: { anonymous: false, other: false, 'the commenter': false, "the post's author": false, moderator: true, editor: true, admin: true, ...keys },
      hidden: { anonymous: false, other: false, 'the commenter': false, "the post's author": false, moderator: true, editor: true, admin: true, ...keys },
    };
    for (const postStatus of POST_STATUSES) {
      for (const status of COMMENT_STATUSES) {
        for (const [name, actor] of Object.entries(readers)) {
          const post = { status: postStatus, authorId: AUTHOR.id };
          const comment = { status, authorId: COMMENTER.id };
          const sees = expected[status][name] && policy.canSeePost(actor, post);
          it(`${name} ${sees ? 'sees' : 'does not see'} a ${status} comment on a ${postStatus} post, its events likewise`, () => {
            expect(policy.canSeeComment(actor, comment, post)).toBe(sees);
            expect(policy.canSeeAudience(actor, policy.commentAudienceOf(comment, post))).toBe(sees);
          });
        }
      }
    }

    it('the comment scope: approved for anonymous, approved and own for users, all for moderating roles', () => {
      expect(policy.commentScope(null)).toEqual({ kind: 'approved' });
      expect(policy.commentScope(OTHER)).toEqual({ kind: 'approved-or-own', authorId: OTHER.id });
      for (const actor of [MODERATOR, EDITOR, ADMIN]) expect(policy.commentScope(actor)).toEqual({ kind: 'all' });
    });

    it('readers with the same view share a key; different views never do', () => {
      expect(policy.viewKey(null)).toBe(policy.viewKey(undefined));
      expect(policy.viewKey(EDITOR)).toBe(policy.viewKey(ADMIN));
      const keys = new Set([null, OTHER, COMMENTER, MODERATOR, ADMIN].map((actor) => policy.viewKey(actor)));
      expect(keys.size).toBe(5);
    });
  });

  describe('transitions: each reader gets exactly one event of a change of visibility', () => {
    const readers = [null, OTHER, COMMENTER, AUTHOR, MODERATOR, EDITOR, ADMIN];
    for (const postStatus of POST_STATUSES) {
      for (const from of COMMENT_STATUSES) {
        for (const to of COMMENT_STATUSES) {
          if (from === to) continue;
          it(`${from} → ${to} on a ${postStatus} post`, () => {
            const post = { status: postStatus, authorId: AUTHOR.id };
            const before = policy.commentAudienceOf({ status: from, authorId: COMMENTER.id }, post);
            const after = policy.commentAudienceOf({ status: to, authorId: COMMENTER.id }, post);
            const change = policy.transition(before, after);
            for (const actor of readers) {
              const saw = policy.canSeeComment(actor, { status: from, authorId: COMMENTER.id }, post);
              const sees = policy.canSeeComment(actor, { status: to, authorId: COMMENTER.id }, post);
              const got = (audience?: EventAudience) => !!audience && policy.canSeeAudience(actor, audience);
              const label = actor ? `${actor.role} ${actor.id}` : 'anonymous';
              expect({ label, updated: got(change.updated), created: got(change.created), deleted: got(change.deleted) }).toEqual({
                label,
                updated: saw && sees,
                created: !saw && sees,
                deleted: saw && !sees,
              });
            }
          });
        }
      }
    }
  });

  describe('audienceSql: canSeeAudience as SQL, run on SQLite for every audience and reader', () => {
    const sets: (AudienceSet | null)[] = [null];
    for (const audience of ['public', 'restricted', 'moderated'] as const) for (const owner of [null, 1, 2]) sets.push({ audience, owner });
    const events: EventAudience[] = [];
    for (const set of sets.slice(1) as AudienceSet[]) for (const except of sets) if (except?.audience !== 'public') events.push({ ...set, except });
    const Database = loadSqliteDriver();
    const db = new Database(':memory:');
    db.exec('CREATE TABLE events (id integer PRIMARY KEY, audience varchar(16) NOT NULL, audience_owner integer, audience_except varchar(16), audience_except_owner integer)');
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
    events.forEach((event, index) => insert.run(index, event.audience, event.owner, event.except?.audience ?? null, event.except?.owner ?? null));
    const actors: (Actor | null)[] = [null, ...ROLES.flatMap((role) => [1, 3].map((id) => ({ id, role }))), KEY_OF_AUTHOR, READ_KEY_OF_ADMIN, WRITE_KEY_OF_ADMIN];

    for (const actor of actors) {
      it(`${actor ? `${actor.role} ${actor.id}${actor.scopes ? ` (key: ${actor.scopes.join(', ')})` : ''}` : 'anonymous'}`, () => {
        const params: unknown[] = [];
        const condition = audienceSql(policy.audienceReader(actor), (value) => {
          params.push(value);
          return '?';
        });
        const rows = db.prepare(`SELECT id FROM events${condition ? ` WHERE ${condition}` : ''} ORDER BY id`).all(...params) as { id: number }[];
        const expected = events.flatMap((event, index) => (policy.canSeeAudience(actor, event) ? [index] : []));
        expect(rows.map((row) => row.id)).toEqual(expected);
      });
    }
  });

  describe('audienceBeyondSql: the events of a wider audience than one, run on SQLite', () => {
    const sets: AudienceSet[] = [];
    for (const audience of ['public', 'restricted', 'moderated'] as const) for (const owner of [null, 1, 2]) sets.push({ audience, owner });
    const events: EventAudience[] = [];
    for (const set of sets) for (const except of [null, ...sets]) if (except?.audience !== 'public') events.push({ ...set, except });
    const Database = loadSqliteDriver();
    const db = new Database(':memory:');
    db.exec('CREATE TABLE events (id integer PRIMARY KEY, audience varchar(16) NOT NULL, audience_owner integer, audience_except varchar(16), audience_except_owner integer)');
    const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
    events.forEach((event, index) => insert.run(index, event.audience, event.owner, event.except?.audience ?? null, event.except?.owner ?? null));
    const actors: (Actor | null)[] = [null, ...ROLES.flatMap((role) => [1, 2, 3].map((id) => ({ id, role })))];

    for (const now of sets) {
      it(`wider than ${now.audience} ${now.owner}: an event left out reaches no one outside it but its owner`, () => {
        const condition = audienceBeyondSql(now);
        if (now.audience === 'public') return expect(condition).toBeNull();
        const chosen = new Set((db.prepare(`SELECT id FROM events WHERE ${condition} ORDER BY id`).all() as { id: number }[]).map((row) => row.id));
        events.forEach((event, index) => {
          if (chosen.has(index)) return;
          for (const actor of actors) {
            if (policy.canSeeAudience(actor, event) && !policy.canSeeAudience(actor, now)) expect(actor?.id, JSON.stringify({ event, actor })).toBe(event.owner);
          }
        });
        // Every public event reaches someone outside a non-public audience; none of the same kind is chosen.
        events.forEach((event, index) => {
          if (event.audience === 'public') expect(chosen.has(index)).toBe(true);
          if (event.audience === now.audience) expect(chosen.has(index)).toBe(false);
        });
      });
    }
  });
});
