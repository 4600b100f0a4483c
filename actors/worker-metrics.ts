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
import type { BatcherStats } from '../src/store/batcher.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export interface WorkerMetrics {
  webhooks: WebhookMetrics;
  snapshot(): Promise<MetricsJson>;
}

/**
 * `processed`: the shard's count of finished commands (kept by the shard; read at scrape time);
 * `reads`: its grouped payment reads, under the main thread's names (summed; the largest: max).
 */
export function workerMetrics(shard: number, pools: Record<string, pg.Pool>, processed: () => number, reads: () => BatcherStats): WorkerMetrics {
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
  const read = (name: string, help: string, value: (r: BatcherStats) => number, aggregator: 'sum' | 'max' = 'sum') =>
    new Gauge({ name, help, registers, aggregator, collect() { this.set(value(reads())); } });
  read('read_batches', 'Grouped payment reads sent to Postgres since start, one statement each (counter semantics).', (r) => r.loads);
  read('read_batch_lookups', 'Payment reads by id carried by those statements since start (counter semantics).', (r) => r.lookups);
  read('read_batch_failures', 'Grouped payment read statements that failed since start (counter semantics).', (r) => r.failedLoads);
  read('read_batch_largest', 'Most payment reads one statement has carried since start.', (r) => r.largest, 'max');
  return { webhooks: webhookMetrics(registers), snapshot: () => registry.getMetricsAsJSON() };
}
