import { ReadPolicy } from '../auth/read-policy.js';
import { PUBLIC_AUDIENCE } from '../auth/read-policy.js';
import { PubSub } from 'graphql-subscriptions';
import { beforeEach, describe, expect, it, type Mocked } from 'vitest';
import { codeOf, newTestService } from '../../test/support/unit.js';
import type { DomainError } from '../common/errors/domain-error.js';
import { encodeEventCursor, START } from '../events/event-cursor.js';
import { LOCAL_EVENTS } from '../events/event-relay.js';
import { OutboxRepository, type StoredEvent } from '../events/outbox.repository.js';
import { EventLogRepository } from './event-log.repository.js';
import { EventLogService } from './event-log.service.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { RESOURCES } from '../resources.js';

// The event feed's rules: type lists, pages and their cursors, and cursors that pruning passed.

const stored = (id: number): StoredEvent => ({
  tx: 0, id, type: 'POST_DELETED', occurredAt: new Date(0), refs: { postId: id, commentId: null, authorId: 2 }, resource: null, origin: null, audience: PUBLIC_AUDIENCE, traceParent: null,
});

describe('EventLogService', () => {
  let outbox: Mocked<OutboxRepository>;
  let pruning: Mocked<EventLogRepository>;
  let service: EventLogService;

  beforeEach(async () => {
    const unit = await newTestService(EventLogService, { providers: [{ provide: LOCAL_EVENTS, useValue: new PubSub() }], real: [new ReadPolicy(), new ResourceCatalog(RESOURCES)] });
    ({ service } = unit);
    outbox = unit.mock(OutboxRepository);
    pruning = unit.mock(EventLogRepository);
    outbox.after.mockResolvedValue([]);
    outbox.latest.mockResolvedValue({ tx: 0, id: 30 });
    pruning.pruned.mockResolvedValue(START);
  });

  describe('parseTypes', () => {
    it('reads a comma-separated list of event types, spaces allowed; none given is every type', () => {
      expect(service.parseTypes('POST_CREATED, COMMENT_DELETED')).toEqual(['POST_CREATED', 'COMMENT_DELETED']);
      expect(service.parseTypes(undefined)).toBeUndefined();
    });

    it('refuses an unknown type as bad input on the field it came in', () => {
      const error = (() => {
        try {
          service.parseTypes('POST_CREATED,POST_REVIVED', 'filter.types');
        } catch (thrown) {
          return thrown as DomainError;
        }
      })();
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'filter.types' }] });
      expect(error?.message).toContain('POST_REVIVED');
    });
  });

  describe('page', () => {
    it('reads one event more than asked, to know whether a next page exists, and points its cursor at the last one given', async () => {
      outbox.after.mockResolvedValueOnce([stored(1), stored(2), stored(3)]);
      const page = await service.page(undefined, 2, { types: ['POST_DELETED'] }, null);
      expect(outbox.after).toHaveBeenCalledWith(START, 3, { types: ['POST_DELETED'], reader: expect.objectContaining({ role: null, userId: null }) });
      expect(page.events.map((event) => event.position.id)).toEqual([1, 2]);
      expect(page.next).toBe(encodeEventCursor({ tx: 0, id: 2 }));
      outbox.after.mockResolvedValueOnce([stored(3)]);
      expect((await service.page(page.next ?? undefined, 2, {}, null)).next).toBeNull();
      expect(outbox.after).toHaveBeenLastCalledWith({ tx: 0, id: 2 }, 3, { reader: expect.objectContaining({ role: null, userId: null }) });
    });

    it('refuses a cursor it did not issue (400)', async () => {
      expect(await codeOf(service.page('not-a-cursor', 2, {}, null))).toBe('BAD_USER_INPUT');
      expect(outbox.after).not.toHaveBeenCalled();
    });

    it('is CURSOR_EXPIRED when pruning has passed the cursor, looked at after the read; the start never expires', async () => {
      pruning.pruned.mockResolvedValue({ tx: 0, id: 10 });
      expect(await codeOf(service.page(encodeEventCursor({ tx: 0, id: 9 }), 2, {}, null))).toBe('CURSOR_EXPIRED');
      expect(outbox.after.mock.invocationCallOrder[0]).toBeLessThan(pruning.pruned.mock.invocationCallOrder[0]);
      expect(await codeOf(service.page(encodeEventCursor({ tx: 0, id: 10 }), 2, {}, null))).toBe('resolved');
      expect(await codeOf(service.page(undefined, 2, {}, null))).toBe('resolved');
    });
  });

  describe('stream', () => {
    it('refuses an expired cursor at once, before any event', async () => {
      pruning.pruned.mockResolvedValue({ tx: 0, id: 10 });
      expect(await codeOf(service.stream(encodeEventCursor({ tx: 0, id: 9 }), {}, null))).toBe('CURSOR_EXPIRED');
      expect(outbox.after).not.toHaveBeenCalled();
    });

    it('without a cursor starts at the head of the log: nothing before it is replayed', async () => {
      const firstRead = new Promise((resolve) => outbox.after.mockImplementationOnce(async (...args) => (resolve(args), [])));
      const stream = await service.stream(null, {}, null);
      const first = stream.next();
      expect(await firstRead).toEqual([{ tx: 0, id: 30 }, expect.any(Number), { reader: expect.objectContaining({ role: null, userId: null }) }]);
      await stream.return?.();
      await first;
    });
  });
});
