// The results document written to bench/results/*.json, the targets it is judged against, and the
// rows of the tables printed on stdout and rendered into Markdown.
import type { LoadFigures } from './load.js';
import { judgeMoney, judgePayouts } from './money-targets.js';
import type { PayoutRun } from './payout-scenarios.js';
import type { MultiProcessGet, ServerRun } from './server-scenarios.js';
import { round } from './stats.js';
import type { WebhookRun } from './webhook-scenario.js';

export interface InsertFigures {
  table: 'durable' | 'temp'; connections: number; seconds: number; rows: number; failures: number;
  rowsPerSecond: number; p50: number; p99: number;
}

export interface TargetCheck {
  workers: number; check: string; value: number; target: string; pass: boolean;
}

export interface BenchResults {
  schema: 1;
  date: string;
  machine: { cpus: number; model: string; node: string; platform: string; totalMemMb: number };
  parameters: {
    connections: number; seconds: number; warmupSeconds: number; insertConnections: number; insertTable: string; workers: number[];
    webhookWorkers?: number | null;
    /** The BENCH_ONLY filter of a partial run (absent: every scenario ran). */
    only?: string[];
    /** The server's node flags: npm start's NODE_OPTIONS, then BENCH_NODE_ARGS (absent in older results). */
    serverNode?: string;
  };
  environment: { postgres: { source: string; version: string; settings: Record<string, string> }; redis: { source: string }; uwsNative: boolean; backgroundCpuPct: Record<string, number> };
  /**
   * A baseline is null when BENCH_ONLY left it out. `insertBefore`: baseline B measured again just
   * before the server of each later WORKERS value started (keyed by that value; absent in older
   * results): that value's creates are judged against it, so the ratio compares two windows minutes
   * apart on a host whose speed drifts no more than two adjacent ones.
   */
  baselines: { uws: LoadFigures | null; insert: InsertFigures | null; insertBefore?: Record<string, InsertFigures> };
  server: ServerRun[];
  /** GET with two server processes on one database (absent in older results, null when skipped). */
  multiGet?: MultiProcessGet | null;
  /** POST /v2/payouts on one balance (`create`) and on distinct balances (absent in older results, null when skipped). */
  payouts?: PayoutRun | null;
  /** The webhook scenario (absent in older results, null when skipped). */
  webhooks?: WebhookRun | null;
  targets: TargetCheck[];
  flags: string[];
  pass: boolean;
}

/**
 * Issue 13: create ≥ 0.7 × baseline B with p99 < 50 ms; GET ≥ 0.5 × baseline A with one process
 * and ≥ 0.35 × with two (p99 < 20 ms, issue 8); WORKERS=2 at least as fast as WORKERS=1 on both;
 * peak RSS < 300 MB. Issue 25: webhooks at 1000/s with p99 < 100 ms, none lost or duplicated, B
 * losing at most 15 %; the money-moving scenarios' targets are in money-targets.ts.
 */
export const TARGETS = {
  createRatio: 0.7, createP99Ms: 50, getRatio: 0.5, get2Ratio: 0.35, getP99Ms: 20, peakRssMb: 300,
  webhookCreateRatio: 0.85, webhookP99Ms: 100, webhookRateShare: 0.95,
} as const;

/** Judges each server run against the targets; a scenario with failed requests is flagged. */
/** The measured part of a results file (what judge and the tables read). */
type Measured = Pick<BenchResults, 'baselines' | 'server' | 'webhooks' | 'multiGet' | 'payouts'>;

