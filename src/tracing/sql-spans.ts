import type { EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { AfterQueryEvent, BeforeQueryEvent } from 'typeorm/subscriber/event/QueryEvent.js';
import { failSpan, hasActiveSpan, type Span, SpanKind, startSpan } from './spans.js';
import { type StatementSummary, summarizeStatement } from './sql-statement.js';

/**
 * The attributes of the OpenTelemetry database conventions, as @opentelemetry/semantic-conventions
 * names them (ATTR_DB_*; sql-statement.spec.ts checks they agree). Written out here because this
 * module is loaded with tracing off too, when no OpenTelemetry module may be.
 */
export const DB_ATTRIBUTES = {
  systemName: 'db.system.name',
  operationName: 'db.operation.name',
  collectionName: 'db.collection.name',
  queryText: 'db.query.text',
} as const;

/** `{db.operation.name} {db.collection.name}` (`SELECT posts`), or the operation alone when the statement names no table. */
export function statementSpanName(summary: StatementSummary): string {
  return summary.collection === undefined ? summary.operation : `${summary.operation} ${summary.collection}`;
}

function statementAttributes(summary: StatementSummary): Record<string, string> {
  const attributes: Record<string, string> = { [DB_ATTRIBUTES.operationName]: summary.operation };
  if (summary.collection !== undefined) attributes[DB_ATTRIBUTES.collectionName] = summary.collection;
  return attributes;
}

/**
 * The span of one statement, within a trace only (undefined outside one, or with tracing off):
 * `system` is the dialect's `db.system.name`; `db.query.text` is the text sent, whose values are
 * bound parameters, never recorded.
 */
export function startStatementSpan(system: string, text: string): Span | undefined {
  if (!hasActiveSpan()) return undefined;
  const summary = summarizeStatement(text);
  return startSpan(statementSpanName(summary), SpanKind.CLIENT, { [DB_ATTRIBUTES.systemName]: system, ...statementAttributes(summary), [DB_ATTRIBUTES.queryText]: text });
}

/**
 * instrumentation-pg's `requestHook`: its span (named `pg.query:<operation or prepared statement's
 * name> <database>`) named and described as our own statements' are.
 */
export function nameStatementSpan(span: Span, info: { query: { text: string } }): void {
  const summary = summarizeStatement(info.query.text);
  span.updateName(statementSpanName(summary));
  span.setAttributes(statementAttributes(summary));
}

/**
 * A span per SQL statement that TypeORM's query runner sends (Sql's own go through the dialect's
 * `send`, which opens theirs), for a dialect whose driver no instrumentation traces (SQLite:
 * SqliteDialect adds it with tracing on). Like instrumentation-pg's, only within a trace (a
 * statement of no request, such as a poll, makes no trace of its own).
 */
export class SqlStatementSpans implements EntitySubscriberInterface {
  /** One statement at a time per query runner: its span until the answer. */
  private readonly open = new WeakMap<QueryRunner, Span>();

  constructor(private readonly system: string) {}

  beforeQuery(event: BeforeQueryEvent): void {
    const span = startStatementSpan(this.system, event.query);
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
