// Objects prepared before a measured window (payments to pay, refund or capture): created with
// bounded concurrency, then used up one per request, so no request of the load meets an object
// another request already changed. How many: enough for the rate the scenario could reach over
// warm-up and measured run, bounded by a time budget for the preparation.
// Env (read by run.ts and profile.ts): BENCH_PREPARED_RATE (the rate to prepare for, req/s; default
// 0.8 × the same run's create req/s, twice issue 25's 0.4 target, or 2000 without a create),
// BENCH_PREPARE_SECONDS (60: the preparation stops there, whatever it has), BENCH_PREPARE_CONCURRENCY (32).
import type autocannon from 'autocannon';
import type { Consumable, LoadParams } from './load.js';

export interface PrepareParams {
  /** Requests per second to prepare for (over warm-up and measured run). */
  rate: number;
  /** Requests of the preparation in flight at once. */
  concurrency: number;
  /** The preparation stops after this long with what it has. */
  budgetSeconds: number;
}

/** What the preparation made and what the load used of it (in the results document). */
export interface PreparedFigures { wanted: number; prepared: number; seconds: number; used: number }

/** Share of the same run's create req/s to prepare for when BENCH_PREPARED_RATE is not set. */
export const PREPARE_SHARE_OF_CREATE = 0.8;
const DEFAULT_RATE = 2000;

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
}

/** The preparation's parameters from the environment; `createReqPerSec` is the same run's create rate, when measured. */
export function prepareParams(createReqPerSec?: number | null): PrepareParams {
  const fromCreate = createReqPerSec ? Math.round(createReqPerSec * PREPARE_SHARE_OF_CREATE) : DEFAULT_RATE;
  return {
    rate: envNumber('BENCH_PREPARED_RATE', fromCreate),
    concurrency: Math.round(envNumber('BENCH_PREPARE_CONCURRENCY', 32)),
    budgetSeconds: envNumber('BENCH_PREPARE_SECONDS', 60),
  };
}

/**
 * How many objects a scenario prepares: its rate over warm-up and measured run, plus one per
 * connection for each of the two runs (the requests still in flight when a run stops are sent, so
 * their objects are used, but never counted), and at least 4 per connection.
 */
export function preparedCount(load: LoadParams, rate: number): number {
  return Math.max(load.connections * 4, Math.ceil(rate * (load.warmupSeconds + load.seconds)) + 2 * load.connections);
}

/** Runs make(0..count-1) with at most `concurrency` in flight, starting none after the budget; the ids in order of completion. */
export async function prepareMany(count: number, p: PrepareParams, make: (i: number) => Promise<string>): Promise<{ ids: string[]; seconds: number }> {
  const ids: string[] = [];
  const start = Date.now();
  const deadline = start + p.budgetSeconds * 1000;
  let next = 0;
  const lane = async () => {
    while (next < count && Date.now() < deadline) ids.push(await make(next++));
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(p.concurrency, count)) }, lane));
  return { ids, seconds: Math.round((Date.now() - start) / 100) / 10 };
}

/**
 * The autocannon request over a pool of prepared ids: request n uses ids[n], built by `build`. The
 * pool is what `measure` limits the runs with (warm-up and measured run share it), so no id is used twice.
 */
export function poolRequest(ids: string[], build: (id: string, n: number) => autocannon.Request): { request: autocannon.Request; pool: Consumable; used(): number } {
  let seq = 0;
  const first = build(ids[0] ?? '', 0);
  const request: autocannon.Request = {
    ...first,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, ...build(ids[n % ids.length], n) };
    },
  };
  return { request, pool: { remaining: () => Math.max(0, ids.length - seq) }, used: () => seq };
}
