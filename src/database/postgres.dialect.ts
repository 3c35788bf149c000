import type pg from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { Dialect, literal, type JsonMember, type Listener, type LogPosition, type NotificationHandlers, type SearchParts, type Send } from '../common/persistence/dialect.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { type TextQuery, toWebSearch } from '../common/persistence/text-search.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { primaryLanguage } from '../common/i18n/locale-lookup.js';
import { loadPg } from './pg-module.js';

interface PgClient {
  query(config: { text: string; values: unknown[]; name?: string } | string): Promise<{ rows: unknown[] }>;
}

interface PgPool extends PgClient {
  connect(): Promise<PgClient & { release(error?: Error | boolean): void }>;
}

/** The new row in insertWith's companion. */
const NEW_ROW = sql.raw('r');

/** SQLSTATE query_canceled: what statement_timeout raises. */
const QUERY_CANCELED = '57014';

/**
 * Past this many distinct texts (an `IN (…)` list has one per length), statements are sent
 * unnamed, so memory stays bounded here and on the server.
 */
const PREPARED_STATEMENTS_MAX = 500;
const RECONNECT_MS = 1000;
/** As the pool's: an unreachable database does not hold up start-up. */
const CONNECT_TIMEOUT_MS = 2500;

/**
 * PostgreSQL through pg: a pool, each transaction on a connection of its own, any number of
 * instances on one database (row locks, snapshot visibility of the outbox, LISTEN/NOTIFY).
 * With a direct URL (DATABASE_DIRECT_URL), the pool's URL is taken to be a transaction pooler:
 * LISTEN goes to the direct URL, and statements are sent unnamed, since consecutive statements of
 * one pool connection may reach different server connections, which know nothing of each
 * other's prepared statements.
 */
export class PostgresDialect extends Dialect {
  readonly shared = true;
  readonly writesWith = true;
  /** Its statements' spans come from instrumentation-pg (tracing/tracing.ts), which names the system so too. */
  readonly dbSystemName = 'postgresql';
  /**
   * The event's transaction ended before every transaction still open in this database began.
   * The snapshot's xmin alone is cluster-wide: a long transaction in another database, which can
   * never write these events, held delivery back. So the bound is the lowest in-progress id of
   * the snapshot that is not known to belong to another database's session (pg_stat_get_activity;
   * a session this role may not inspect shows no backend_xid and so still counts, as does a
   * transaction that ends between the snapshot and that read: both only wait, never skip).
   * Ids compare on their low 32 bits (backend_xid is a 32-bit xid; open ones span < 2^31). The
   * reader's own transaction, absent from its snapshot's list, bounds it too, as xmin did.
   */
  readonly eventsVisible =
    'tx < (SELECT coalesce(min(open.xid), pg_snapshot_xmax(pg_current_snapshot())::text::bigint) FROM (' +
    'SELECT x::text::bigint AS xid FROM pg_snapshot_xip(pg_current_snapshot()) x WHERE x::text::bigint % 4294967296 NOT IN ' +
    '(SELECT backend_xid::text::bigint FROM pg_stat_get_activity(NULL) WHERE backend_xid IS NOT NULL AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())) ' +
    'UNION ALL SELECT pg_current_xact_id_if_assigned()::text::bigint) open)';
  private readonly names = new Map<string, string>();
  /** Where LISTEN goes: a session of its own, never a pooler's shared connection. */
  private readonly listenUrl: string | undefined;
  private readonly namedStatements: boolean;

  constructor(
    private readonly dataSource: DataSource,
    directUrl?: string,
  ) {
    super();
    this.listenUrl = directUrl ?? (dataSource.options as { url?: string }).url;
    this.namedStatements = directUrl === undefined;
  }

  placeholder(index: number): string {
    return `$${index}`;
  }

  timestamp(date: Date): Date {
    return date;
  }

  searchText(query: TextQuery): string {
    return toWebSearch(query);
  }

