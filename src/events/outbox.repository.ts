import { ANY_TAG, recordReadTags } from '../common/cache/read-tags.js';
import { Injectable } from '@nestjs/common';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { Fragment, sql } from '../common/persistence/sql-template.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { toDate } from '../common/persistence/entity-table.js';
import { ANONYMOUS_READER, type Audience, type AudienceReader, audienceBeyondSql, type AudienceSet, audienceSql, type EventAudience } from '../auth/read-policy.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';
import type { EventRefColumn, EventRefs } from '../common/resource/resource-definition.js';
import type { EventPosition } from './event-cursor.js';

/** An event as the outbox keeps it. */
export interface StoredEvent extends EventPosition {
  /** `POST_CREATED`, … */
  type: string;
  occurredAt: Date;
  /** Every ref of the log (ResourceCatalog.eventRefs), null where the event has none. */
  refs: EventRefs;
  /** The resource as the write left it (JSON); null for deletions. */
  resource: string | null;
  /** The instance that wrote it (null: unknown). */
  origin: string | null;
  /** Who may read it (ReadPolicy.canSeeAudience). */
  audience: EventAudience;
  /** The W3C `traceparent` of the write that recorded it (null: none, or tracing off): what the spans of its delivery link to. */
  traceParent: string | null;
}

export interface NewEvent {
  type: string;
  occurredAt: Date;
  /** The ids it carries, by ref (a ref left out is NULL). */
  refs: EventRefs;
  resource: string | null;
  origin: string;
  audience: EventAudience;
  traceParent: string | null;
}

/** A new row's event as an INSERT made from that row: its ids (by ref) and resource are SQL expressions of it. */
export interface EventFromRow {
  type: string;
  occurredAt: Date;
  origin: string;
  refs: Readonly<Record<string, string>>;
  /** An expression over the new row (its JSON), or the statement's own fragment of it. */
  resource: string | Fragment;
  audience: EventAudience;
  traceParent: string | null;
}

/** Whose eyes a read is for: ReadPolicy.canSeeAudience, in SQL (audienceSql). */
export type EventReader = AudienceReader;

/** audienceSql's condition as a fragment: each value it binds is a parameter where it binds it. */
function audienceCondition(reader: AudienceReader): Fragment | null {
  const values: unknown[] = [];
  const text = audienceSql(reader, (value) => (values.push(value), '\u0000'));
  return text === null ? null : new Fragment(text.split('\u0000'), values);
}

/** The reader who sees public events only: anonymous readers, and webhooks (whoever listens at their URL). */
export const PUBLIC_READER: EventReader = ANONYMOUS_READER;

/** Which events a read returns besides "after this position". */
export interface EventFilter {
  types?: readonly string[];
  /** Only the events with these ids (ref → id). */
  refs?: Readonly<Record<string, number>>;
  /** Unset: every event (the relay, which filters per subscriber). */
  reader?: EventReader;
}

/** The events a content erasure reaches (EventPublisher.eraseContent): those with any of these ids, by ref. */
export type ErasureScope = Readonly<Record<string, readonly number[] | undefined>>;

type Row = Record<string, unknown> & {
  id: number | string;
  tx: number | string;
  type: string;
  occurred_at: Date | string;
  resource: string | null;
  origin: string | null;
  audience: string;
  audience_owner: number | string | null;
  audience_except: string | null;
  audience_except_owner: number | string | null;
  trace_parent: string | null;
};

