import { describe, expect, it } from 'vitest';
import { codeOf, newTestService, UNIT_EXECUTOR } from '../../test/support/unit.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { ReadPolicy } from '../auth/read-policy.js';
import type { Actor } from '../common/actor.js';
import { RateLimiter } from '../common/rate-limit/rate-limiter.js';
import { EventPublisher } from '../events/event-publisher.js';
import { Post } from '../posts/post.entity.js';
import { Comment } from './comment.entity.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { CommentsRepository } from './comments.repository.js';

// Admission of a new comment under each mode, the bulk body's rules, and the events of a change: no database.

const writer: Actor = { id: 5, role: 'author' };
const moderator: Actor = { id: 6, role: 'moderator' };
const editor: Actor = { id: 7, role: 'editor' };

function comment(fields: Partial<Comment> = {}): Comment {
  return Object.assign(new Comment(), { id: 11, postId: 7, parentId: null, status: 'pending', body: 'Hi', authorId: writer.id, createdAt: new Date(0), updatedAt: new Date(0), version: 1, ...fields });
}

const post = Object.assign(new Post(), { id: 7, title: 'T', body: 'B', authorId: 1, status: 'published', createdAt: new Date(0), updatedAt: new Date(0), version: 1 });

async function build(env: Record<string, string>) {
  const unit = await newTestService(CommentModerationService, { real: [new AuthorizationPolicy(), new ReadPolicy()], env });
  const repository = unit.mock(CommentsRepository);
  repository.writerStanding.mockResolvedValue({ blocked: false, approved: false });
  return { service: unit.service, repository, limiter: unit.mock(RateLimiter), events: unit.mock(EventPublisher) };
}

