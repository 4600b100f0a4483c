// A worker thread's own figures, in its own prom-client registry: the webhook counters of its
// dispatcher, its event-loop delay, its Postgres pools and the commands it processed. The main
// thread asks for them (as JSON, with the shard's stats) at scrape time and sums them with its own
// (prom-client's AggregatorRegistry.aggregate), so per-shard series carry a `shard` label and the
// webhook counters add up across threads.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import type pg from 'pg';
import { Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { webhookMetrics, type WebhookMetrics } from '../src/metrics/webhooks.js';
import { sandboxBankMetrics } from '../src/metrics/sandbox-bank.js';
import { sandboxBankStats } from '../src/connectors/sandbox/ledger.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export interface WorkerMetrics {
  webhooks: WebhookMetrics;
  snapshot(): Promise<MetricsJson>;
}

/** A group-commit writer's counters (GroupWriter.stats). */
type WriterStats = { statements: number; writes: number; stalls: number; lockTimeouts: number };

/**
 * `processed`: the shard's count of finished commands (kept by the shard; read at scrape time);
 * `writers`: its group-commit writers, whose statements, rows and stalls are counted.
 */
export function workerMetrics(shard: number, pools: Record<string, pg.Pool>, processed: () => number,
  writers: Record<string, { stats: WriterStats }> = {}): WorkerMetrics {
  const registry = new Registry();
  const registers = [registry];
  const s = String(shard);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  new Gauge({
    name: 'worker_event_loop_delay_seconds', help: 'Event-loop delay of a shard worker thread since the previous scrape (p50, p99, max).',
    labelNames: ['shard', 'quantile'], registers,
    collect() {
      const q = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
      this.set({ shard: s, quantile: '0.5' }, q(loop.percentile(50)));
      this.set({ shard: s, quantile: '0.99' }, q(loop.percentile(99)));
      this.set({ shard: s, quantile: 'max' }, q(loop.max));
      loop.reset();
    },
  });
  new Gauge({
    name: 'worker_heap_bytes', help: 'V8 heap of a shard worker thread: total (reserved), used, young (new space reserved) and limit (WORKER_*_GENERATION_MB).',
    labelNames: ['shard', 'state'], registers,
    collect() {
      const h = v8.getHeapStatistics();
      this.set({ shard: s, state: 'total' }, h.total_heap_size);
      this.set({ shard: s, state: 'used' }, h.used_heap_size);
      this.set({ shard: s, state: 'young' }, v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0);
      this.set({ shard: s, state: 'limit' }, h.heap_size_limit);
    },
  });
  new Gauge({
    name: 'pg_pool_connections', help: 'Postgres connections of a pool by state: total (open), idle, waiting (clients queued for one), max.',
    labelNames: ['pool', 'state'], registers,
    collect() {
      for (const [name, p] of Object.entries(pools)) {
        this.set({ pool: name, state: 'total' }, p.totalCount);
        this.set({ pool: name, state: 'idle' }, p.idleCount);
        this.set({ pool: name, state: 'waiting' }, p.waitingCount);
        this.set({ pool: name, state: 'max' }, p.options.max ?? 0);
      }
    },
  });
  new Counter({
    name: 'actor_commands_total', help: 'Commands an actor shard has finished since it started.', labelNames: ['shard'], registers,
    collect() { this.reset(); this.inc({ shard: s }, processed()); },
  });
  // The group commit's statements and the writes they carried (writes ÷ statements: the group size),
  // and the statements started beside a stalled one.
  const byWriter = (name: string, help: string, pick: (w: WriterStats) => number) => new Counter({
    name, help, labelNames: ['shard', 'writer'], registers,
    collect() { this.reset(); for (const [writer, w] of Object.entries(writers)) this.inc({ shard: s, writer }, pick(w.stats)); },
  });
  const WRITERS = 'by writer (create, update, attempt, payout_begin, payout_settle)';
  byWriter('payment_write_statements_total', `Grouped payment write statements a shard has sent since it started, ${WRITERS}.`, (w) => w.statements);
  byWriter('payment_write_rows_total', `Payment writes carried by those statements since the shard started, ${WRITERS}.`, (w) => w.writes);
  byWriter('payment_write_stalls_total', `Grouped payment write statements started beside one that had been in flight 250 ms or more (STALLED_STATEMENT_MS: it waits on a row another transaction holds), ${WRITERS}.`, (w) => w.stalls);
  byWriter('payment_write_lock_timeouts_total', `Grouped payment write statements that gave up waiting for a lock (PG_LOCK_TIMEOUT_MS, SQLSTATE 55P03: rolled back), ${WRITERS}.`, (w) => w.lockTimeouts);
  sandboxBankMetrics(registers, s, sandboxBankStats); // the bank's share, apart from the engine's
  return { webhooks: webhookMetrics(registers), snapshot: () => registry.getMetricsAsJSON() };
}
