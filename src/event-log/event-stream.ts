import { type EventPosition, isAfter } from '../events/event-cursor.js';
import type { LoggedEvent } from '../events/event-relay.js';
import { type FeedEvent, type FeedFilter, matchesFilter } from './feed-event.js';

export interface EventStreamSource {
  /** Starts hearing live events (synchronously); returns how to stop. */
  listen(onEvent: (event: LoggedEvent) => void): () => void;
  /** Up to `limit` events after `position` from the log (refusing a position pruning has passed). */
  read(position: EventPosition, limit: number, filter: FeedFilter): Promise<FeedEvent[]>;
  /** The feed's view of a live event (one object per event, shared by every subscriber). */
  live(event: LoggedEvent): FeedEvent | null;
}

export interface EventStreamOptions {
  /** Where the stream starts: it yields the events after this position. */
  after: EventPosition;
  /** Whether to read the log from `after` first (a resume), or to start live. */
  replay: boolean;
  filter: FeedFilter;
  /** Events read from the log at a time, at most. */
  pageSize: number;
  /**
   * What one page may hold, roughly (the events' stored size in bytes): a page holds as many
   * events as fit at the size of the largest of the page before, at least one. The first page is
   * one event. Unset: always `pageSize` events.
   */
  pageBytes?: number;
  /** Live events kept while the log is being read (or while the subscriber is slow). */
  bufferLimit: number;
}

type Item = FeedEvent | Error;

/**
 * One subscriber's stream of the event log: the events after a position, in log order, each once,
 * first from the database, then live.
 *
 * It listens to live events before it reads anything, and keeps them while it reads the log page
 * by page; once a page comes back short (the log is read up to at least what was live when that
 * read began), it goes on with what it kept and then with what arrives, skipping whatever is not
 * after the last event it yielded. So nothing falls between the replay and the live events, and
 * nothing comes twice.
 *
 * Memory is bounded: a page (at most `pageSize` events, and about `pageBytes`), and at most
 * `bufferLimit` live events (shared with every other subscriber). When more arrive than that
 * (a long replay, a slow subscriber), the kept events are dropped and the stream reads the log
 * again from where it is; it goes live only after a page read that began after the last drop
 * came back short, so a dropped event is always read back from the log.
 *
 * A failure (a cursor pruning has passed while reading, the database away) is yielded as an Error
 * (the subscription field then answers that error) and ends the stream.
 */
export class EventStream implements AsyncIterableIterator<Item> {
  private last: EventPosition;
  private replaying: boolean;
  private buffer: LoggedEvent[] = [];
  /** Counts the drops of the buffer. */
  private drops = 0;
  private page: FeedEvent[] = [];
  /** Events the next read asks for. */
  private limit: number;
  private closed = false;
  private waiting?: () => void;
  private readonly stop: () => void;

  constructor(
    private readonly source: EventStreamSource,
    private readonly options: EventStreamOptions,
  ) {
    this.last = options.after;
    this.replaying = options.replay;
    this.limit = options.pageBytes === undefined ? options.pageSize : 1;
    this.stop = source.listen((event) => this.heard(event));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Item>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      const fromPage = this.page.shift();
      if (fromPage) return { done: false, value: fromPage };
      if (this.replaying) {
        const failure = await this.readPage();
        if (failure) {
          this.end();
          return { done: false, value: failure };
        }
        continue;
      }
      const event = this.buffer.shift();
      if (event) {
        const position = { tx: event.tx, id: event.id };
        if (!isAfter(position, this.last)) continue;
        const item = this.source.live(event);
        if (!item) continue;
        this.last = position;
        return { done: false, value: item };
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  return(): Promise<IteratorResult<Item>> {
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  throw(error?: unknown): Promise<IteratorResult<Item>> {
    this.end();
    return Promise.reject(error);
  }

  /** Reads the next page of the log; goes live when it is the last. */
  private async readPage(): Promise<Error | undefined> {
    const drops = this.drops;
    const limit = this.limit;
    let page: FeedEvent[];
    try {
      page = await this.source.read(this.last, limit, this.options.filter);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    if (this.closed) return undefined;
    if (page.length > 0) this.last = page[page.length - 1].position;
    this.page = page;
    if (page.length < limit && drops === this.drops) this.replaying = false;
    const { pageBytes, pageSize } = this.options;
    if (pageBytes !== undefined && page.length > 0) {
      const largest = Math.max(1, ...page.map((event) => event.size));
      this.limit = Math.min(pageSize, Math.max(1, Math.floor(pageBytes / largest)));
    }
    return undefined;
  }

  private heard(event: LoggedEvent): void {
    if (this.closed || !matchesFilter(this.options.filter, event)) return;
    if (this.buffer.length >= this.options.bufferLimit) {
      this.buffer = [];
      this.drops += 1;
      this.replaying = true;
    } else {
      this.buffer.push(event);
    }
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    this.page = [];
    this.stop();
    this.wake();
  }
}