describe('CommentModerationService', () => {
  describe('admit', () => {
    it('off: approved at once, with one statement that reads only the blocked flag', async () => {
      const { service, repository } = await build({ COMMENTS_MODERATION: 'off' });
      expect(await service.admit(writer)).toBe('approved');
      expect(repository.writerStanding).toHaveBeenCalledWith(writer.id, false, undefined);
    });

    it('first: pending until one of the writer’s comments is approved (read in the same statement)', async () => {
      const { service, repository } = await build({ COMMENTS_MODERATION: 'first' });
      expect(await service.admit(writer)).toBe('pending');
      expect(repository.writerStanding).toHaveBeenCalledWith(writer.id, true, undefined);
      repository.writerStanding.mockResolvedValue({ blocked: false, approved: true });
      expect(await service.admit(writer)).toBe('approved');
    });

    it('all: pending whatever the writer’s past; moderators and editors never held', async () => {
      const { service, repository } = await build({ COMMENTS_MODERATION: 'all' });
      repository.writerStanding.mockResolvedValue({ blocked: false, approved: true });
      expect(await service.admit(writer)).toBe('pending');
      expect(await service.admit(moderator)).toBe('approved');
      expect(await service.admit(editor)).toBe('approved');
    });

    it('a blocked writer is COMMENTS_BLOCKED; every attempt counts against the flood limit first', async () => {
      const { service, repository, limiter } = await build({ COMMENTS_MODERATION: 'off', RATE_LIMIT_COMMENTS_MAX: '4' });
      repository.writerStanding.mockResolvedValue({ blocked: true, approved: false });
      expect(await codeOf(service.admit(writer))).toBe('COMMENTS_BLOCKED');
      expect(limiter.consume).toHaveBeenCalledWith(`comments:user:${writer.id}`, 4, 60);
    });
  });

  describe('the body of PATCH /comments', () => {
    it('takes 1-100 {id, status} items, each comment once; anything else is 400', async () => {
      const { service } = await build({});
      expect(service.parseItems([{ id: 1, status: 'spam' }])).toEqual([{ id: 1, status: 'spam' }]);
      for (const body of [
        [],
        {},
        [{ id: 1, status: 'spam' }, { id: 1, status: 'hidden' }],
        [{ id: 0, status: 'spam' }],
        [{ id: 1.5, status: 'spam' }],
        [{ id: '1', status: 'spam' }],
        [{ id: 1, status: 'SPAM' }],
        [{ id: 1, status: 'spam', body: 'x' }],
        [null],
        Array.from({ length: 101 }, (_, index) => ({ id: index + 1, status: 'spam' })),
      ]) {
        expect(await codeOf(Promise.resolve().then(() => service.parseItems(body))), JSON.stringify(body).slice(0, 60)).toBe('BAD_USER_INPUT');
      }
    });

    it('checks the caller before the body: 401 anonymous, 403 an author', async () => {
      const { service } = await build({});
      expect(await codeOf(service.moderateBody('not even an array', null))).toBe('UNAUTHENTICATED');
      expect(await codeOf(service.moderateBody('not even an array', writer))).toBe('FORBIDDEN');
    });
  });

  describe('moderate', () => {
    it('is NOT_FOUND for a missing comment and writes nothing', async () => {
      const { service, repository, events } = await build({});
      repository.findManyForUpdate.mockResolvedValue([Object.assign(comment({ id: 1 }), { post })]);
      expect(await codeOf(service.moderate([{ id: 1, status: 'approved' }, { id: 2, status: 'approved' }], moderator))).toBe('NOT_FOUND');
      expect(repository.setStatus).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
    });

    it('groups the changes by status, leaves unchanged ones alone, and records their events', async () => {
      const { service, repository, events } = await build({});
      repository.findManyForUpdate.mockResolvedValue([1, 2, 3].map((id) => Object.assign(comment({ id, status: id === 3 ? 'approved' : 'pending' }), { post })));
      repository.setStatus.mockImplementation(async (ids, status) => ids.map((id) => comment({ id, status, version: 2 })));
      const result = await service.moderate(
        [
          { id: 2, status: 'approved' },
          { id: 3, status: 'approved' },
          { id: 1, status: 'approved' },
        ],
        moderator,
      );
      expect(result.map((c) => [c.id, c.status])).toEqual([
        [2, 'approved'],
        [3, 'approved'],
        [1, 'approved'],
      ]);
      expect(repository.setStatus).toHaveBeenCalledTimes(1);
      expect(repository.setStatus).toHaveBeenCalledWith([2, 1], 'approved', UNIT_EXECUTOR);
      expect(events.record.mock.calls[0].slice(1).map((recorded) => (recorded as { name: string }).name)).toEqual(['commentUpdated', 'commentCreated', 'commentUpdated', 'commentCreated']);
      expect(events.committed).toHaveBeenCalled();
    });
  });

  describe('changeEvents', () => {
    it('an approval: COMMENT_UPDATED to its author and moderators, COMMENT_CREATED to everyone else', async () => {
      const { service } = await build({});
      const events = service.changeEvents(comment(), comment({ status: 'approved' }), post);
      expect(events.map((e) => [e.name, e.audience])).toEqual([
        ['commentUpdated', { audience: 'moderated', owner: writer.id }],
        ['commentCreated', { audience: 'public', owner: null, except: { audience: 'moderated', owner: writer.id } }],
      ]);
    });

    it('spam after approval: COMMENT_UPDATED to moderators, COMMENT_DELETED (ids only) to everyone else', async () => {
      const { service } = await build({});
      const events = service.changeEvents(comment({ status: 'approved' }), comment({ status: 'spam' }), post);
      expect(events.map((e) => [e.name, e.audience])).toEqual([
        ['commentUpdated', { audience: 'moderated', owner: null }],
        ['commentDeleted', { audience: 'public', owner: null, except: { audience: 'moderated', owner: null } }],
      ]);
      expect(events[1].payload).toEqual({ id: 11, postId: 7, authorId: writer.id });
    });

    it('a change of text only: one COMMENT_UPDATED to those who see it', async () => {
      const { service } = await build({});
      const events = service.changeEvents(comment(), comment({ body: 'Changed' }), post);
      expect(events.map((e) => [e.name, e.audience])).toEqual([['commentUpdated', { audience: 'moderated', owner: writer.id }]]);
    });
  });
});
