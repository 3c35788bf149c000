import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppConfig } from '../config/app-config.js';
import { ResourceCatalog } from '../common/resource/resource-catalog.js';

type HttpSeries = { requests: Counter.Internal; duration: Histogram.Internal<string> };

export const GRAPHQL_OPERATION_TYPES = ['query', 'mutation', 'subscription', 'invalid'] as const;
export type GraphQLOperationLabel = (typeof GRAPHQL_OPERATION_TYPES)[number];

/**
 * The service's Prometheus metrics, in a registry of its own (so that several applications in
 * one process, as in the tests, never collide). Everything that records a metric goes
 * through here; GET /metrics renders the registry.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending its response',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations received, by operation type ("invalid" when none could be resolved)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly graphqlOperationCost = new Histogram({
    name: 'graphql_operation_cost',
    help: 'The @cost/@listSize cost of each admitted GraphQL operation (every transport), by operation type',
    labelNames: ['type'] as const,
    buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 50000],
    registers: [this.registry],
  });

  readonly dbQueries = new Counter({
    name: 'db_queries_total',
    help: 'SQL statements sent to the database',
    registers: [this.registry],
  });

  readonly dbReadRoutes = new Counter({
    name: 'db_read_route_total',
    help: 'Plain reads of anonymous requests (REST GET/HEAD, GraphQL queries) by where they were sent: primary or replica (DATABASE_REPLICA_URLS set)',
    labelNames: ['target'] as const,
    registers: [this.registry],
  });

  readonly dbReplicaUp = new Gauge({
    name: 'db_replica_up',
    help: 'Whether a read replica answered its last health poll as a standby (1) or not (0), by replica (host:port)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  readonly dbReplicaLag = new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How far a read replica replays behind the primary, as of its last poll (0 when caught up; -1 when unknown), by replica (host:port)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  readonly wsConnections = new Gauge({
    name: 'ws_connections',
    help: 'Open WebSocket (graphql-ws) connections',
    registers: [this.registry],
  });

  readonly subscriptionEvents = new Counter({
    name: 'subscription_events_total',
    help: 'Events delivered to subscribers, by event name',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  readonly subscribersTooSlow = new Counter({
    name: 'subscribers_too_slow_total',
    help: 'Subscriptions ended with SUBSCRIBER_TOO_SLOW, by reason: queue (SUBSCRIPTIONS_MAX_QUEUE live events unread) or stall (an event stream not drained within SUBSCRIPTIONS_STALL_TIMEOUT_MS)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly eventsPublished = new Counter({
    name: 'events_published_total',
    help: 'Events this instance read from the outbox and published to its subscribers, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly eventsRelayLag = new Histogram({
    name: 'events_relay_lag_seconds',
    help: 'Time from an event being written to this instance publishing it',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly eventsRelayHeldBack = new Gauge({
    name: 'events_relay_held_back',
    help: 'Committed events this instance may not publish yet: an older transaction (anywhere on the PostgreSQL cluster) is still open (as the relay last looked, every second)',
    registers: [this.registry],
  });

  readonly eventsRelayHeldBackAge = new Gauge({
    name: 'events_relay_held_back_age_seconds',
    help: 'How long the oldest held-back event has waited since it was written (0 when none)',
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered (a 2xx), retrying (failed, another attempt is due) or failed (failed, given up)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly webhookQueueDepth = new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries not yet delivered nor given up (as this instance last counted them)',
    registers: [this.registry],
  });

  readonly eventsPruned = new Counter({
    name: 'events_pruned_total',
    help: 'Events deleted from the event log by retention (EVENTS_RETENTION_DAYS), by this instance',
    registers: [this.registry],
  });

  /** Label children by "method status route", so the per-response cost is one Map lookup. */
  private readonly httpSeries = new Map<string, HttpSeries>();
  private readonly graphqlSeries = new Map<string, Counter.Internal>();
  /** Created on the first operation of each type (not at start: a histogram's series would show its empty buckets). */
  private readonly costSeries = new Map<string, Histogram.Internal<'type'>>();

  constructor(
    config: AppConfig,
    private readonly catalog: ResourceCatalog,
  ) {
    // Every known series starts at 0, so dashboards see it before the first event.
    for (const type of GRAPHQL_OPERATION_TYPES) {
      const series = this.graphqlOperations.labels(type);
      series.inc(0);
      this.graphqlSeries.set(type, series);
    }
    for (const status of ['delivered', 'retrying', 'failed']) this.webhookDeliveries.labels(status).inc(0);
    for (const reason of ['queue', 'stall']) this.subscribersTooSlow.labels(reason).inc(0);
    if (config.databaseReplicaUrls.length > 0) for (const target of ['primary', 'replica']) this.dbReadRoutes.labels(target).inc(0);
    if (config.metricsEnabled) collectDefaultMetrics({ register: this.registry });
  }

  /** Every event the resources declare starts at 0 too. */
  onApplicationBootstrap(): void {
    for (const resource of this.catalog.all()) for (const name of resource.events) this.subscriptionEvents.labels(name).inc(0);
  }

  /** One answered HTTP request; `route` is the route template (e.g. /posts/:id), never the URL. */
  recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.httpSeries.get(key);
    if (series === undefined) {
      const labels = { method, route, status: String(status) };
      series = { requests: this.httpRequests.labels(labels), duration: this.httpRequestDuration.labels(labels) };
      this.httpSeries.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }

  recordGraphQLOperation(type: GraphQLOperationLabel): void {
    this.graphqlSeries.get(type)?.inc();
  }

  /** An admitted operation's cost (query, mutation or subscription). */
  recordGraphQLOperationCost(type: 'query' | 'mutation' | 'subscription', cost: number): void {
    let series = this.costSeries.get(type);
    if (series === undefined) {
      series = this.graphqlOperationCost.labels(type);
      this.costSeries.set(type, series);
    }
    series.observe(cost);
  }

  /** A plain anonymous read, sent to the primary or to a replica. */
  recordReadRoute(target: 'primary' | 'replica'): void {
    this.dbReadRoutes.labels(target).inc();
  }

  /** A read replica's state after a poll (or a failed read); lag -1 when unknown. */
  recordReplica(replica: string, up: boolean, lagSeconds: number): void {
    this.dbReplicaUp.labels(replica).set(up ? 1 : 0);
    this.dbReplicaLag.labels(replica).set(lagSeconds);
  }

  recordDbQuery(): void {
    this.dbQueries.inc();
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
