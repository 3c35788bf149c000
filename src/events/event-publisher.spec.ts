import { PubSub } from 'graphql-subscriptions';
import { describe, expect, it, vi } from 'vitest';
import { newTestService } from '../../test/support/unit.js';
import { EventPublisher, PUB_SUB } from './event-publisher.js';
import { OutboxRepository } from './outbox.repository.js';
import { sql } from '../common/persistence/sql-template.js';

const executor = { query: vi.fn() };

async function setup() {
  const unit = await newTestService(EventPublisher, { providers: [{ provide: PUB_SUB, useValue: new PubSub() }] });
  const outbox = unit.mock(OutboxRepository);
  outbox.erasedEvents.mockImplementation((scope) => sql`SELECT id FROM events WHERE … ${scope}`);
  outbox.erase.mockResolvedValue(undefined);
  const eraser = { eraseContent: vi.fn().mockResolvedValue(undefined) };
  unit.service.addEraser(eraser);
  return { publisher: unit.service, outbox, eraser };
}

describe('EventPublisher.eraseContent', () => {
  it('erases the copies kept elsewhere first (found through the events), then the events, in the caller’s transaction', async () => {
    const { publisher, outbox, eraser } = await setup();
    const order: string[] = [];
    eraser.eraseContent.mockImplementation(async () => void order.push('copies'));
    outbox.erase.mockImplementation(async () => void order.push('events'));
    await publisher.eraseContent(executor, { commentId: [7] });
    expect(order).toEqual(['copies', 'events']);
    expect(eraser.eraseContent).toHaveBeenCalledWith(executor, sql`SELECT id FROM events WHERE … ${{ commentId: [7] }}`);
    expect(outbox.erase).toHaveBeenCalledWith(executor, { commentId: [7] }, undefined);
  });

  it('does nothing for a scope that names nothing', async () => {
    const { publisher, outbox, eraser } = await setup();
    outbox.erasedEvents.mockReturnValue(null);
    await publisher.eraseContent(executor, { postId: [] });
    expect(eraser.eraseContent).not.toHaveBeenCalled();
    expect(outbox.erase).not.toHaveBeenCalled();
  });

  it('names at most a thousand ids a statement: a user with thousands of posts is erased a thousand at a time', async () => {
    const { publisher, outbox } = await setup();
    const postIds = Array.from({ length: 2500 }, (_, index) => index + 1);
    await publisher.eraseContent(executor, { authorId: [3], postId: postIds });
    expect(outbox.erase.mock.calls.map(([, scope]) => scope)).toEqual([
      { authorId: [3] },
      { postId: postIds.slice(0, 1000) },
      { postId: postIds.slice(1000, 2000) },
      { postId: postIds.slice(2000) },
    ]);
  });
});

describe('EventPublisher.withdrawContent', () => {
  it('erases, copies first, only what reaches beyond the audience the content has now', async () => {
    const { publisher, outbox, eraser } = await setup();
    const now = { audience: 'restricted' as const, owner: 2 };
    await publisher.withdrawContent(executor, { postId: [7] }, now);
    expect(outbox.erasedEvents).toHaveBeenCalledWith({ postId: [7] }, now);
    expect(eraser.eraseContent).toHaveBeenCalledTimes(1);
    expect(outbox.erase).toHaveBeenCalledWith(executor, { postId: [7] }, now);
  });

  it('does nothing for content that is public now', async () => {
    const { publisher, outbox, eraser } = await setup();
    await publisher.withdrawContent(executor, { postId: [7] }, { audience: 'public', owner: null });
    expect(eraser.eraseContent).not.toHaveBeenCalled();
    expect(outbox.erase).not.toHaveBeenCalled();
  });
});