  /**
   * The GIN index on `search` finds the matches; ts_rank_cd ranks them (title: weight A = 1.0,
   * body: B = 0.4), as float8 so that a rank read back from a cursor compares exactly. The
   * snippet (ts_headline, no markers, in the post's own configuration) is cut for the page's rows
   * only, after the limit.
   */
  searchStatement({ query, languages, select, where, order, limit }: SearchParts): Fragment {
    const inner = (text: string) => text.replace(/\bRANK\b/g, 'ts_rank_cd(t.search, q.query)::float8');
    const outer = (text: string) => text.replace(/\bRANK\b/g, 's.rank');
    const conditions = sql.join([sql`t.search @@ q.query`, ...where.map((condition) => condition.mapText(inner))], ' AND ');
    return sql`SELECT ${select}, s.rank AS search_rank, ts_headline(search_configuration(t.locale), t.title || ' ' || t.body, s.query, 'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "') AS search_snippet FROM (SELECT t.id, ts_rank_cd(t.search, q.query)::float8 AS rank, q.query FROM posts t CROSS JOIN (SELECT ${this.textQuery(query, languages)}) AS q(query) WHERE ${conditions} ORDER BY ${sql.raw(inner(order))} LIMIT ${limit}) s JOIN posts t ON t.id = s.id ORDER BY ${sql.raw(outer(order))}`;
  }

  searchCondition(query: string, languages: readonly string[], alias = 't'): Fragment {
    return sql`${sql.raw(alias)}.search @@ (${this.textQuery(query, languages)})`;
  }

  /**
   * The query read in each language of `languages` (search_configuration of its primary subtag,
   * as the posts of that language are indexed), ORed: one tsquery, which the GIN index serves as
   * it serves one language's. A language is read once however many of its locales the chain has.
   */
  private textQuery(query: string, languages: readonly string[]): Fragment {
    const subtags = [...new Set(languages.map(primaryLanguage))];
    return sql.join(
      subtags.map((subtag) => sql`websearch_to_tsquery(search_configuration(${subtag}), ${query})`),
      ' || ',
    );
  }

  lockRows(options: { of?: string; skipLocked?: boolean } = {}): string {
    return ` FOR UPDATE${options.of ? ` OF ${options.of}` : ''}${options.skipLocked ? ' SKIP LOCKED' : ''}`;
  }

  /** json_build_object writes timestamps in ISO 8601 itself. */
  jsonObject(members: readonly JsonMember[]): string {
    return `json_build_object(${members.map(({ key, expression }) => `${literal(key)}, ${expression}`).join(', ')})::text`;
  }

  // An ARRAY(subquery) comes back from the driver as a JavaScript array.
  arrayOf(expression: string, from: string): string {
    return `ARRAY(SELECT ${expression} ${from})`;
  }

  readArray(value: unknown): string[] {
    return Array.isArray(value) ? (value as string[]) : [];
  }

  // As text: the driver would parse a json value itself, and the caller hydrates the tuples anyway.
  jsonRows(values: readonly string[], from: Fragment): Fragment {
    return sql`(SELECT json_agg(json_build_array(${sql.raw(values.join(', '))}))::text ${from})`;
  }

  eventOrder(direction: 'asc' | 'desc'): string {
    return direction === 'asc' ? 'tx, id' : 'tx DESC, id DESC';
  }

  eventsAfter(position: LogPosition): Fragment {
    return sql`(tx, id) > (${position.tx}, ${position.id})`;
  }

  notify(channel: string, payload: string): Fragment {
    return sql`SELECT pg_notify(${channel}, ${payload})`;
  }

  /** A named prepared statement (parsed and planned once per connection), unless behind a pooler. */
  async send(text: string, values: readonly unknown[]): Promise<unknown[]> {
    const pool = (this.dataSource.driver as unknown as { master: PgPool }).master;
    return (await pool.query({ text, values: values as unknown[], name: this.nameOf(text) })).rows;
  }

