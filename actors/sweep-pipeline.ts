// A sweep as a pipeline: claimed work is handed on as soon as it is claimed, and the next batch is
// claimed while earlier items are still in flight, so a sweep's rate is bounded by how fast items
// finish, not by the slowest item of each batch plus a claim round trip. At most `cap` items are
// in flight; a new batch is claimed once in flight falls to `lowWater`. The run ends when a claim
// comes back short (nothing more is due now) or the owner stops, and it resolves only once every
// item it claimed has finished: a caller that waits for the run waits for its work.
//
// A flowing sweep (startFlowingSweep) is for items that may each be slow for a reason of their own:
// it hands them on and claims again without waiting for them, at most `cap` in flight.
import type { Logger } from '../src/log.js';
import { startPeriodic, type Periodic } from './periodic.js';

export interface PipelineOptions<T> {
  /** Largest claim. */
  batch: number;
  /** Most items in flight at once. */
  cap: number;
  /** Claim again once in flight is at most this (default: cap − batch, i.e. as soon as a full batch fits). */
  lowWater?: number;
  /** Claims (and leases) up to `limit` items. */
  claim(limit: number): Promise<T[]>;
  /** Handles one item; a rejection stops further claims and is rethrown once in-flight work is done. */
  apply(item: T): Promise<void>;
  /** Checked before each claim: true ends the run after in-flight work finishes. */
  stopped(): boolean;
}

/** Runs one pipelined sweep; resolves with the number of items claimed. */
export async function runPipeline<T>(o: PipelineOptions<T>): Promise<number> {
  const lowWater = Math.max(0, Math.min(o.lowWater ?? o.cap - o.batch, o.cap - 1));
  let inflight = 0;
  let claimed = 0;
  let failed: { err: unknown } | null = null;
  let waiter: { atMost: number; resolve(): void } | null = null;
  const settle = (): void => {
    inflight--;
    if (waiter && inflight <= waiter.atMost) { const w = waiter; waiter = null; w.resolve(); }
  };
  const until = (atMost: number): Promise<void> | void => {
    if (inflight <= atMost) return;
    return new Promise<void>((resolve) => { waiter = { atMost, resolve }; });
  };
  try {
    while (!o.stopped() && !failed) {
      const room = Math.min(o.batch, o.cap - inflight);
      const items = await o.claim(room);
      claimed += items.length;
      for (const item of items) {
        inflight++;
        o.apply(item).catch((err: unknown) => { failed ??= { err }; }).finally(settle);
      }
      if (items.length < room) break; // nothing more due now: the next run looks again
      await until(lowWater);
    }
  } finally {
    await until(0);
  }
  if (failed) throw (failed as { err: unknown }).err;
  return claimed;
}

/**
 * Work handed on without waiting for it, for a sweep whose items may each be slow for a reason of
 * their own (a bank that does not answer, a row another transaction holds): the sweep claims again
 * as long as there is room, so one slow item never holds back the others. At most `cap` at once.
 * Each item handles its own failures; one that still rejects is given to `onError` (to be logged),
 * never left unhandled.
 */
class Inflight {
  private readonly items = new Set<Promise<void>>();

  constructor(readonly cap: number, private readonly onError: (err: unknown) => void) {}

  /** How many more items may start now. */
  get room(): number { return Math.max(0, this.cap - this.items.size); }

  add(work: Promise<void>): void {
    const p: Promise<void> = work.catch(this.onError).finally(() => { this.items.delete(p); });
    this.items.add(p);
  }

  /** Resolves once nothing is in flight (items added meanwhile included). */
  async drain(): Promise<void> {
    while (this.items.size) await Promise.all([...this.items]);
  }
}

export interface FlowingSweep<T> {
  /** Largest claim, and most items in flight at once. */
  batch: number;
  cap: number;
  /** Claims (and leases) up to `limit` items. */
  claim(limit: number): Promise<T[]>;
  /** Handles one item, its failures included: resolves true when the item is done for good. */
  apply(item: T): Promise<boolean>;
  /** Logs what finished since the last report (called when it is not 0). */
  report(done: number): void;
  /** Logs an item that rejected past its own handling (its lease brings it back). */
  failed(err: unknown): void;
}

/**
 * A periodic sweep (periodic.ts) that claims while it has room and hands every item on without
 * waiting for it. Each run returns how many items finished since the previous one; stop() ends the
 * claims, then waits for the items in flight.
 */
export function startFlowingSweep<T>(name: string, pollMs: number, log: Logger, o: FlowingSweep<T>): Periodic {
  const inflight = new Inflight(o.cap, o.failed);
  let done = 0;
  const sweep = startPeriodic(name, pollMs, log, async (self) => {
    for (;;) {
      const limit = Math.min(o.batch, inflight.room);
      if (limit === 0 || self.stopped) break;
      const items = await o.claim(limit);
      for (const item of items) inflight.add(o.apply(item).then((ok) => { if (ok) done++; }));
      if (items.length < limit) break;
    }
    const n = done;
    done = 0;
    return n;
  }, o.report);
  return {
    get stopped() { return sweep.stopped; },
    tick: () => sweep.tick(),
    async stop() { await sweep.stop(); await inflight.drain(); },
  };
}
