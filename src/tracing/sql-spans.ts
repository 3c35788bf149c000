import type { EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { AfterQueryEvent, BeforeQueryEvent } from 'typeorm/subscriber/event/QueryEvent.js';
import { failSpan, hasActiveSpan, type Span, SpanKind, startSpan } from './spans.js';

/**
 * The span of one SQLite statement, within a trace only (undefined outside one, or with tracing
 * off): `db.query.text` is the text sent, whose values are bound parameters, never recorded.
 */
export function startSqliteStatementSpan(text: string): Span | undefined {
  if (!hasActiveSpan()) return undefined;
  return startSpan(`${text.trimStart().split(/\s/, 1)[0].toUpperCase()} sqlite`, SpanKind.CLIENT, { 'db.system.name': 'sqlite', 'db.query.text': text });
}

/**
 * A span per SQL statement that TypeORM's query runner sends on SQLite (Sql's own go through
 * SqliteDialect.send, which opens theirs); PostgreSQL's come from instrumentation-pg. Added to
 * the data source only with tracing on. Like instrumentation-pg's, only within a trace (a
 * statement of no request, such as a poll, makes no trace of its own).
 */
export class SqlStatementSpans implements EntitySubscriberInterface {
  /** One statement at a time per query runner: its span until the answer. */
  private readonly open = new WeakMap<QueryRunner, Span>();

  beforeQuery(event: BeforeQueryEvent): void {
    const span = startSqliteStatementSpan(event.query);
    if (span) this.open.set(event.queryRunner, span);
  }

  afterQuery(event: AfterQueryEvent): void {
    const span = this.open.get(event.queryRunner);
    if (!span) return;
    this.open.delete(event.queryRunner);
    if (!event.success) failSpan(span, event.error);
    span.end();
  }
}
