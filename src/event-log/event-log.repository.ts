import { Injectable } from '@nestjs/common';
import { Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { type EventPosition, isAfter } from '../events/event-cursor.js';

interface PositionRow {
  tx: number | string;
  id: number | string;
}

const toPosition = (row: PositionRow): EventPosition => ({ tx: Number(row.tx), id: Number(row.id) });

/**
 * Pruning of the event log and the mark it leaves (`events_pruned`: the position of the last
 * event deleted). Reading the log is the outbox's business (OutboxRepository.after).
 */
@Injectable()
export class EventLogRepository {
  private readonly deleteBatch: string;
  private readonly advanceMark: string;
  private readonly readMark: string;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: TransactionRunner,
  ) {
    // Only events every reader can already see: one behind a still-open transaction is not yet
    // published anywhere, whatever its age.
    const visible = sql.dialect.eventsVisible ? ` AND ${sql.dialect.eventsVisible}` : '';
    this.deleteBatch = sql.statement(
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE occurred_at < $1${visible} ORDER BY tx, id LIMIT $2) RETURNING tx, id`,
    );
    // Never backwards: two instances may prune at once.
    this.advanceMark = sql.statement('UPDATE events_pruned SET tx = $1, event_id = $2 WHERE id = 1 AND (tx < $3 OR (tx = $4 AND event_id < $5))');
    this.readMark = sql.statement('SELECT tx, event_id AS id FROM events_pruned WHERE id = 1');
  }

  /**
   * Deletes up to `limit` of the oldest events that occurred before `before`, and moves the mark
   * past them, in one transaction. Returns how many went.
   */
  pruneBatch(before: Date, limit: number): Promise<number> {
    return this.transactions.run(async (manager) => {
      const deleted = (await this.sql.written<PositionRow>(this.deleteBatch, [this.sql.timestamp(before), limit], manager)).map(toPosition);
      if (deleted.length === 0) return 0;
      const last = deleted.reduce((highest, position) => (isAfter(position, highest) ? position : highest));
      await this.sql.rows(this.advanceMark, [last.tx, last.id, last.tx, last.tx, last.id], manager);
      return deleted.length;
    });
  }

  /** The position of the last event pruned ({0, 0} before any pruning). */
  async pruned(): Promise<EventPosition> {
    const [row] = await this.transactions.single(() => this.sql.rows<PositionRow>(this.readMark, []));
    return row ? toPosition(row) : { tx: 0, id: 0 };
  }
}
