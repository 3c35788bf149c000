import { Injectable } from '@nestjs/common';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';

/** One event to send to one webhook, as the feeder creates it. */
export interface NewDelivery {
  webhookId: number;
  eventId: number;
  eventCursor: string;
  messageId: string;
  /** The JSON body, the same on every attempt. */
  payload: string;
  /** The event's (StoredEvent.traceParent): what each attempt's span links to. */
  traceParent: string | null;
}

/** A delivery claimed for an attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  webhookId: number;
  eventCursor: string;
  messageId: string;
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  traceParent: string | null;
  url: string;
  secret: string;
}

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

export interface AttemptRecord {
  eventCursor: string;
  attempt: number;
  status: AttemptOutcome;
  durationMs: number;
  error: string | null;
  at: Date;
  nextAttemptAt: Date | null;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  at: Date;
  /** When the next attempt is due (retrying only). */
  nextAttemptAt: Date | null;
}

const CHUNK = 100;

/**
 * The delivery queue (`webhook_deliveries`, one row per webhook and event: pending, delivered or
 * failed) and the log of attempts (`webhook_attempts`).
 */
@Injectable()
export class WebhookDeliveriesRepository {
  private readonly claimLock: Fragment;

  constructor(private readonly sql: Sql) {
    this.claimLock = claimLockOf(sql);
  }

  /** Queues deliveries due now; one (webhook, event) is queued once however often it is offered. */
  async insert(deliveries: readonly NewDelivery[], executor: Executor): Promise<void> {
    const now = this.sql.timestamp(new Date());
    for (let start = 0; start < deliveries.length; start += CHUNK) {
      const rows = deliveries
        .slice(start, start + CHUNK)
        .map((delivery) => sql`(${delivery.webhookId}, ${delivery.eventId}, ${delivery.eventCursor}, ${delivery.messageId}, ${delivery.payload}, ${delivery.traceParent}, ${now}, ${now}, 'pending', 0)`);
      const statement = sql`INSERT INTO webhook_deliveries (webhook_id, event_id, event_cursor, message_id, payload, trace_parent, next_attempt_at, created_at, status, attempts) VALUES ${sql.join(rows)} ON CONFLICT (webhook_id, event_id) DO NOTHING`;
      await this.sql.rows(statement, executor);
    }
  }

  /**
   * Takes up to `limit` due deliveries of active webhooks for this instance until `leaseUntil`,
   * in one statement. PostgreSQL: rows another instance is claiming at the same moment are
   * skipped (SKIP LOCKED), and a claimed row is not due again before its lease ends.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const nowParam = this.sql.timestamp(now);
    const statement = sql`UPDATE webhook_deliveries SET lease_until = ${this.sql.timestamp(leaseUntil)} WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND d.next_attempt_at <= ${nowParam} AND (d.lease_until IS NULL OR d.lease_until < ${nowParam}) AND w.active = ${true} ORDER BY d.next_attempt_at LIMIT ${limit}${this.claimLock}) RETURNING id, webhook_id, event_cursor, message_id, payload, attempts, trace_parent`;
    const rows = await this.sql.written<Record<string, unknown>>(statement);
    if (rows.length === 0) return [];
    const webhookIds = [...new Set(rows.map((row) => Number(row.webhook_id)))];
    const targets = await this.sql.rows<{ id: number; url: string; secret: string }>(sql`SELECT id, url, secret FROM webhooks WHERE id IN (${sql.in(webhookIds)})`);
    const byId = new Map(targets.map((target) => [Number(target.id), target]));
    return rows.flatMap((row) => {
      const target = byId.get(Number(row.webhook_id));
      if (!target) return [];
      return [
        {
          id: Number(row.id),
          webhookId: Number(row.webhook_id),
          eventCursor: row.event_cursor as string,
          messageId: row.message_id as string,
          payload: row.payload as string,
          attempts: Number(row.attempts),
          traceParent: (row.trace_parent as string | null | undefined) ?? null,
          url: target.url,
          secret: target.secret,
        },
      ];
    });
  }

  /**
   * Records an attempt and the delivery's new state, unless someone else recorded an attempt of
   * it meanwhile (its lease ran out): then nothing is written and false is returned.
   */
  async record(delivery: ClaimedDelivery, result: AttemptResult, executor: Executor): Promise<boolean> {
    const status = result.outcome === 'retrying' ? 'pending' : result.outcome;
    const updated = await this.sql.written(
      sql`UPDATE webhook_deliveries SET status = ${status}, attempts = attempts + 1, next_attempt_at = ${this.sql.timestamp(result.nextAttemptAt ?? result.at)}, lease_until = NULL WHERE id = ${delivery.id} AND attempts = ${delivery.attempts} AND status = 'pending' RETURNING id`,
      executor,
    );
    if (updated.length === 0) return false;
    const nextAttemptAt = result.nextAttemptAt ? this.sql.timestamp(result.nextAttemptAt) : null;
    await this.sql.rows(
      sql`INSERT INTO webhook_attempts (delivery_id, webhook_id, event_cursor, attempt, status, http_status, duration_ms, error, at, next_attempt_at) VALUES (${delivery.id}, ${delivery.webhookId}, ${delivery.eventCursor}, ${delivery.attempts + 1}, ${result.outcome}, ${result.httpStatus}, ${result.durationMs}, ${result.error}, ${this.sql.timestamp(result.at)}, ${nextAttemptAt})`,
      executor,
    );
    return true;
  }