  /**
   * In a read-only transaction of its own whose statement_timeout is `timeoutMs` (SET LOCAL: the
   * pooled connection keeps its own setting): three round trips instead of one, and the server
   * stops the statement's work when the time is up. A connection whose ROLLBACK fails is
   * dropped, not reused. Through a transaction pooler, the transaction holds its server
   * connection throughout, and SET LOCAL ends with it.
   */
  override async sendBounded(text: string, values: readonly unknown[], timeoutMs: number): Promise<unknown[]> {
    const pool = (this.dataSource.driver as unknown as { master: PgPool }).master;
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await this.control(client, `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
      try {
        const { rows } = await client.query({ text, values: values as unknown[], name: this.nameOf(text) });
        await this.control(client, 'COMMIT');
        return rows;
      } catch (error) {
        await this.control(client, 'ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError as Error));
        throw error;
      }
    } catch (error) {
      if (normalizeError(error).code === 'SERVICE_UNAVAILABLE') broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A transaction control statement: counted (db_queries_total) as Sql counts the others. */
  private control(client: PgClient, text: string): Promise<unknown> {
    this.dataSource.logger.logQuery(text, []);
    return client.query(text);
  }

  override isTimeout(error: unknown): boolean {
    return (error as { code?: unknown } | null)?.code === QUERY_CANCELED;
  }

  /** TypeORM's runner adds the count to what UPDATE and DELETE return. */
  writtenRows(result: unknown): unknown[] {
    return (result as [unknown[], number])[0];
  }

  /**
   * DataSource.transaction, except when the connection itself failed (the server went silent
   * or away): a ROLLBACK would wait as long again on a dead connection, so the connection is
   * dropped instead (the server rolls back what it had), and the pool does not reuse it.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner() as QueryRunner & { releasePostgresConnection?: (error?: Error) => Promise<void> };
    let broken: Error | undefined;
    try {
      await runner.startTransaction();
      const result = await work(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (normalizeError(error).code === 'SERVICE_UNAVAILABLE') {
        broken = error as Error;
      } else if (runner.isTransactionActive) {
        // As DataSource.transaction: the work's error is the one to report.
        await runner.rollbackTransaction().catch((rollbackError: unknown) => (broken = rollbackError as Error));
      }
      throw error;
    } finally {
      if (broken && runner.releasePostgresConnection) await runner.releasePostgresConnection(broken);
      else await runner.release();
    }
  }

  /** Other instances write the same log: their relays read it, and so does this one's. */
  whenTransactionEnds(): boolean {
    return false;
  }

  single<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  /** One statement, the companion INSERTs fed from the first in a data-modifying WITH: no BEGIN, no COMMIT, one round trip. */
  async insertWith(insert: Fragment, _table: string, companions: readonly ((source: Fragment) => Fragment)[], send: Send): Promise<Record<string, unknown>> {
    const fed = companions.map((companion, index) => sql`, ${sql.raw(index === 0 ? 'companion' : `companion_${index + 1}`)} AS (${companion(NEW_ROW)})`);
    const [row] = await send<Record<string, unknown>>(sql`WITH r AS (${insert})${sql.join(fed, '')} SELECT * FROM r`);
    return row;
  }

  /** A connection of its own (LISTEN holds it), opened again a second after it is lost. */
  listen(name: string, channels: readonly string[], handlers: NotificationHandlers): Listener {
    const url = this.listenUrl;
    let client: pg.Client | undefined;
    let closed = false;
    const connect = (): Promise<void> => {
      if (closed) return Promise.resolve();
      const current = new (loadPg().Client)({ connectionString: url, application_name: name, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
      client = current;
      const retry = () => {
        if (client !== current) return;
        client = undefined;
        handlers.down();
        current.removeAllListeners();
        void current.end().catch(() => undefined);
        setTimeout(() => void connect(), RECONNECT_MS).unref();
      };
      current.on('error', retry);
      current.on('end', retry);
      current.on('notification', (message) => handlers.notification(message.channel, message.payload));
      return current
        .connect()
        .then(() => current.query(channels.map((channel) => `LISTEN ${channel}`).join('; ')))
        .then(() => {
          if (client === current) handlers.up();
        })
        .catch(retry);
    };
    return {
      ready: connect(),
      close: async () => {
        closed = true;
        const current = client;
        client = undefined;
        await current?.end().catch(() => undefined);
      },
    };
  }

  private nameOf(text: string): string | undefined {
    if (!this.namedStatements) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < PREPARED_STATEMENTS_MAX) this.names.set(text, (name = `blog_${this.names.size}`));
    return name;
  }
}
