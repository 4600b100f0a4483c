// Issue 25's targets ("Money moves at the speed of a create"): every money-moving scenario as a
// ratio to the merchant API's create req/s of the same run and WORKERS (the mean of a window before
// them and one after: referenceCreate), plus the direct payment's p99 and its Postgres CPU per
// payment against a create's. The webhook and create targets are in results.ts.
import type { LoadFigures } from './load.js';
import type { PayoutRun } from './payout-scenarios.js';
import type { ScenarioFigures, ServerRun } from './server-scenarios.js';
import { round } from './stats.js';

export const MONEY_TARGETS = { ratio: 0.4, directP99Ms: 100, directPgRatio: 3 } as const;

type Add = (check: string, value: number, target: string, pass: boolean) => void;
const failed = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;

/** The money scenarios of one server run: `name` in the check, the figures, the flag's name. */
function scenariosOf(s: ServerRun): Array<[string, ScenarioFigures]> {
  const all: Array<[string, ScenarioFigures | null | undefined]> = [
    ['direct payment', s.direct], ['checkout pay', s.checkoutPay], ['refund', s.refunds], ['capture', s.captures],
  ];
  return all.filter((x): x is [string, ScenarioFigures] => !!x[1]);
}

function flagRun(w: number, name: string, f: ScenarioFigures, flags: string[]): void {
  if (failed(f)) flags.push(`WORKERS=${w} ${name}: ${failed(f)} non-2xx/errors ${JSON.stringify(f.statusCodes)}`);
  const p = (f as { prepared?: { prepared: number; wanted: number } }).prepared;
  if (f.ranOut && p) {
    flags.push(`WORKERS=${w} ${name}: used all ${p.prepared} prepared objects (${p.wanted} wanted) before the window ended: its req/s is over a shorter run (raise BENCH_PREPARED_RATE or BENCH_PREPARE_SECONDS)`);
  }
}

/** What a money path is judged against: a create's req/s and Postgres CPU per request. */
export interface ReferenceCreate { reqPerSec: number; pgCpuUsPerReq?: number }

/**
 * The create of a server run that its money paths are judged against: the mean of the windows
 * before and after them when both were measured (the machine's speed drifts over a run, and the
 * paths run on the database the first window began to grow), else the one before.
 */
export function referenceCreate(s: ServerRun): ReferenceCreate | null {
  const a = s.create;
  if (!a) return null;
  const b = s.createAfter;
  if (!b) return { reqPerSec: a.reqPerSec, pgCpuUsPerReq: a.pgCpuUsPerReq };
  const pg = a.pgCpuUsPerReq !== undefined && b.pgCpuUsPerReq !== undefined ? (a.pgCpuUsPerReq + b.pgCpuUsPerReq) / 2 : a.pgCpuUsPerReq;
  return { reqPerSec: (a.reqPerSec + b.reqPerSec) / 2, pgCpuUsPerReq: pg };
}

/** The checks of one server run (WORKERS w); `add` records them for w. */
export function judgeMoney(s: ServerRun, add: Add, flags: string[]): void {
  const c = referenceCreate(s);
  for (const failure of s.failures ?? []) flags.push(`WORKERS=${s.workers} ${failure}`);
  if (s.create && s.createAfter) {
    if (failed(s.createAfter)) flags.push(`WORKERS=${s.workers} create (after): ${failed(s.createAfter)} non-2xx/errors ${JSON.stringify(s.createAfter.statusCodes)}`);
    add('create req/s after the money paths ÷ before (info)', round(s.createAfter.reqPerSec / s.create.reqPerSec), 'reported', true);
  }
  for (const [name, f] of scenariosOf(s)) {
    flagRun(s.workers, name, f, flags);
    if (c) add(`${name} req/s ÷ create req/s`, round(f.reqPerSec / c.reqPerSec), `≥ ${MONEY_TARGETS.ratio}`, f.reqPerSec / c.reqPerSec >= MONEY_TARGETS.ratio);
    if (name !== 'direct payment') continue;
    add('direct payment p99 (ms)', f.p99, `< ${MONEY_TARGETS.directP99Ms}`, f.p99 < MONEY_TARGETS.directP99Ms);
    if (c?.pgCpuUsPerReq && f.pgCpuUsPerReq !== undefined) {
      const ratio = f.pgCpuUsPerReq / c.pgCpuUsPerReq;
      add('direct payment PG µs/req ÷ create PG µs/req', round(ratio), `≤ ${MONEY_TARGETS.directPgRatio}`, ratio <= MONEY_TARGETS.directPgRatio);
      // The engine's own part, the sandbox bank's backends left out (it stands for a remote acquirer): reported, not judged.
      if (f.bankPgCpuUsPerReq !== undefined) {
        add('direct payment PG µs/req without the bank\'s ÷ create PG µs/req (info)', round((f.pgCpuUsPerReq - f.bankPgCpuUsPerReq) / c.pgCpuUsPerReq), 'reported', true);
      }
    }
  }
}

/** Payouts against the create of the server run with the same WORKERS: distinct balances judged, one balance reported. */
export function judgePayouts(po: PayoutRun, server: ServerRun[], add: Add, flags: string[]): void {
  const run = server.find((s) => s.workers === po.workers);
  const c = run ? referenceCreate(run) : null;
  if (po.create) {
    if (failed(po.create)) flags.push(`WORKERS=${po.workers} payouts (one balance): ${failed(po.create)} non-2xx/errors ${JSON.stringify(po.create.statusCodes)}`);
    if (c) add('payouts, one balance, req/s ÷ create req/s (info)', round(po.create.reqPerSec / c.reqPerSec), 'reported', true);
  }
  const d = po.distinct;
  if (d) {
    if (failed(d)) flags.push(`WORKERS=${po.workers} payouts (${d.balances} balances): ${failed(d)} non-2xx/errors ${JSON.stringify(d.statusCodes)}`);
    if (c) add(`payouts, ${d.balances} balances, req/s ÷ create req/s`, round(d.reqPerSec / c.reqPerSec), `≥ ${MONEY_TARGETS.ratio}`, d.reqPerSec / c.reqPerSec >= MONEY_TARGETS.ratio);
  }
}