  /** A webhook's latest attempts, newest first. */
  async attempts(webhookId: number, limit: number): Promise<AttemptRecord[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(
      sql`SELECT event_cursor, attempt, status, duration_ms, error, at, next_attempt_at FROM webhook_attempts WHERE webhook_id = ${webhookId} ORDER BY id DESC LIMIT ${limit}`,
    );
    return rows.map((row) => ({
      eventCursor: row.event_cursor as string,
      attempt: Number(row.attempt),
      status: row.status as AttemptOutcome,
      durationMs: Number(row.duration_ms),
      error: (row.error as string | null) ?? null,
      at: toDate(row.at),
      nextAttemptAt: row.next_attempt_at == null ? null : toDate(row.next_attempt_at),
    }));
  }

  /**
   * Deletes up to `limit` deliveries that ended (delivered or given up) before `before`, and with
   * them their attempts (ON DELETE CASCADE). A delivery still pending is never touched, however
   * old. Returns how many deliveries went.
   */
  async pruneBatch(before: Date, limit: number): Promise<number> {
    // A delivery's next_attempt_at is set to the time of its last attempt when it ends.
    const deleted = await this.sql.written(
      sql`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND next_attempt_at < ${this.sql.timestamp(before)} LIMIT ${limit}) RETURNING id`,
    );
    return deleted.length;
  }

  /**
   * Takes the resource out of the stored bodies of the deliveries of `events` (`SELECT id FROM
   * events WHERE …`), in the caller's transaction: what is still to be sent goes without it
   * (bodies are signed when sent, so it stays valid), and what was sent keeps no copy. One read
   * and one UPDATE per hundred bodies changed.
   */
  async eraseContent(executor: Executor, events: Fragment): Promise<void> {
    const rows = await this.sql.rows<{ id: number | string; payload: string }>(sql`SELECT id, payload FROM webhook_deliveries WHERE event_id IN (${events})`, executor);
    const erased = rows.flatMap((row) => {
      const body = JSON.parse(row.payload) as { data?: Record<string, unknown> };
      if (!body.data || !('resource' in body.data)) return [];
      delete body.data.resource;
      return [{ id: Number(row.id), payload: JSON.stringify(body) }];
    });
    for (let start = 0; start < erased.length; start += CHUNK) {
      const chunk = erased.slice(start, start + CHUNK);
      const cases = sql.join(
        chunk.map((row) => sql`WHEN ${row.id} THEN ${row.payload}`),
        ' ',
      );
      const ids = sql.in(chunk.map((row) => row.id));
      await this.sql.rows(sql`UPDATE webhook_deliveries SET payload = CASE id ${cases} END WHERE id IN (${ids})`, executor);
    }
  }

  /** Deliveries neither delivered nor given up, and the active webhooks: one statement. */
  async workload(): Promise<{ pending: number; activeWebhooks: number }> {
    const [row] = await this.sql.rows<{ pending: number | string; active: number | string }>(
      sql`SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') AS pending, (SELECT COUNT(*) FROM webhooks WHERE active = ${true}) AS active`,
    );
    return { pending: Number(row.pending), activeWebhooks: Number(row.active) };
  }
}

function claimLockOf(db: Sql): Fragment {
  return sql.raw(db.dialect.lockRows({ of: 'd', skipLocked: true }));
}
