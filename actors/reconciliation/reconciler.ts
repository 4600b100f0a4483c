// The reconciler (issue 26): a periodic sweep that any number of processes run. Each tick takes over
// a run whose claimant died (lease ended), then claims the closed windows after the latest run, one
// at a time (a unique window start: one process per window), and compares the engine's attempts of
// each with the banks' reports (src/domain/reconciliation.ts). Connectors are asked only through
// their `report` operation, so a new acquirer needs no change here.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Connector } from '../../src/connectors/types.js';
import { compareWindow, reportRange, type BankOperation, type Difference } from '../../src/domain/reconciliation.js';
import type { Logger } from '../../src/log.js';
import {
  attemptsByKeys, claimNextWindow, claimStaleRun, completeRun, failRun, recordDifferences, windowAttempts, type Run, type WindowPolicy,
} from '../../src/store/reconciliation-repo.js';
import { startPeriodic, type Periodic } from '../periodic.js';

export interface ReconcilerOptions extends WindowPolicy {
  /** How often a process looks for work; 0: never (the reconciler is off in this process). */
  intervalMs: number;
  /**
   * Time between the engine's and the bank's record of one operation within which the pair is compared in
   * the attempt's window (the server uses the window delay: the report then ends no later than now).
   */
  toleranceMs: number;
  /** Windows one tick may reconcile (catching up after a stop). */
  maxWindowsPerTick?: number;
  /** How long a failed try waits before the run is tried again, seconds. */
  retrySeconds?: number;
}

export interface RunOutcome { runId: string; attempts: number; bank: number; differences: number; recorded: number; completed: boolean }

/** Compares one claimed window and records its differences; `me` must hold the run. */
export async function reconcileRun(db: pg.Pool, connectors: readonly Connector[], run: Run, me: string, toleranceMs: number): Promise<RunOutcome> {
  const engine = await windowAttempts(db, run.windowStart, run.windowEnd);
  const w = { start: run.windowStart, end: run.windowEnd, tolerance: toleranceMs };
  const range = reportRange(w, engine);
  const connectorOfKey = new Map<string, string>();
  const bank: BankOperation[] = [];
  for (const c of connectors) {
    for (const op of await c.report(range.from, range.to)) {
      connectorOfKey.set(op.key, c.name);
      bank.push(op);
    }
  }
  const own = new Set(engine.map((e) => e.key));
  const elsewhere = await attemptsByKeys(db, bank.filter((b) => !own.has(b.key) && b.at >= run.windowStart && b.at < run.windowEnd).map((b) => b.key));
  const diffs = compareWindow(w, engine, bank, elsewhere);
  const connectorOf = (d: Difference) => d.engine?.connector ?? connectorOfKey.get(d.key) ?? 'unknown';
  const recorded = await recordDifferences(db, run.id, diffs, connectorOf);
  const bankInWindow = bank.filter((b) => b.at >= run.windowStart && b.at < run.windowEnd).length;
  const completed = await completeRun(db, run.id, me, { attempts: engine.length, bank: bankInWindow });
  return { runId: run.id, attempts: engine.length, bank: bankInWindow, differences: diffs.length, recorded, completed };
}

export interface Reconciler extends Periodic { readonly processId: string }

export function startReconciler(db: pg.Pool, connectors: readonly Connector[], opts: ReconcilerOptions, log: Logger): Reconciler | null {
  if (opts.intervalMs === 0) return null;
  const me = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const retry = opts.retrySeconds ?? 30;
  const attempt = async (run: Run): Promise<boolean> => {
    try {
      const r = await reconcileRun(db, connectors, run, me, opts.toleranceMs);
      const line = { runId: r.runId, windowStart: new Date(run.windowStart).toISOString(), windowEnd: new Date(run.windowEnd).toISOString(), attempts: r.attempts, bankOperations: r.bank, differences: r.differences, newDifferences: r.recorded };
      if (r.differences) log.warn(line, 'reconciliation found differences between the engine and the bank');
      else log.info(line, 'reconciliation window clean');
      return r.completed;
    } catch (err) {
      log.error({ err, runId: run.id }, 'reconciliation run failed; tried again when its lease ends');
      await failRun(db, run.id, me, (err as Error).message ?? String(err), retry).catch((e: Error) => log.warn({ err: e, runId: run.id }, 'could not record the failed reconciliation try'));
      return false;
    }
  };
  const p = startPeriodic('reconciliation', opts.intervalMs, log, async (self) => {
    let done = 0;
    for (let stale = await claimStaleRun(db, me, opts.leaseSeconds); stale && !self.stopped; stale = await claimStaleRun(db, me, opts.leaseSeconds)) {
      if (await attempt(stale)) done++;
      else break;
    }
    for (let i = 0; i < (opts.maxWindowsPerTick ?? 24) && !self.stopped; i++) {
      const next = await claimNextWindow(db, me, opts);
      if ('waiting' in next) {
        if (next.waiting === 'taken') continue; // another process has it: look at the one after
        if (next.waiting === 'open_attempts') log.debug({ windowStart: new Date(next.start).toISOString() }, 'reconciliation waits for open attempts of its window (the recovery sweep settles them)');
        break;
      }
      if (await attempt(next.run)) done++;
      else break;
    }
    return done;
  }, (n) => log.debug({ runs: n }, 'reconciliation runs completed'));
  return Object.assign(p, { processId: me });
}
