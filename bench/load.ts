// Load generation with autocannon: a warm-up run that is thrown away, then the measured run.
// The running instances are kept so a signal handler can stop them (two may run at once).
import autocannon from 'autocannon';
import pg from 'pg';
import { machineSeconds, mainThreadSeconds, postgresCpuSeconds, processSeconds, stealPercent, treeCpuSeconds } from './cpu.js';
import { round } from './stats.js';

export interface LoadParams {
  connections: number; seconds: number; warmupSeconds: number;
  /**
   * A database to ANALYZE between the warm-up and the measured run: the bench's database is new, and
   * autovacuum (once a minute) may not have looked at it yet, so the server's cached plans would be
   * those of empty tables (a sequential scan of payments per grouped update, slower with every row).
   * A deployment that has run a minute has its statistics; the measured run should too.
   */
  analyze?: string;
}

/**
 * CPU seconds so far of each Postgres backend that serves a sandbox bank (application_name
 * `pe:<pid>:bank<i>`, store/pool-budget.ts): the bank stands for a remote acquirer, and its
 * Postgres time is reported apart from the engine's. Null when they cannot be read.
 */
export async function bankBackendSeconds(url: string): Promise<Map<number, number> | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const res = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name ~ ':bank[0-9]+$'");
    return processSeconds(res.rows.map((r) => r.pid));
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** ANALYZE of the whole database (its statistics; every cached plan on its tables is made again). */
export async function analyzeDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, statement_timeout: 120_000 });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

export interface LoadFigures {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU time (user + system) of the measured processes per request answered, in µs (when asked). */
  cpuUsPerReq?: number;
  /**
   * Of cpuUsPerReq, the server's main thread (the front end), in µs; the rest is its actor workers
   * and V8's helper threads (garbage collection, compilation).
   */
  mainCpuUsPerReq?: number;
  /** The same for the local Postgres's processes (when the bench could find them), in µs. */
  pgCpuUsPerReq?: number;
  /** Of pgCpuUsPerReq, the part of the backends that served the sandbox bank's ledger, in µs. */
  bankPgCpuUsPerReq?: number;
  /**
   * Busy time of the whole machine (every process, autocannon included) per request answered, in µs;
   * without the time the hypervisor gave to other guests (stealPct), which runs none of ours.
   */
  boxCpuUsPerReq?: number;
  /**
   * The share (%) of the machine's CPU time during the measured run that the hypervisor gave to other
   * guests (/proc/stat's steal): above a few percent, this run's figures are the host's, not ours.
   */
  stealPct?: number;
  /** The run used up its pool of prepared objects before its time was over (req/s is then over the shorter run). */
  ranOut?: boolean;
}

/** Objects prepared before the load (payments to pay, refund, capture), one used per request. */
export interface Consumable { remaining(): number }

/** A measured run with its wall-clock window and the 2xx answers of warm-up and measured run together. */
export interface TimedFigures { figures: LoadFigures; startMs: number; endMs: number; total2xx: number }

const current = new Set<autocannon.Instance>();

export function stopLoad(): void {
  for (const i of current) i.stop();
}

function once(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    // autocannon stops itself after `duration`; the extra timer only guards against a hang.
    const guard = setTimeout(() => instance.stop(), ((opts.duration ?? 10) + 30) * 1000);
    const instance = autocannon(opts, (err, res) => {
      clearTimeout(guard);
      current.delete(instance);
      if (err) reject(err);
      else resolve(res);
    });
    current.add(instance);
  });
}

/** With a pool, a run asks for no more requests than it has objects left (autocannon's maxOverallRequests). */
function limited(opts: autocannon.Options, pool: Consumable | undefined): autocannon.Options {
  if (!pool) return opts;
  const left = pool.remaining();
  if (left === 0) throw new Error('no prepared object left for the run: prepare more (BENCH_PREPARED_RATE, BENCH_PREPARE_SECONDS)');
  // maxOverallRequests is split over the connections, and a connection whose share is 0 has no limit.
  return { ...opts, connections: Math.min(opts.connections ?? 1, left), maxOverallRequests: left };
}

function figuresOf(r: autocannon.Result): LoadFigures {
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(v.count);
  return {
    reqPerSec: round(r.requests.average, 0),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
}

/**
 * Warm-up (not counted) and measured run, with extra autocannon options (e.g. overallRate). With
 * several urls, autocannon spreads the connections over them in turn. With `cpuPids`, the CPU time
 * of those process trees during the measured run is divided by the requests answered. With a `pool`,
 * no run sends more requests than the pool has objects left; a measured run that used them all up
 * ends early and its req/s is its requests ÷ its own duration.
 */
export async function measureTimed(url: string | string[], requests: autocannon.Request[] | undefined, p: LoadParams,
  extra: Partial<autocannon.Options> = {}, cpuPids: number[] = [], pool?: Consumable): Promise<TimedFigures> {
  const base = { url, connections: p.connections, timeout: 10, requests, ...extra };
  let total2xx = 0;
  if (p.warmupSeconds > 0) total2xx += (await once(limited({ ...base, duration: p.warmupSeconds }, pool)))['2xx'];
  if (p.analyze) await analyzeDatabase(p.analyze);
  const startMs = Date.now();
  const cpu0 = cpuPids.length ? treeCpuSeconds(cpuPids) : 0;
  const main0 = cpuPids.length ? mainThreadSeconds(cpuPids) : 0;
  const pg0 = postgresCpuSeconds();
  const bank0 = pg0 !== null && p.analyze && cpuPids.length ? await bankBackendSeconds(p.analyze) : null;
  const box0 = machineSeconds();
  const r = await once(limited({ ...base, duration: p.seconds }, pool));
  const box1 = machineSeconds();
  const figures = figuresOf(r);
  if (box1.total > 0) figures.stealPct = stealPercent(box0, box1);
  if (pool && pool.remaining() === 0) {
    figures.ranOut = true;
    if (r.duration > 0) figures.reqPerSec = round(r.requests.total / r.duration, 0);
  }
  const perReq = (seconds: number) => round((seconds * 1e6) / r.requests.total, 1);
  // Only for runs that count their server's CPU: a run sharing the machine with another load (the
  // webhook scenario's two merchants) cannot split Postgres's or the machine's time between them.
  if (r.requests.total > 0 && cpuPids.length) {
    figures.cpuUsPerReq = perReq(treeCpuSeconds(cpuPids) - cpu0);
    figures.mainCpuUsPerReq = perReq(mainThreadSeconds(cpuPids) - main0);
    const pg1 = postgresCpuSeconds();
    if (pg0 !== null && pg1 !== null) figures.pgCpuUsPerReq = perReq(pg1 - pg0);
    const bank1 = bank0 && p.analyze ? await bankBackendSeconds(p.analyze) : null;
    // A backend that opened during the run counts from its start; one that closed is lost (rare: the pool keeps them).
    if (bank0 && bank1) figures.bankPgCpuUsPerReq = perReq([...bank1].reduce((sum, [pid, sec]) => sum + sec - (bank0.get(pid) ?? 0), 0));
    if (box0.busy > 0) figures.boxCpuUsPerReq = perReq(box1.busy - box0.busy);
  }
  return { figures, startMs, endMs: Date.now(), total2xx: total2xx + r['2xx'] };
}

/** Runs the warm-up (not counted) and then the measured load against url (or urls, in turn). */
export async function measure(url: string | string[], requests: autocannon.Request[], p: LoadParams, cpuPids: number[] = [], pool?: Consumable): Promise<LoadFigures> {
  return (await measureTimed(url, requests, p, {}, cpuPids, pool)).figures;
}
