import { Injectable } from '@nestjs/common';
import { Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { type EventPosition, isAfter } from '../events/event-cursor.js';

interface PositionRow {
  tx: number | string;
  id: number | string;
}

/** sql.raw, where the constructor's `sql` (the Sql) hides the tag. */
const raw = (text: string): Fragment => sql.raw(text);

const toPosition = (row: PositionRow): EventPosition => ({ tx: Number(row.tx), id: Number(row.id) });

/**
 * Pruning of the event log and the mark it leaves (`events_pruned`: the position of the last
 * event deleted). Reading the log is the outbox's business (OutboxRepository.after).
 */
@Injectable()
export class EventLogRepository {
  /** Only events every reader can already see: one behind a still-open transaction is not yet published anywhere, whatever its age. */
  private readonly visible: Fragment;
  /** The log's order (Dialect.eventOrder): (tx, id) on PostgreSQL, the id alone on SQLite, whose events all have tx 0. */
  private readonly oldestFirst: Fragment;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: TransactionRunner,
  ) {
    this.visible = visibleOf(sql);
    this.oldestFirst = raw(sql.dialect.eventOrder('asc'));
  }

  /**
   * Deletes up to `limit` of the oldest events that occurred before `before`, and moves the mark
   * past them, in one transaction. Returns how many went.
   */
  pruneBatch(before: Date, limit: number): Promise<number> {
    return this.transactions.run(async (manager) => {
      const batch = sql`DELETE FROM events WHERE id IN (SELECT id FROM events WHERE occurred_at < ${this.sql.timestamp(before)}${this.visible} ORDER BY ${this.oldestFirst} LIMIT ${limit}) RETURNING tx, id`;
      const deleted = (await this.sql.written<PositionRow>(batch, manager)).map(toPosition);
      if (deleted.length === 0) return 0;
      const last = deleted.reduce((highest, position) => (isAfter(position, highest) ? position : highest));
      // Never backwards: two instances may prune at once.
      await this.sql.rows(sql`UPDATE events_pruned SET tx = ${last.tx}, event_id = ${last.id} WHERE id = 1 AND (tx < ${last.tx} OR (tx = ${last.tx} AND event_id < ${last.id}))`, manager);
      return deleted.length;
    });
  }

  /** The position of the last event pruned ({0, 0} before any pruning). */
  async pruned(): Promise<EventPosition> {
    const [row] = await this.transactions.single(() => this.sql.rows<PositionRow>(sql`SELECT tx, event_id AS id FROM events_pruned WHERE id = 1`));
    return row ? toPosition(row) : { tx: 0, id: 0 };
  }
}

function visibleOf(db: Sql): Fragment {
  return db.dialect.eventsVisible ? sql.raw(` AND ${db.dialect.eventsVisible}`) : sql.empty;
}