export function judge(r: Measured): { targets: TargetCheck[]; flags: string[] } {
  const targets: TargetCheck[] = [];
  const flags: string[] = [];
  const { uws, insert } = r.baselines;
  const failed = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;
  if (uws && failed(uws)) flags.push(`baseline A: ${failed(uws)} failed requests`);
  if (insert?.failures) flags.push(`baseline B: ${insert.failures} failed inserts`);
  for (const [w, i] of Object.entries(r.baselines.insertBefore ?? {})) if (i.failures) flags.push(`baseline B before WORKERS=${w}: ${i.failures} failed inserts`);
  const judgeGet = (w: number, name: string, get: LoadFigures, add: (check: string, value: number, target: string, pass: boolean) => void, ratio: number = TARGETS.getRatio) => {
    if (uws) add(`${name} req/s ÷ baseline A req/s`, round(get.reqPerSec / uws.reqPerSec), `≥ ${ratio}`, get.reqPerSec / uws.reqPerSec >= ratio);
    add(`${name} p99 (ms)`, get.p99, `< ${TARGETS.getP99Ms}`, get.p99 < TARGETS.getP99Ms);
    if (failed(get)) flags.push(`WORKERS=${w} ${name}: ${failed(get)} non-2xx/errors ${JSON.stringify(get.statusCodes)}`);
  };
  for (const s of r.server) {
    const w = s.workers;
    const add = (check: string, value: number, target: string, pass: boolean) => targets.push({ workers: w, check, value, target, pass });
    let rss = 0;
    if (s.create) {
      const base = insertFor(r.baselines, w);
      if (base) {
        add('create req/s ÷ baseline B rows/s', round(s.create.reqPerSec / base.rowsPerSecond), `≥ ${TARGETS.createRatio}`,
          s.create.reqPerSec / base.rowsPerSecond >= TARGETS.createRatio);
      }
      add('create p99 (ms)', s.create.p99, `< ${TARGETS.createP99Ms}`, s.create.p99 < TARGETS.createP99Ms);
      if (failed(s.create)) flags.push(`WORKERS=${w} create: ${failed(s.create)} non-2xx/errors ${JSON.stringify(s.create.statusCodes)}`);
      rss = s.create.peakRssMb;
    }
    if (s.checkout) {
      // Reported, not judged: a checkout session does what a payment create does plus the channel and catalog checks.
      if (s.create) targets.push({ workers: w, check: 'checkout create req/s ÷ merchant create req/s (info)', value: round(s.checkout.reqPerSec / s.create.reqPerSec), target: 'reported', pass: true });
      if (failed(s.checkout)) flags.push(`WORKERS=${w} checkout: ${failed(s.checkout)} non-2xx/errors ${JSON.stringify(s.checkout.statusCodes)}`);
      rss = Math.max(rss, s.checkout.peakRssMb);
    }
    judgeMoney(s, add, flags);
    for (const f of [s.direct, s.checkoutPay, s.refunds, s.captures, s.createAfter]) if (f) rss = Math.max(rss, f.peakRssMb);
    if (s.get) {
      judgeGet(w, 'get', s.get, add);
      rss = Math.max(rss, s.get.peakRssMb);
    }
    add('peak RSS (MB)', rss, `< ${TARGETS.peakRssMb}`, rss < TARGETS.peakRssMb);
  }
  // More workers must not be slower: each scenario of the largest WORKERS run against the smallest.
  const byWorkers = [...r.server].sort((a, b) => a.workers - b.workers);
  const [lo, hi] = [byWorkers[0], byWorkers[byWorkers.length - 1]];
  if (lo && hi && lo !== hi) {
    for (const name of ['create', 'get'] as const) {
      const [a, b] = [lo[name], hi[name]];
      if (a && b) {
        targets.push({ workers: hi.workers, check: `${name} req/s WORKERS=${hi.workers} ÷ WORKERS=${lo.workers}`, value: round(b.reqPerSec / a.reqPerSec), target: '≥ 1', pass: b.reqPerSec >= a.reqPerSec });
      }
    }
  }
  const m = r.multiGet;
  if (m) {
    const add = (check: string, value: number, target: string, pass: boolean) => targets.push({ workers: m.workers, check, value, target, pass });
    judgeGet(m.workers, `get, ${m.processes} processes,`, m.get, add, TARGETS.get2Ratio);
    add(`get, ${m.processes} processes, peak RSS per process (MB)`, m.get.peakRssMb, `< ${TARGETS.peakRssMb}`, m.get.peakRssMb < TARGETS.peakRssMb);
  }
  const po = r.payouts;
  if (po) judgePayouts(po, r.server, (check, value, target, pass) => targets.push({ workers: po.workers, check, value, target, pass }), flags);
  if (r.webhooks) judgeWebhooks(r.webhooks, targets, flags);
  flags.push(...stealFlags(r));
  return { targets, flags };
}

/** The baseline B a WORKERS value's creates are judged against: the one measured just before its server, else the run's first. */
export function insertFor(b: Measured['baselines'], workers: number): InsertFigures | null {
  return b.insertBefore?.[String(workers)] ?? b.insert;
}

