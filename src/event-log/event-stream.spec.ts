import { PUBLIC_AUDIENCE } from '../auth/read-policy.js';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/errors/domain-error.js';
import { encodeEventCursor, type EventPosition, isAfter } from '../events/event-cursor.js';
import type { LoggedEvent } from '../events/event-relay.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';
import type { FeedEvent, FeedFilter } from './feed-event.js';
import { matchesFilter } from './feed-event.js';

/** A log in memory with a relay: `write` appends and publishes; reads can be held to let writes happen meanwhile. */
class FakeLog {
  readonly events: LoggedEvent[] = [];
  readonly listeners = new Set<(event: LoggedEvent) => void>();
  reads = 0;
  /** The limit of each read, in order. */
  readonly limits: number[] = [];
  /** Called at the start of each read, before it looks at the log (a write here is not in that read). */
  duringRead?: (read: number) => void;

  write(type = 'POST_CREATED', authorId = 1, size = 0): LoggedEvent {
    const id = this.events.length + 1;
    const event = {
      id,
      tx: 0,
      cursor: encodeEventCursor({ tx: 0, id }),
      type,
      occurredAt: new Date(),
      refs: { postId: id, commentId: null, authorId },
      resource: size > 0 ? 'x'.repeat(size) : null,
      origin: null,
      audience: PUBLIC_AUDIENCE,
      traceParent: null,
      name: 'postCreated',
      payload: {},
    } satisfies LoggedEvent;
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  stream(options: Partial<EventStreamOptions> & { after: EventPosition }): EventStream {
    return new EventStream(
      {
        listen: (onEvent) => {
          this.listeners.add(onEvent);
          return () => this.listeners.delete(onEvent);
        },
        read: async (position, limit, filter) => {
          const snapshot = this.events.length;
          this.reads += 1;
          this.limits.push(limit);
          this.duringRead?.(this.reads);
          await Promise.resolve();
          return this.events
            .slice(0, snapshot)
            .filter((event) => isAfter(event, position) && matchesFilter(filter, event))
            .slice(0, limit)
            .map(feed);
        },
        live: feed,
      },
      { replay: true, filter: {}, pageSize: 3, bufferLimit: 4, ...options },
    );
  }
}

const feed = (event: LoggedEvent): FeedEvent => ({
  position: { tx: event.tx, id: event.id },
  cursor: event.cursor,
  type: event.type,
  occurredAt: event.occurredAt,
  refs: event.refs,
  kind: 'post',
  resource: null,
  size: event.resource?.length ?? 0,
});

async function take(stream: EventStream, count: number): Promise<number[]> {
  const ids: number[] = [];
  while (ids.length < count) {
    const result = await stream.next();
    if (result.done) break;
    if (result.value instanceof Error) throw result.value;
    ids.push(result.value.position.id);
  }
  return ids;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('EventStream', () => {
  it('replays the log after the position in pages, then goes on live, with no gap and no duplicate at the switch', async () => {
    const log = new FakeLog();
    for (let index = 0; index < 7; index += 1) log.write();
    // Every read sees a new event arrive live while it runs (it is not in that read's snapshot).
    log.duringRead = () => void log.write();
    const stream = log.stream({ after: { tx: 0, id: 2 } });
    const first = await take(stream, 8);
    log.duringRead = undefined;
    log.write();
    log.write();
    expect([...first, ...(await take(stream, 2))]).toEqual(range(3, log.events.length));
    await stream.return();
  });

  it('drops its live buffer when it overflows during a replay and reads the dropped events back from the log', async () => {
    const log = new FakeLog();
    for (let index = 0; index < 5; index += 1) log.write();
    // The first reads see bursts of live events, more than the buffer holds.
    log.duringRead = (read) => {
      if (read <= 3) for (let index = 0; index < 6; index += 1) log.write();
    };
    // Pages larger than what each read finds: every read comes back short, while the buffer overflowed.
    const stream = log.stream({ after: { tx: 0, id: 0 }, pageSize: 10 });
    const total = 5 + 3 * 6;
    expect(await take(stream, total)).toEqual(range(1, total));
    log.duringRead = undefined;
    log.write();
    expect(await take(stream, 1)).toEqual([total + 1]);
    await stream.return();
  });

  it('a slow subscriber whose live buffer overflows goes back to the log and loses nothing', async () => {
    const log = new FakeLog();
    const stream = log.stream({ after: { tx: 0, id: 0 }, replay: false });
    log.write();
    expect(await take(stream, 1)).toEqual([1]);
    for (let index = 0; index < 10; index += 1) log.write();
    const readsBefore = log.reads;
    expect(await take(stream, 10)).toEqual(range(2, 11));
    expect(log.reads).toBeGreaterThan(readsBefore);
    await stream.return();
  });

  it('reads pages of large events fewer at a time: about pageBytes a page, from a first page of one', async () => {
    const log = new FakeLog();
    for (let index = 0; index < 3; index += 1) log.write('POST_CREATED', 1, 10);
    for (let index = 0; index < 10; index += 1) log.write('POST_CREATED', 1, 100);
    const stream = log.stream({ after: { tx: 0, id: 0 }, pageSize: 5, pageBytes: 250 });
    expect(await take(stream, 13)).toEqual(range(1, 13));
    // 1 event (10 bytes) → 5 (the most a page holds) → 100-byte events: 2 a page, until one comes back short.
    expect(log.limits).toEqual([1, 5, 2, 2, 2, 2]);
    log.write('POST_CREATED', 1, 100);
    expect(await take(stream, 1)).toEqual([14]);
    expect(log.reads).toBe(6);
    await stream.return();
  });

  it('keeps to its filter, in the replay and live', async () => {
    const log = new FakeLog();
    log.write('POST_CREATED', 1);
    log.write('COMMENT_CREATED', 2);
    log.write('COMMENT_CREATED', 1);
    const filter: FeedFilter = { types: ['COMMENT_CREATED'], refs: { authorId: 1 } };
    const stream = log.stream({ after: { tx: 0, id: 0 }, filter });
    expect(await take(stream, 1)).toEqual([3]);
    log.write('COMMENT_CREATED', 2);
    log.write('POST_CREATED', 1);
    log.write('COMMENT_CREATED', 1);
    expect(await take(stream, 1)).toEqual([6]);
    await stream.return();
  });

  it('without a replay, starts after the position it is given', async () => {
    const log = new FakeLog();
    log.write();
    log.write();
    const stream = log.stream({ after: { tx: 0, id: 2 }, replay: false });
    log.write();
    expect(await take(stream, 1)).toEqual([3]);
    expect(log.reads).toBe(0);
    await stream.return();
  });

  it('return() ends a next() that is waiting for a live event, and stops listening', async () => {
    const log = new FakeLog();
    const stream = log.stream({ after: { tx: 0, id: 0 }, replay: false });
    const pending = stream.next();
    await stream.return();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(log.listeners.size).toBe(0);
  });

  it('a failed read is yielded as the error, then the stream ends', async () => {
    const log = new FakeLog();
    log.write();
    const expired = new DomainError('CURSOR_EXPIRED', 'pruned');
    const stream = new EventStream(
      { listen: () => () => undefined, read: () => Promise.reject(expired), live: feed },
      { after: { tx: 0, id: 0 }, replay: true, filter: {}, pageSize: 3, bufferLimit: 4 },
    );
    expect(await stream.next()).toEqual({ done: false, value: expired });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
