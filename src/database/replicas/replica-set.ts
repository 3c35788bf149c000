import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type pg from 'pg';
import { Dialect } from '../../common/persistence/dialect.js';
import { ReadRouter } from '../../common/persistence/read-router.js';
import { AppConfig } from '../../config/app-config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { loadPg } from '../pg-module.js';
import { pgTypes } from '../pg-timestamps.js';
import { parseLsn, type ReadRoute } from '../../common/persistence/read-route.js';
import { WrittenPositions } from './written-positions.js';

const POLL_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
const QUERY_TIMEOUT_MS = 2000;
/** SQLSTATE classes of errors about the statement or its data, not the server: the primary would say the same. */
const STATEMENT_ERROR_CLASSES = new Set(['22', '23', '42']);

export type ReplicaState = 'up' | 'lagging' | 'down';

export interface ReplicaStatus {
  replica: string;
  status: ReplicaState;
  lagSeconds: number | null;
}

class Replica {
  readonly pool: pg.Pool;
  up = false;
  /** Replay behind the primary, in ms (0 once it has replayed everything the primary had written at the last poll). */
  lagMs = Number.POSITIVE_INFINITY;
  replayLsn: bigint | null = null;
  polling = false;

  constructor(
    readonly label: string,
    url: string,
    poolSize: number,
  ) {
    this.pool = new (loadPg().Pool)({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      application_name: 'blog-replica-reads',
      types: pgTypes,
    });
  }

  markDown(): void {
    this.up = false;
  }
}

/** host:port of a URL, never its credentials. */
function labelOf(url: string, index: number, taken: Set<string>): string {
  let label: string;
  try {
    const parsed = new URL(url);
    label = `${parsed.hostname}:${parsed.port || '5432'}`;
  } catch {
    label = String(index);
  }
  if (taken.has(label)) label = `${label}#${index}`;
  taken.add(label);
  return label;
}

/**
 * The read replicas (DATABASE_REPLICA_URLS): a pool each, polled every second for health and
 * replay position; plain anonymous reads go round-robin to those up and within
 * DATABASE_REPLICA_MAX_LAG_MS, every other statement to the primary. A replica that fails a
 * read is marked down until its next good poll, and the read is sent to the primary instead:
 * a replica never costs a client an error.
 */
@Injectable()
export class ReplicaSet extends ReadRouter implements OnModuleInit, OnApplicationShutdown {
  readonly enabled: boolean;
  private readonly replicas: Replica[];
  private readonly logger = new Logger('ReadReplicas');
  private readonly maxLagMs: number;
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private primaryLsn: bigint | null = null;

  constructor(
    config: AppConfig,
    private readonly dialect: Dialect,
    private readonly metrics: MetricsService,
    private readonly positions: WrittenPositions,
  ) {
    super();
    const urls = config.database.type === 'postgres' ? config.databaseReplicaUrls : [];
    const taken = new Set<string>();
    this.replicas = urls.map((url, index) => new Replica(labelOf(url, index, taken), url, config.dbPoolSize));
    for (const replica of this.replicas) {
      // An idle connection dropped by a stopped replica: the next poll tells whether it is back.
      replica.pool.on('error', () => {
        replica.markDown();
        this.report(replica);
      });
    }
    this.enabled = this.replicas.length > 0;
    this.maxLagMs = config.databaseReplicaMaxLagMs;
    for (const replica of this.replicas) this.report(replica);
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    this.logger.log(`Read replicas: ${this.replicas.map((replica) => replica.label).join(', ')}`);
    await this.poll();
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }

  /** The route of an anonymous read by `client`, or null (the primary) when its pending write cannot be known. */
  async routeFor(client: string): Promise<ReadRoute | null> {
    if (!this.enabled) return null;
    const pendingLsn = await this.positions.pending(client);
    return pendingLsn === undefined ? null : { pendingLsn };
  }