/** The statements' parts that name the refs' columns, built once for the refs the resources declare. */
interface Layout {
  refs: readonly EventRefColumn[];
  columns: Map<string, Fragment>;
  select: Fragment;
  insert: Fragment;
}

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
  private shape?: Layout;
  /** Dialect.eventsVisible; null where every committed event is readable. */
  private readonly visible: Fragment | null;
  private readonly oldestFirst: Fragment;
  private readonly newestFirst: Fragment;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: TransactionRunner,
    private readonly catalog: ResourceCatalog,
  ) {
    const { dialect } = sql;
    this.visible = dialect.eventsVisible === null ? null : new Fragment([dialect.eventsVisible], [], true);
    this.oldestFirst = new Fragment([dialect.eventOrder('asc')], [], true);
    this.newestFirst = new Fragment([dialect.eventOrder('desc')], [], true);
  }

  /** Records events in the write's transaction, in the order given; returns them as the log now holds them. */
  async append(executor: Executor, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const { refs, insert } = this.layout;
    const stored: StoredEvent[] = [];
    for (let start = 0; start < events.length; start += BATCH) {
      const chunk = events.slice(start, start + BATCH);
      const rows = chunk.map((event) => {
        const values = [
          event.type,
          this.sql.timestamp(event.occurredAt),
          ...refs.map(({ ref }) => event.refs[ref] ?? null),
          event.resource,
          event.origin,
          event.audience.audience,
          event.audience.owner,
          event.audience.except?.audience ?? null,
          event.audience.except?.owner ?? null,
          event.traceParent,
        ];
        return sql`(${sql.in(values)})`;
      });
      const written = await this.sql.rows<{ id: number | string; tx: number | string }>(sql`${insert} VALUES ${sql.join(rows)} RETURNING id, tx`, executor);
      // RETURNING gives no order for a multi-row INSERT: the ids were given in the rows' order.
      const positions = written.map((row) => ({ id: Number(row.id), tx: Number(row.tx) })).sort((a, b) => a.id - b.id);
      chunk.forEach((event, index) => stored.push({ ...positions[index], ...this.asStored(event) }));
    }
    return stored;
  }

  /** A new event as a read of the log returns it (every ref of the log, null where it has none), without its position. */
  private asStored(event: NewEvent): Omit<StoredEvent, 'id' | 'tx'> {
    return {
      type: event.type,
      occurredAt: event.occurredAt,
      refs: Object.fromEntries(this.layout.refs.map(({ ref }) => [ref, event.refs[ref] ?? null])),
      resource: event.resource,
      origin: event.origin,
      audience: {
        audience: event.audience.audience,
        owner: event.audience.owner,
        except: event.audience.except ? { audience: event.audience.except.audience, owner: event.audience.except.owner } : null,
      },
      traceParent: event.traceParent,
    };
  }

  /**
   * The INSERT of a new row's event, made from that row in the same write (`source` holds it;
   * see ResourceRepository.insertRecorded), its parameters numbered from `next`. Sends nothing.
   */
  insertFrom(source: Fragment, event: EventFromRow): Fragment {
    const refs = sql.raw(this.layout.refs.map(({ ref }) => event.refs[ref] ?? 'NULL').join(', '));
    const { audience, owner, except } = event.audience;
    return sql`${this.layout.insert} SELECT ${event.type}, ${this.sql.timestamp(event.occurredAt)}, ${refs}, ${typeof event.resource === 'string' ? sql.raw(event.resource) : event.resource}, ${event.origin}, ${audience}, ${owner}, ${except?.audience ?? null}, ${except?.owner ?? null}, ${event.traceParent} FROM ${source}`;
  }

  /** Up to `limit` readable events after `position`, oldest first, matching `filter`. */
  after(position: EventPosition, limit: number, filter: EventFilter = {}): Promise<StoredEvent[]> {
    return this.select(this.sql.dialect.eventsAfter(position), limit, filter);
  }

  /** The readable event at `position` when it matches `filter` (the same filter as `after`'s): none or one. */
  at(position: EventPosition, filter: EventFilter = {}): Promise<StoredEvent[]> {
    return this.select(sql`id = ${position.id} AND tx = ${position.tx}`, 1, filter);
  }

  /** The readable events `where` says, matching `filter`, oldest first: the one place that applies a reader's filter. */
  private select(where: Fragment, limit: number, filter: EventFilter): Promise<StoredEvent[]> {
    const conditions = [where];
    if (this.visible) conditions.push(this.visible);
    if (filter.types && filter.types.length > 0) conditions.push(sql`type IN (${sql.in(filter.types)})`);
    for (const [ref, id] of Object.entries(filter.refs ?? {})) conditions.push(sql`${this.column(ref)} = ${id}`);
    // Hidden events are skipped here, so a page is as full as the log allows and its last event
    // (the next cursor) is one the reader saw; a hidden event never needs a cursor of its own.
    const audience = filter.reader && audienceCondition(filter.reader);
    if (audience) conditions.push(audience);
    return this.read(sql`SELECT ${this.layout.select} FROM events${sql.where(conditions)} ORDER BY ${this.oldestFirst} LIMIT ${limit}`);
  }

  /**
   * Erases the content (`resource`) of every earlier event with any of the scope's ids (a post's
   * id as `postId` reaches the events of its comments too, which carry it), in the caller's
   * transaction, in one statement: type, ids, time and audience stay. With `beyond`, only of the
   * events whose audience is wider than that one (content that stopped being public).
   */
  async erase(executor: Executor, scope: ErasureScope, beyond?: AudienceSet): Promise<void> {
    const reached = this.reached(scope, beyond);
    if (!reached) return;
    await this.sql.rows(sql`UPDATE events SET resource = NULL WHERE resource IS NOT NULL AND ${reached}`, executor);
  }

  /**
   * `SELECT id FROM events WHERE …`: the events an erasure of `scope` reaches, for what keeps
   * copies of their content to erase them with the same reach (webhook deliveries). Null when
   * the scope names nothing.
   */
  erasedEvents(scope: ErasureScope, beyond?: AudienceSet): Fragment | null {
    const reached = this.reached(scope, beyond);
    return reached && sql`SELECT id FROM events WHERE ${reached}`;
  }

  private reached(scope: ErasureScope, beyond?: AudienceSet): Fragment | null {
    const conditions: Fragment[] = [];
    for (const [ref, ids = []] of Object.entries(scope)) {
      if (ids.length > 0) conditions.push(sql`${this.column(ref)} IN (${sql.in(ids)})`);
    }
    if (conditions.length === 0) return null;
    const condition = sql`(${sql.join(conditions, ' OR ')})`;
    if (!beyond) return condition;
    const audience = audienceBeyondSql(beyond);
    return audience ? sql`${condition} AND ${sql.raw(audience)}` : null;
  }

  /** The column of a ref; a ref no resource declares is a programming error. */
  private column(ref: string): Fragment {
    const column = this.layout.columns.get(ref);
    if (!column) throw new Error(`No resource declares the event ref ${ref}`);
    return column;
  }

  /**
   * The column lists of the refs the resources declare (the catalog's), built on first use.
   */
  private get layout(): Layout {
    const refs = this.catalog.eventRefs();
    if (this.shape?.refs !== refs) {
      const columns = refs.map(({ column }) => column);
      this.shape = {
        refs,
        columns: new Map(refs.map(({ ref, column }) => [ref, sql.raw(column)])),
        select: sql.raw(['id', 'tx', 'type', 'occurred_at', ...columns, 'resource', 'origin', 'audience', 'audience_owner', 'audience_except', 'audience_except_owner', 'trace_parent'].join(', ')),
        insert: sql.raw(`INSERT INTO events (${['type', 'occurred_at', ...columns, 'resource', 'origin', 'audience', 'audience_owner', 'audience_except', 'audience_except_owner', 'trace_parent'].join(', ')})`),
      };
    }
    return this.shape;
  }

  /**
   * The committed events after `position` that a read may not return yet, because a transaction
   * that began before theirs is still open somewhere on the cluster (PostgreSQL: at or above the
   * snapshot's xmin): how many, and when the oldest of them was written. None where reads never
   * wait (SQLite), without a statement.
   */
  async heldBack(position: EventPosition): Promise<{ count: number; oldest: Date | null }> {
    if (!this.visible) return { count: 0, oldest: null };
    const statement = sql`SELECT COUNT(*) AS held, MIN(occurred_at) AS oldest FROM events WHERE ${this.sql.dialect.eventsAfter(position)} AND NOT (${this.visible})`;
    const [row] = await this.transactions.single(() => this.sql.rows<{ held: number | string; oldest: Date | string | null }>(statement));
    return { count: Number(row?.held ?? 0), oldest: row?.oldest == null ? null : toDate(row.oldest) };
  }

  /** The position of the newest readable event (the start when there is none). */
  async latest(): Promise<EventPosition> {
    const [row] = await this.read(sql`SELECT ${this.layout.select} FROM events${sql.where(this.visible ? [this.visible] : [])} ORDER BY ${this.newestFirst} LIMIT 1`);
    return row ? { tx: row.tx, id: row.id } : { tx: 0, id: 0 };
  }

  /** Sends `payload` to every session listening on `channel` (PostgreSQL); nothing where none can listen. */
  async notify(channel: string, payload: string): Promise<void> {
    const notify = this.sql.dialect.notify(channel, payload);
    if (notify) await this.sql.rows(notify);
  }

  private async read(statement: Fragment): Promise<StoredEvent[]> {
    // Every write adds to the log: an answer that shows events is dropped by any.
    recordReadTags(ANY_TAG);
    const rows = await this.transactions.single(() => this.sql.rows<Row>(statement));
    const { refs } = this.layout;
    return rows.map((row) => ({
      id: Number(row.id),
      tx: Number(row.tx),
      type: row.type,
      occurredAt: toDate(row.occurred_at),
      refs: Object.fromEntries(refs.map(({ ref, column }) => [ref, row[column] === null || row[column] === undefined ? null : Number(row[column])])),
      resource: row.resource,
      origin: row.origin,
      audience: {
        audience: row.audience as Audience,
        owner: row.audience_owner === null ? null : Number(row.audience_owner),
        except: row.audience_except === null ? null : { audience: row.audience_except as Audience, owner: row.audience_except_owner === null ? null : Number(row.audience_except_owner) },
      },
      traceParent: row.trace_parent ?? null,
    }));
  }
}