function judgeWebhooks(h: WebhookRun, targets: TargetCheck[], flags: string[]): void {
  const add = (check: string, value: number, target: string, pass: boolean) => targets.push({ workers: h.workers, check, value, target, pass });
  const d = h.deliveries;
  const minRate = Math.round(TARGETS.webhookRateShare * h.rate);
  add('webhooks: B create req/s with ÷ without', h.createRatio, `≥ ${TARGETS.webhookCreateRatio}`, h.createRatio >= TARGETS.webhookCreateRatio);
  add('webhooks: deliveries/s', d.perSecond, `≥ ${minRate} (≈ ${h.rate})`, d.perSecond >= minRate);
  add('webhooks: p99 commit → delivery (ms)', d.p99, `< ${TARGETS.webhookP99Ms}`, d.p99 < TARGETS.webhookP99Ms);
  add('webhooks: signature failures', d.signatureFailures, '= 0', d.signatureFailures === 0);
  add('webhooks: events lost (expected − received)', Math.max(0, d.expected - d.received), '= 0', d.received >= d.expected);
  add('webhooks: duplicate deliveries', d.duplicates, '= 0', d.duplicates === 0);
  const failed = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;
  for (const [name, f] of [['phase 1 B', h.alone], ['phase 2 B', h.withWebhooks], ['phase 2 W', h.paced]] as const) {
    if (failed(f)) flags.push(`webhooks ${name}: ${failed(f)} non-2xx/errors ${JSON.stringify(f.statusCodes)}`);
  }
  if (h.paced.reqPerSec < minRate) flags.push(`webhooks: W created only ${h.paced.reqPerSec}/s of the ${h.rate}/s asked`);
  if (!d.complete) flags.push(`webhooks: ${d.expected - d.received} of ${d.expected} events not delivered ${Math.round(d.drainMs / 1000)} s after the load`);
  if (d.duplicates) flags.push(`webhooks: ${d.duplicates} duplicate deliveries (same X-Svc-Event-Id)`);
  if (d.malformed) flags.push(`webhooks: ${d.malformed} deliveries with a body the receiver could not read`);
}

export const FIGURE_HEADER = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'peak RSS MB', 'CPU µs/req', 'of which main thread', 'PG µs/req', 'of which bank', 'machine µs/req'];
export const TARGET_HEADER = ['WORKERS', 'check', 'value', 'target', 'result'];

const opt = (v: number | undefined): string => (v === undefined ? '' : String(v));

/** Every load run of the results but baseline B (its figures are its own), named as the table names it. */
function namedLoads(r: Measured): Array<{ name: string; f: LoadFigures; rss?: number }> {
  const out: Array<{ name: string; f: LoadFigures; rss?: number }> = [];
  const load = (name: string, f: LoadFigures, rss?: number) => out.push({ name, f, rss });
  if (r.baselines.uws) load('A: bare uWS JSON hello', r.baselines.uws);
  for (const s of r.server) {
    if (s.create) load(`POST /api/v2/payments, WORKERS=${s.workers}`, s.create, s.create.peakRssMb);
    if (s.createAfter) load(`POST /api/v2/payments again, after the money paths, WORKERS=${s.workers}`, s.createAfter, s.createAfter.peakRssMb);
    if (s.checkout) load(`POST /v2/payments/checkout, WORKERS=${s.workers}`, s.checkout, s.checkout.peakRssMb);
    if (s.direct) load(`POST /v2/payments (card, automatic capture), WORKERS=${s.workers}`, s.direct, s.direct.peakRssMb);
    if (s.checkoutPay) load(`POST /checkout/{id}/pay (card, payments made before), WORKERS=${s.workers}`, s.checkoutPay, s.checkoutPay.peakRssMb);
    if (s.refunds) load(`POST /v2/payments/{id}/refund (partial, distinct payments), WORKERS=${s.workers}`, s.refunds, s.refunds.peakRssMb);
    if (s.captures) load(`POST /v2/payments/{id}/capture (authorized payments), WORKERS=${s.workers}`, s.captures, s.captures.peakRssMb);
    if (s.get) load(`GET /api/v2/payments/{id}, WORKERS=${s.workers}`, s.get, s.get.peakRssMb);
  }
  const m = r.multiGet;
  if (m) load(`GET /api/v2/payments/{id}, ${m.processes} processes × WORKERS=${m.workers}, one database`, m.get, m.get.peakRssMb);
  const po = r.payouts;
  if (po?.create) load(`POST /v2/payouts (one balance), WORKERS=${po.workers}`, po.create, po.create.peakRssMb);
  if (po?.distinct) load(`POST /v2/payouts (${po.distinct.balances} distinct balances), WORKERS=${po.workers}`, po.distinct, po.distinct.peakRssMb);
  const h = r.webhooks;
  if (h) {
    load(`webhooks 1: POST payments, B alone, WORKERS=${h.workers}`, h.alone, h.alone.peakRssMb);
    load(`webhooks 2: POST payments, B + W + deliveries, WORKERS=${h.workers}`, h.withWebhooks, h.withWebhooks.peakRssMb);
    load(`webhooks 2: POST payments, W at ${h.rate}/s (${h.pacer}${h.receiverAnswerMs ? `, receiver answers after ${h.receiverAnswerMs} ms` : ''}), WORKERS=${h.workers}`, h.paced);
  }
  return out;
}