  /** After a write committed: the primary's WAL position, which `client`'s next reads must see. */
  async rememberWrite(client: string): Promise<void> {
    if (!this.enabled) return;
    try {
      const [row] = (await this.dialect.send('SELECT pg_current_wal_lsn()::text AS lsn', [])) as { lsn: string }[];
      const lsn = parseLsn(row?.lsn);
      if (lsn !== null) await this.positions.remember(client, lsn);
    } catch {
      // The write is done; without its position the client may read a replica a moment behind it.
    }
  }

  /** A plain read on a replica that qualifies for `route`, else (or when that replica fails) on the primary. */
  async read(text: string, params: readonly unknown[], route: ReadRoute, primary: () => Promise<unknown[]>): Promise<unknown[]> {
    const replica = this.pick(route);
    if (replica !== undefined) {
      try {
        const result = await replica.pool.query({ text, values: params as unknown[] });
        this.metrics.recordReadRoute('replica');
        return result.rows;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || !STATEMENT_ERROR_CLASSES.has(code.slice(0, 2))) {
          replica.markDown();
          this.report(replica);
          this.logger.warn(`Replica ${replica.label} failed a read (${(error as Error).message}); using the primary until it answers a poll`);
        }
      }
    }
    this.metrics.recordReadRoute('primary');
    return primary();
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      replica: replica.label,
      status: this.stateOf(replica),
      lagSeconds: Number.isFinite(replica.lagMs) ? replica.lagMs / 1000 : null,
    }));
  }

  private stateOf(replica: Replica): ReplicaState {
    if (!replica.up) return 'down';
    return replica.lagMs > this.maxLagMs ? 'lagging' : 'up';
  }

  private pick(route: ReadRoute): Replica | undefined {
    const count = this.replicas.length;
    for (let step = 0; step < count; step++) {
      const replica = this.replicas[(this.next + step) % count];
      if (!replica.up || replica.lagMs > this.maxLagMs) continue;
      if (route.pendingLsn !== null && (replica.replayLsn === null || replica.replayLsn < route.pendingLsn)) continue;
      this.next = (this.next + step + 1) % count;
      return replica;
    }
    return undefined;
  }

  private async poll(): Promise<void> {
    try {
      const [row] = (await this.dialect.send('SELECT pg_current_wal_lsn()::text AS lsn', [])) as { lsn: string }[];
      this.primaryLsn = parseLsn(row?.lsn);
    } catch {
      // The primary is unreachable: the replicas' lag is judged from their replay timestamps alone.
      this.primaryLsn = null;
    }
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
  }

  private async pollReplica(replica: Replica): Promise<void> {
    if (replica.polling) return;
    replica.polling = true;
    try {
      const { rows } = await replica.pool.query<{ recovery: boolean; lsn: string | null; behind: number | null }>(
        'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn, ' +
          'EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8 AS behind',
      );
      const [state] = rows;
      const replayLsn = parseLsn(state.lsn);
      if (!state.recovery || replayLsn === null) {
        // A promoted standby (or a primary) is no replica of this database any more.
        replica.up = false;
        replica.lagMs = Number.POSITIVE_INFINITY;
      } else {
        replica.up = true;
        replica.replayLsn = replayLsn;
        // On an idle primary the last replayed transaction grows old although nothing is missing:
        // a replica that has replayed what the primary had written is not behind at all.
        if (this.primaryLsn !== null && replayLsn >= this.primaryLsn) replica.lagMs = 0;
        else replica.lagMs = Math.max(0, (state.behind ?? Number.POSITIVE_INFINITY) * 1000);
      }
    } catch {
      replica.up = false;
    } finally {
      replica.polling = false;
      this.report(replica);
    }
  }

  private report(replica: Replica): void {
    this.metrics.recordReplica(replica.label, replica.up, Number.isFinite(replica.lagMs) ? replica.lagMs / 1000 : -1);
  }
}
