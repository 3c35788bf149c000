import { Injectable } from '@nestjs/common';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
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

const COLUMNS = 'id, url, types, description, active, after_tx, after_id, created_at, updated_at';

/** The `webhooks` table, and the feeder's position in the outbox (`webhook_feed`, one row). */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly sql: Sql) {}

  async insert(values: NewWebhook, executor: Executor): Promise<WebhookRecord> {
    const now = this.sql.timestamp(new Date());
    const statement = this.sql.statement(
      `INSERT INTO webhooks (url, types, description, secret, active, after_tx, after_id, created_at, updated_at, version) ` +
        `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1) RETURNING ${COLUMNS}`,
    );
    const params = [values.url, values.types.join(','), values.description, values.secret, true, values.after.tx, values.after.id, now, now];
    const [row] = await this.sql.rows<Record<string, unknown>>(statement, params, executor);
    return this.fromRow(row);
  }

  async findById(id: number, executor?: Executor): Promise<WebhookRecord | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(this.sql.statement(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1`), [id], executor);
    return row ? this.fromRow(row) : null;
  }

  async list(): Promise<WebhookRecord[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(`SELECT ${COLUMNS} FROM webhooks ORDER BY id`, []);
    return rows.map((row) => this.fromRow(row));
  }

  /** The active webhooks, for the feeder (read in its transaction, once it holds the feed). */
  async active(executor?: Executor): Promise<WebhookRecord[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(this.sql.statement(`SELECT ${COLUMNS} FROM webhooks WHERE active = $1 ORDER BY id`), [true], executor);
    return rows.map((row) => this.fromRow(row));
  }

  async update(id: number, changes: WebhookChanges, executor?: Executor): Promise<WebhookRecord | null> {
    const set: string[] = [];
    const params: unknown[] = [];
    if (changes.url !== undefined) set.push(`url = $${params.push(changes.url)}`);
    if (changes.types !== undefined) set.push(`types = $${params.push(changes.types.join(','))}`);
    if (changes.description !== undefined) set.push(`description = $${params.push(changes.description)}`);
    if (changes.active !== undefined) set.push(`active = $${params.push(changes.active)}`);
    if (changes.after !== undefined) set.push(`after_tx = $${params.push(changes.after.tx)}`, `after_id = $${params.push(changes.after.id)}`);
    set.push(`updated_at = $${params.push(this.sql.timestamp(new Date()))}`, 'version = version + 1');
    params.push(id);
    const statement = this.sql.statement(`UPDATE webhooks SET ${set.join(', ')} WHERE id = $${params.length} RETURNING ${COLUMNS}`);
    const [row] = await this.sql.written<Record<string, unknown>>(statement, params, executor);
    return row ? this.fromRow(row) : null;
  }

  async delete(id: number): Promise<boolean> {
    return (await this.sql.written(this.sql.statement('DELETE FROM webhooks WHERE id = $1 RETURNING id'), [id])).length > 0;
  }

  /**
   * Where the feeder has read the outbox up to. With `lock` (PostgreSQL), the row stays locked
   * until the transaction ends: one feeder at a time, and a webhook created meanwhile waits.
   */
  async feedPosition(executor: Executor | undefined, lock: boolean): Promise<EventPosition> {
    const statement = `SELECT event_tx, event_id FROM webhook_feed WHERE id = 1${lock ? this.sql.dialect.lockRows() : ''}`;
    const [row] = await this.sql.rows<{ event_tx: number | string; event_id: number | string }>(statement, [], executor);
    return { tx: Number(row.event_tx), id: Number(row.event_id) };
  }

  async advanceFeed(position: EventPosition, executor: Executor): Promise<void> {
    await this.sql.written(this.sql.statement('UPDATE webhook_feed SET event_tx = $1, event_id = $2 WHERE id = 1 RETURNING id'), [position.tx, position.id], executor);
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
