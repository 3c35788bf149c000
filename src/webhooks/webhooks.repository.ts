import { Injectable } from '@nestjs/common';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import type { EventPosition } from '../events/event-cursor.js';
import type { EventType } from './dto/create-webhook.dto.js';

/** A webhook as the service works with it (never its secret, but where it is asked for by name). */
export interface WebhookRecord {
  id: number;
  url: string;
  types: EventType[];
  description: string | null;
  active: boolean;
  /** Events at or before this outbox position (those before the webhook existed) are not sent. */
  after: EventPosition;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewWebhook {
  url: string;
  types: readonly EventType[];
  description: string | null;
  secret: string;
  after: EventPosition;
}

export interface WebhookChanges {
  url?: string;
  types?: readonly EventType[];
  description?: string | null;
  active?: boolean;
  after?: EventPosition;
}

const COLUMNS = sql.raw('id, url, types, description, active, after_tx, after_id, created_at, updated_at');

/** The `webhooks` table, and the feeder's position in the outbox (`webhook_feed`, one row). */
@Injectable()
export class WebhooksRepository {
  private readonly lockClause: Fragment;

  constructor(private readonly sql: Sql) {
    this.lockClause = lockOf(sql);
  }

  async insert(values: NewWebhook, executor: Executor): Promise<WebhookRecord> {
    const now = this.sql.timestamp(new Date());
    const statement = sql`INSERT INTO webhooks (url, types, description, secret, active, after_tx, after_id, created_at, updated_at, version) VALUES (${values.url}, ${values.types.join(',')}, ${values.description}, ${values.secret}, ${true}, ${values.after.tx}, ${values.after.id}, ${now}, ${now}, 1) RETURNING ${COLUMNS}`;
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, executor);
    return this.fromRow(row);
  }

  async findById(id: number, executor?: Executor): Promise<WebhookRecord | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${COLUMNS} FROM webhooks WHERE id = ${id}`, executor);
    return row ? this.fromRow(row) : null;
  }

  async list(): Promise<WebhookRecord[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${COLUMNS} FROM webhooks ORDER BY id`);
    return rows.map((row) => this.fromRow(row));
  }

  /** The active webhooks, for the feeder (read in its transaction, once it holds the feed). */
  async active(executor?: Executor): Promise<WebhookRecord[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${COLUMNS} FROM webhooks WHERE active = ${true} ORDER BY id`, executor);
    return rows.map((row) => this.fromRow(row));
  }

  async update(id: number, changes: WebhookChanges, executor?: Executor): Promise<WebhookRecord | null> {
    const set: Fragment[] = [];
    if (changes.url !== undefined) set.push(sql`url = ${changes.url}`);
    if (changes.types !== undefined) set.push(sql`types = ${changes.types.join(',')}`);
    if (changes.description !== undefined) set.push(sql`description = ${changes.description}`);
    if (changes.active !== undefined) set.push(sql`active = ${changes.active}`);
    if (changes.after !== undefined) set.push(sql`after_tx = ${changes.after.tx}`, sql`after_id = ${changes.after.id}`);
    set.push(sql`updated_at = ${this.sql.timestamp(new Date())}`, sql`version = version + 1`);
    const [row] = await this.sql.written<Record<string, unknown>>(sql`UPDATE webhooks SET ${sql.join(set)} WHERE id = ${id} RETURNING ${COLUMNS}`, executor);
    return row ? this.fromRow(row) : null;
  }

  async delete(id: number, executor?: Executor): Promise<boolean> {
    return (await this.sql.written(sql`DELETE FROM webhooks WHERE id = ${id} RETURNING id`, executor)).length > 0;
  }

  /**
   * Where the feeder has read the outbox up to. With `lock` (PostgreSQL), the row stays locked
   * until the transaction ends: one feeder at a time, and a webhook created meanwhile waits.
   */
  async feedPosition(executor: Executor | undefined, lock: boolean): Promise<EventPosition> {
    const statement = sql`SELECT event_tx, event_id FROM webhook_feed WHERE id = 1${lock ? this.lockClause : sql.empty}`;
    const [row] = await this.sql.rows<{ event_tx: number | string; event_id: number | string }>(statement, executor);
    return { tx: Number(row.event_tx), id: Number(row.event_id) };
  }

  async advanceFeed(position: EventPosition, executor: Executor): Promise<void> {
    await this.sql.written(sql`UPDATE webhook_feed SET event_tx = ${position.tx}, event_id = ${position.id} WHERE id = 1 RETURNING id`, executor);
  }

  private fromRow(row: Record<string, unknown>): WebhookRecord {
    return {
      id: Number(row.id),
      url: row.url as string,
      types: (row.types as string).split(',') as EventType[],
      description: (row.description as string | null) ?? null,
      active: Boolean(row.active),
      after: { tx: Number(row.after_tx), id: Number(row.after_id) },
      createdAt: toDate(row.created_at),
      updatedAt: toDate(row.updated_at),
    };
  }
}

function lockOf(db: Sql): Fragment {
  return sql.raw(db.dialect.lockRows());
}
