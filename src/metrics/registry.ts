// The process's Prometheus metrics (prom-client): the main thread's registry (HTTP traffic, the
// default process and event-loop metrics, gauges filled at scrape time) merged with the worker
// threads' registries (actors/worker-metrics.ts), gathered at each scrape.
import type pg from 'pg';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { webhookMetrics, type WebhookMetrics } from './webhooks.js';
import type { DatabaseFigures } from './database.js';
import { DIFFERENCE_KINDS } from '../domain/reconciliation.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type Json = MetricObjectWithValues<MetricValue<string>>[];

/** What the /metrics handler gathers at scrape time and hands over. */
export interface Scrape {
  shards: { alive: boolean; queue: number; mailboxDepth: number | null; actors: number | null; metrics?: Json }[];
  reads: { loads: number; lookups: number; failedLoads: number; largest: number };
  body: { inUse: number; refusedTooLarge: number; refusedBusy: number };
  /** Redis nodes whose circuit breaker is open. */
  kvBreakerOpen: number;
  pools: Record<string, pg.Pool>;
  /** null when Postgres could not answer within the scrape's bound. */
  database: DatabaseFigures | null;
}

const DATABASE_GAUGES = new Set(['webhook_deliveries_due', 'webhook_deliveries_undelivered', 'webhook_oldest_undelivered_age_seconds',
  'outbox_lag_seconds', 'expiry_lag_seconds', 'connector_attempts_open', 'connector_attempt_oldest_open_age_seconds',
  'reconciliation_differences', 'reconciliation_last_run_age_seconds']);

