import type { EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { AfterQueryEvent, BeforeQueryEvent } from 'typeorm/subscriber/event/QueryEvent.js';
import { trace } from '@opentelemetry/api';
import { failSpan, type Span, SpanKind, startSpan } from './spans.js';

/**
 * A span per SQL statement on SQLite (PostgreSQL's come from instrumentation-pg), added to the
 * data source only with tracing on: `db.query.text` is the statement TypeORM sends, whose values
 * are bound parameters, never recorded. Like instrumentation-pg's, only within a trace (a
 * statement of no request, such as a poll, makes no trace of its own).
 */
export class SqlStatementSpans implements EntitySubscriberInterface {
  /** One statement at a time per query runner: its span until the answer. */
  private readonly open = new WeakMap<QueryRunner, Span>();

  beforeQuery(event: BeforeQueryEvent): void {
    if (!trace.getActiveSpan()) return;
    const span = startSpan(`${event.query.trimStart().split(/\s/, 1)[0].toUpperCase()} sqlite`, SpanKind.CLIENT, {
      'db.system.name': 'sqlite',
      'db.query.text': event.query,
    });
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
