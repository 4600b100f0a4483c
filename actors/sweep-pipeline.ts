// A sweep as a pipeline: claimed work is handed on as soon as it is claimed, and the next batch is
// claimed while earlier items are still in flight, so a sweep's rate is bounded by how fast items
// finish, not by the slowest item of each batch plus a claim round trip. At most `cap` items are
// in flight; a new batch is claimed once in flight falls to `lowWater`. The run ends when a claim
// comes back short (nothing more is due now) or the owner stops, and it resolves only once every
// item it claimed has finished: a caller that waits for the run waits for its work.

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
