import { Injectable } from '@nestjs/common';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { toDate } from '../common/persistence/entity-table.js';
import type { EventRefs } from '../common/resource/resource-definition.js';
import type { EventPosition } from './event-cursor.js';

/** An event as the outbox keeps it. */
export interface StoredEvent extends EventPosition {
  /** `POST_CREATED`, … */
  type: string;
  occurredAt: Date;
  postId: number | null;
  commentId: number | null;
  authorId: number;
  /** The resource as the write left it (JSON); null for deletions. */
  resource: string | null;
  /** The instance that wrote it (null: unknown). */
  origin: string | null;
}

export interface NewEvent extends EventRefs {
  type: string;
  occurredAt: Date;
  resource: string | null;
  origin: string;
}

/** Which events a read returns besides "after this position". */
export interface EventFilter {
  types?: readonly string[];
  postId?: number;
  authorId?: number;
}

interface Row {
  id: number | string;
  tx: number | string;
  type: string;
  occurred_at: Date | string;
  post_id: number | null;
  comment_id: number | null;
  author_id: number;
  resource: string | null;
  origin: string | null;
}

const COLUMNS = 'id, tx, type, occurred_at, post_id, comment_id, author_id, resource, origin';
const BATCH = 100;

/**
 * The `events` table (the outbox): written in the transaction of each write, read in (tx, id)
 * order. A read sees an event only once every transaction that began before the event's own
 * has ended (PostgreSQL: a transaction id below the snapshot's xmin), so the log is read in the
 * order transactions commit and a slow transaction's events are never skipped. On SQLite, whose
 * writes are queued one at a time on one shared connection, reads wait their turn too, so they
 * never see a transaction that is still open.
 */
@Injectable()
export class OutboxRepository {
  private readonly visible: string;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: TransactionRunner,
  ) {
    this.visible = sql.sqlite ? '1 = 1' : 'tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';
  }

  /** Records events in the write's transaction, in the order given. */
  async append(executor: Executor, events: readonly NewEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += BATCH) {
      const chunk = events.slice(start, start + BATCH);
      const values = chunk.map((_, index) => `(${this.sql.placeholders(7, index * 7 + 1)})`).join(', ');
      const params = chunk.flatMap((event) => [
        event.type,
        this.sql.timestamp(event.occurredAt),
        event.postId ?? null,
        event.commentId ?? null,
        event.authorId,
        event.resource,
        event.origin,
      ]);
      await this.sql.rows(
        this.sql.statement(`INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource, origin) VALUES ${values}`),
        params,
        executor,
      );
    }
  }

  /** Up to `limit` readable events after `position`, oldest first, matching `filter`. */
  after(position: EventPosition, limit: number, filter: EventFilter = {}): Promise<StoredEvent[]> {
    // An index range scan on (tx, id) either way: SQLite's single writer leaves tx at 0, so the id
    // alone orders its log (an OR of the two columns would make it read the whole table).
    const params: unknown[] = this.sql.sqlite ? [position.id] : [position.tx, position.id];
    return this.select(this.sql.sqlite ? 'id > $1' : '(tx, id) > ($1, $2)', params, limit, filter);
  }

  /** The readable event at `position` when it matches `filter` (the same filter as `after`'s): none or one. */
  at(position: EventPosition, filter: EventFilter = {}): Promise<StoredEvent[]> {
    return this.select('id = $1 AND tx = $2', [position.id, position.tx], 1, filter);
  }

  /** The readable events `where` says, matching `filter`, oldest first: the one place that applies a reader's filter. */
  private select(where: string, params: unknown[], limit: number, filter: EventFilter): Promise<StoredEvent[]> {
    const conditions = [where, this.visible];
    if (filter.types && filter.types.length > 0) {
      conditions.push(`type IN (${this.sql.placeholders(filter.types.length, params.length + 1)})`);
      params.push(...filter.types);
    }
    if (filter.postId !== undefined) conditions.push(`post_id = $${params.push(filter.postId)}`);
    if (filter.authorId !== undefined) conditions.push(`author_id = $${params.push(filter.authorId)}`);
    params.push(limit);
    const order = this.sql.sqlite ? 'id' : 'tx, id';
    return this.read(this.sql.statement(`SELECT ${COLUMNS} FROM events WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT $${params.length}`), params);
  }

  /** The position of the newest readable event (the start when there is none). */
  async latest(): Promise<EventPosition> {
    const order = this.sql.sqlite ? 'id DESC' : 'tx DESC, id DESC';
    const [row] = await this.read(this.sql.statement(`SELECT ${COLUMNS} FROM events WHERE ${this.visible} ORDER BY ${order} LIMIT 1`), []);
    return row ? { tx: row.tx, id: row.id } : { tx: 0, id: 0 };
  }

  /** The position of the oldest event kept, or null when the log is empty. */
  async oldest(): Promise<EventPosition | null> {
    const [row] = await this.read(this.sql.statement(`SELECT ${COLUMNS} FROM events ORDER BY ${this.sql.sqlite ? 'id' : 'tx, id'} LIMIT 1`), []);
    return row ? { tx: row.tx, id: row.id } : null;
  }

  /** PostgreSQL: sends `payload` to every session listening on `channel`. */
  async notify(channel: string, payload: string): Promise<void> {
    await this.sql.rows('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  private async read(statement: string, params: readonly unknown[]): Promise<StoredEvent[]> {
    const rows = await this.transactions.single(() => this.sql.rows<Row>(statement, params));
    return rows.map((row) => ({
      id: Number(row.id),
      tx: Number(row.tx),
      type: row.type,
      occurredAt: toDate(row.occurred_at),
      postId: row.post_id === null ? null : Number(row.post_id),
      commentId: row.comment_id === null ? null : Number(row.comment_id),
      authorId: Number(row.author_id),
      resource: row.resource,
      origin: row.origin,
    }));
  }
}