export function figureRows(r: BenchResults): string[][] {
  const rows = namedLoads(r).map(({ name, f, rss }) => [name, String(f.reqPerSec), String(f.p50), String(f.p99), String(f.non2xx), String(f.errors + f.timeouts),
    rss === undefined ? '' : String(rss), opt(f.cpuUsPerReq), opt(f.mainCpuUsPerReq), opt(f.pgCpuUsPerReq), opt(f.bankPgCpuUsPerReq), opt(f.boxCpuUsPerReq)]);
  // Baseline B's rows come right after A's (first when A did not run): the run's first, then the
  // ones measured again before a later WORKERS value.
  const bs: Array<[string, InsertFigures]> = [];
  if (r.baselines.insert) bs.push(['B', r.baselines.insert]);
  for (const [w, i] of Object.entries(r.baselines.insertBefore ?? {})) bs.push([`B again, just before WORKERS=${w}`, i]);
  rows.splice(r.baselines.uws ? 1 : 0, 0, ...bs.map(([name, i]) => [`${name}: pg INSERT autocommit (${i.table}, ${i.connections} conns), rows/s`,
    String(Math.round(i.rowsPerSecond)), String(i.p50), String(i.p99), '', String(i.failures), '', '', '', '', '', '']));
  return rows;
}

/** Above this share of the machine's CPU time taken by the hypervisor (steal) in a run, the run is flagged. */
export const STEAL_FLAG_PCT = 10;

/**
 * A flag for every measured run during which the host took more than STEAL_FLAG_PCT of the CPUs
 * (steal): its rate and its ratios to other runs are the host's doing, whatever the code.
 */
export function stealFlags(r: Measured): string[] {
  return namedLoads(r).filter(({ f }) => (f.stealPct ?? 0) > STEAL_FLAG_PCT)
    .map(({ name, f }) => `the host took ${f.stealPct}% of the CPUs (steal) during "${name}": its figures and ratios are the host's, not the server's`);
}

export const WEBHOOK_HEADER = ['WORKERS', 'deliveries/s', 'received', 'expected', 'dupes', 'bad sigs', 'p50 ms', 'p99 ms', 'max ms', 'expiry lag p99 ms', 'wait p50 ≤ ms', 'wait p99 ≤ ms', 'B ratio', '(B+W) ratio'];

/** One row: commit-to-delivery over the events committed during phase 2's measured window. */
export function webhookRows(r: BenchResults): string[][] {
  const h = r.webhooks;
  if (!h) return [];
  const d = h.deliveries;
  // wait: the server's commit-to-first-attempt histogram (absent from runs before it existed).
  return [[h.workers, d.perSecond, d.received, d.expected, d.duplicates, d.signatureFailures, d.p50, d.p99, d.max, d.expiryLagP99,
    d.waitP50 ?? '-', d.waitP99 ?? '-', h.createRatio, h.totalCreateRatio].map(String)];
}

export const DISPATCH_HEADER = ['WORKERS', 'wake-ups: notify', 'commit', 'slot', 'poll', 'claims', 'empty', 'wake-ups per claim', 'deliveries per claim', 'requests on new sockets', 'on reused', 'receiver connections', 'sign µs/request'];

/** The dispatchers' counters over the webhook server's whole run (none for runs before they existed). */
export function dispatchRows(r: BenchResults): string[][] {
  const x = r.webhooks?.dispatch;
  if (!x) return [];
  return [[r.webhooks!.workers, x.wakeups.notify, x.wakeups.commit, x.wakeups.slot, x.wakeups.poll, x.claims, x.emptyClaims,
    x.wakeupsPerClaim ?? '-', x.deliveriesPerClaim ?? '-', x.newSockets, x.reusedSockets, x.receiverConnections ?? '-', x.renderUsPerRequest ?? '-'].map(String)];
}

export function targetRows(r: BenchResults): string[][] {
  return r.targets.map((t) => [String(t.workers), t.check, String(t.value), t.target, t.pass ? 'PASS' : 'MISS']);
}

export function describeSetup(r: BenchResults): string {
  const p = r.parameters;
  return `${r.date} · ${r.machine.cpus} × ${r.machine.model} · Node ${r.machine.node} · ` +
    `${p.connections} connections, ${p.warmupSeconds} s warm-up + ${p.seconds} s per scenario · ` +
    (p.serverNode ? `server node flags: ${p.serverNode} · ` : '') +
    `Postgres ${r.environment.postgres.version} (${r.environment.postgres.source}) · Redis: ${r.environment.redis.source}` +
    (p.only ? ` · only: ${p.only.join(', ')}` : '');
}