export const CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  readonly kvFailOpen: Counter;
  /** SBP bank lists answered empty because the list could not be read (src/http/sbp-list.ts). */
  readonly sbpListFailOpen: Counter;
  readonly webhooks: WebhookMetrics;
  private readonly g: Record<string, Gauge<string>> = {};

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status.', labelNames: ['method', 'route', 'status'], registers });
    this.latency = new Histogram({ name: 'http_request_duration_seconds', help: 'Time from request to answer.', labelNames: ['method', 'route'], buckets: BUCKETS, registers });
    this.kvFailOpen = new Counter({ name: 'kv_fail_open_total', help: 'Requests let through because the key-value store was unreachable.', registers });
    this.sbpListFailOpen = new Counter({ name: 'sbp_list_fail_open_total', help: 'SBP bank list lookups answered with an empty list (error or deadline).', registers });
    this.webhooks = webhookMetrics(registers);
    const gauge = (name: string, help: string, labelNames: string[] = []) => { this.g[name] = new Gauge({ name, help, labelNames, registers }); };
    gauge('actor_mailbox_depth', 'Commands queued or running in the actor mailboxes of a shard.', ['shard']);
    gauge('actor_count', 'Live (not passivated) actors in a shard.', ['shard']);
    gauge('worker_queue', 'Commands sent to a shard worker and not yet answered.', ['shard']);
    gauge('worker_alive', '1 when the shard worker is running.', ['shard']);
    gauge('read_batches', 'Grouped payment reads sent to Postgres since start, one statement each (counter semantics).');
    gauge('read_batch_lookups', 'Payment reads by id carried by those statements since start (counter semantics).');
    gauge('read_batch_failures', 'Grouped payment read statements that failed since start (counter semantics).');
    gauge('read_batch_largest', 'Most payment reads one statement has carried since start.');
    gauge('http_body_bytes_buffered', 'Bytes reserved by request bodies being received (limit BODY_MEMORY_LIMIT_BYTES).');
    gauge('http_body_refused', 'Bodies refused since start (counter semantics): too_large over the route limit, busy over the memory budget.', ['reason']);
    gauge('kv_breaker_open', 'Redis nodes whose circuit breaker is open: their keys fail open at once.');
    gauge('pg_pool_connections', 'Postgres connections of a pool by state: total (open), idle, waiting (clients queued for one), max.', ['pool', 'state']);
    gauge('db_gauges_up', '1 when the figures read from Postgres at this scrape (webhook backlog, lags, open attempts) are present.');
    gauge('webhook_deliveries_due', 'Webhook deliveries due now and not yet claimed (all processes: read from Postgres).');
    gauge('webhook_deliveries_undelivered', 'Webhook deliveries not yet delivered: pending retries and attempts in progress (all processes).');
    gauge('webhook_oldest_undelivered_age_seconds', 'Age of the oldest webhook delivery not yet delivered (all processes).');
    gauge('outbox_lag_seconds', 'How far past its due time the most overdue webhook delivery is (all processes).');
    gauge('expiry_lag_seconds', 'How far past its expiry the most overdue pending payment is: the expiry scheduler\'s lag (all processes).');
    gauge('connector_attempts_open', 'Acquirer attempts recorded and not settled (a payment\'s pending_attempt), all processes.');
    gauge('connector_attempt_oldest_open_age_seconds', 'Age of the oldest acquirer attempt not settled (recovery settles it after ATTEMPT_RECOVERY_AFTER_MS).');
    gauge('reconciliation_differences', 'Differences between the engine and the bank found by reconciliation and not yet resolved or ignored, by kind (all processes).', ['kind']);
    gauge('reconciliation_last_run_age_seconds', 'Seconds since the latest reconciliation run completed (none yet: since the earliest connector attempt).');
  }

  /**
   * One answered request: a counter and a histogram observation (the only per-request cost). The
   * labelled children are kept per (route, method, status), so a request pays no label hashing; a
   * method outside the standard ones is counted as OTHER (a client cannot grow the series).
   */
  observe(route: string, method: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const key = `${route} ${m} ${status}`;
    let c = this.children.get(key);
    if (!c) {
      c = { count: this.requests.labels({ method: m, route, status }), latency: this.latency.labels({ method: m, route }) };
      this.children.set(key, c);
    }
    c.count.inc();
    c.latency.observe(seconds);
  }
  private readonly children = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } }>();

  /** The text exposition: this thread's registry, filled with `s`, merged with the workers'. */
  async render(s: Scrape): Promise<string> {
    const g = this.g;
    for (const k of Object.keys(g)) g[k].reset();
    s.shards.forEach((sh, i) => {
      const shard = String(i);
      g.worker_alive.set({ shard }, sh.alive ? 1 : 0);
      g.worker_queue.set({ shard }, sh.queue);
      g.actor_mailbox_depth.set({ shard }, sh.mailboxDepth ?? 0);
      g.actor_count.set({ shard }, sh.actors ?? 0);
    });
    g.read_batches.set(s.reads.loads);
    g.read_batch_lookups.set(s.reads.lookups);
    g.read_batch_failures.set(s.reads.failedLoads);
    g.read_batch_largest.set(s.reads.largest);
    g.http_body_bytes_buffered.set(s.body.inUse);
    g.kv_breaker_open.set(s.kvBreakerOpen);
    g.http_body_refused.set({ reason: 'too_large' }, s.body.refusedTooLarge);
    g.http_body_refused.set({ reason: 'busy' }, s.body.refusedBusy);
    for (const [pool, p] of Object.entries(s.pools)) {
      g.pg_pool_connections.set({ pool, state: 'total' }, p.totalCount);
      g.pg_pool_connections.set({ pool, state: 'idle' }, p.idleCount);
      g.pg_pool_connections.set({ pool, state: 'waiting' }, p.waitingCount);
      g.pg_pool_connections.set({ pool, state: 'max' }, p.options.max ?? 0);
    }
    g.db_gauges_up.set(s.database ? 1 : 0);
    const d = s.database;
    if (d) {
      g.webhook_deliveries_due.set(d.webhooksDue);
      g.webhook_deliveries_undelivered.set(d.webhooksUndelivered);
      g.webhook_oldest_undelivered_age_seconds.set(d.webhooksOldestSeconds);
      g.outbox_lag_seconds.set(d.outboxLagSeconds);
      g.expiry_lag_seconds.set(d.expiryLagSeconds);
      g.connector_attempts_open.set(d.attemptsOpen);
      g.connector_attempt_oldest_open_age_seconds.set(d.attemptsOldestSeconds);
      for (const kind of DIFFERENCE_KINDS) g.reconciliation_differences.set({ kind }, d.reconciliationOpen[kind] ?? 0);
      g.reconciliation_last_run_age_seconds.set(d.reconciliationLastRunAge);
    }
    let own = await this.registry.getMetricsAsJSON() as Json;
    // Without the database's answer those gauges are left out rather than shown as 0.
    if (!d) own = own.filter((m) => !DATABASE_GAUGES.has(m.name));
    const parts: Json[] = [own];
    for (const sh of s.shards) if (sh.metrics) parts.push(sh.metrics);
    return AggregatorRegistry.aggregate(parts).metrics();
  }
}
