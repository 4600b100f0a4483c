// Group commit for one worker: writes that arrive while earlier ones are in flight are sent
// together in one statement, so Postgres pays its per-statement and per-commit cost once per
// group rather than once per aggregate. At low load every write goes alone, with no added wait.
// Each caller still gets its answer only after the statement holding its row has committed, and
// each actor still has at most one write in flight (its mailbox), so ordering per id is unchanged.
//
// A statement that stays out long (a row it needs is locked by another transaction) does not hold the
// rest: after `stalledMs` the writes waiting for it go in a statement of their own.
//
// A statement that fails as a whole was rolled back, so its group is split in halves and each half
// is tried again: one bad row fails alone and never takes unrelated writes with it. A failure that
// leaves the outcome unknown (the connection to the database broke, a timeout) is not retried: its
// callers learn that the outcome is unknown, and the version checks make their own retries safe.
//
// A statement that gave up waiting for a lock (lock_timeout) was rolled back too, but halving it would
// make each half wait for the same lock again. The writer asks which of its rows another transaction
// holds (`lockWait.held`): the others go again at once, as one statement, and each held row alone;
// when none of its rows is held (the lock is on something they share), every write fails with the
// error, whose outcome is known.

interface Pending<I, O> { item: I; resolve(o: O): void; reject(e: unknown): void }

export interface GroupWriterOptions<I = unknown> {
  maxInflight?: number;
  maxBatch?: number;
  /**
   * Group before going parallel: the first statement leaves at the end of the current turn of the
   * event loop (with every write that arrived in it, e.g. one batch of commands from the main
   * thread), and statements beyond the first start only for a full batch (`maxBatch` waiting), so
   * writes that arrive while one is in flight wait for the next group, and more statements run in
   * parallel only when one cannot carry the load. Fewer, larger statements cost less CPU per write
   * (here and in Postgres) than as many parallel ones as `maxInflight` allows.
   */
  groupFirst?: boolean;
  /** Whether a failed statement may have committed (so it must not be retried blindly). */
  ambiguous?: (err: unknown) => boolean;
  /**
   * With groupFirst: when a statement has been in flight this long (ms), the writes waiting for it
   * go in a statement of their own, partial batch or not. A statement that waits on a row another
   * transaction holds (an operator's session, a long lock) otherwise held every other write of the
   * shard until Postgres cancelled it (statement_timeout, 5 s by default; session 22). 0: never.
   */
  stalledMs?: number;
  /**
   * Lock timeouts (see the file's head): `timedOut` tells one apart, `held` says which of the items'
   * rows another transaction holds now (without waiting for them). Without `held`, or when `held`
   * fails (it logs its own error: the writer has no logger), a statement that timed out on a lock
   * fails all its writes with the lock timeout.
   */
  lockWait?: { timedOut: (err: unknown) => boolean; held?: (items: I[]) => Promise<boolean[]> };
}

/** The default stalledMs: far above a grouped statement's time under load, far below a statement timeout. */
export const STALLED_STATEMENT_MS = 250;

export class GroupWriter<I, O> {
  private queue: Pending<I, O>[] = [];
  /**
   * Statements sent and the writes they carried, and the statements started beside a stalled one,
   * since start (/metrics: payment_write_*).
   */
  readonly stats = { statements: 0, writes: 0, stalls: 0, lockTimeouts: 0 };
  private inflight = 0;
  private readonly maxInflight: number;
  private readonly maxBatch: number;
  private readonly groupFirst: boolean;
  private readonly ambiguous: (err: unknown) => boolean;
  private readonly stalledMs: number;
  private readonly lockWait: GroupWriterOptions<I>['lockWait'];
  /** When each statement in flight started (performance.now()), for the stall check. */
  private readonly started = new Set<{ at: number }>();
  private stallTimer: NodeJS.Timeout | null = null;

  /** `write` answers each item in order: its outcome, or an Error that fails that item alone. */
  constructor(private readonly write: (items: I[]) => Promise<(O | Error)[]>, opts: GroupWriterOptions<I> = {}) {
    this.maxInflight = opts.maxInflight ?? 4;
    this.maxBatch = opts.maxBatch ?? 64;
    this.groupFirst = opts.groupFirst ?? false;
    this.ambiguous = opts.ambiguous ?? (() => true);
    this.stalledMs = opts.stalledMs ?? STALLED_STATEMENT_MS;
    this.lockWait = opts.lockWait;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.groupFirst) { if (this.inflight < this.maxInflight) void this.drain(); return; }
      if (this.inflight === 0 && !this.starting) { this.starting = true; setImmediate(this.start); }
      else if (this.inflight > 0 && this.inflight < this.maxInflight && this.queue.length >= this.maxBatch) void this.drain();
      else if (this.inflight > 0) this.watchStall();
    });
  }

  /** Starts a statement for the waiting writes once the oldest statement in flight has been out stalledMs. */
  private watchStall(): void {
    if (this.stallTimer || !this.groupFirst || this.stalledMs <= 0) return;
    const oldest = this.oldestStart();
    if (oldest === null) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      const first = this.oldestStart();
      if (this.queue.length === 0 || first === null) return;
      if (performance.now() - first < this.stalledMs) { this.watchStall(); return; }
      if (this.inflight < this.maxInflight) { this.stats.stalls++; void this.drain(true); }
    }, Math.max(1, oldest + this.stalledMs - performance.now()));
    this.stallTimer.unref();
  }

  /** When the oldest statement in flight started, or null when none is. */
  private oldestStart(): number | null {
    let oldest: number | null = null;
    for (const s of this.started) if (oldest === null || s.at < oldest) oldest = s.at;
    return oldest;
  }

  private starting = false;
  private readonly start = (): void => {
    this.starting = false;
    if (this.inflight === 0) void this.drain();
  };

  /** `stalled`: started because a statement in flight stalled; it takes one batch, partial or not. */
  private async drain(stalled = false): Promise<void> {
    this.inflight++;
    try {
      for (let first = true; this.queue.length > 0; first = false) {
        // A spare statement stops at a partial batch while another is in flight: that one takes it.
        if (this.groupFirst && this.inflight > 1 && this.queue.length < this.maxBatch && !(stalled && first)) break;
        const mark = { at: performance.now() };
        this.started.add(mark);
        try { await this.run(this.queue.splice(0, this.maxBatch)); } finally { this.started.delete(mark); }
      }
    } finally {
      this.inflight--;
      if (this.queue.length > 0 && this.inflight > 0) this.watchStall();
    }
  }

  private async run(batch: Pending<I, O>[]): Promise<void> {
    let outcomes: (O | Error)[];
    this.stats.statements++;
    this.stats.writes += batch.length;
    try {
      outcomes = await this.write(batch.map((b) => b.item));
    } catch (err) {
      if (this.lockWait?.timedOut(err)) { this.stats.lockTimeouts++; if (batch.length > 1) { await this.afterLockTimeout(batch, err); return; } }
      if (batch.length === 1 || this.ambiguous(err)) { for (const b of batch) b.reject(err); return; }
      const half = Math.ceil(batch.length / 2);
      await this.run(batch.slice(0, half));
      await this.run(batch.slice(half));
      return;
    }
    batch.forEach((b, i) => {
      const o = outcomes[i];
      if (o instanceof Error) b.reject(o); else b.resolve(o);
    });
  }

  /** A group that timed out on a lock: its rows not held go again together, each held row alone. */
  private async afterLockTimeout(batch: Pending<I, O>[], err: unknown): Promise<void> {
    const held = this.lockWait?.held ? await this.lockWait.held(batch.map((b) => b.item)).catch(() => null) : null;
    if (!held || !held.some(Boolean)) { for (const b of batch) b.reject(err); return; }
    const free = batch.filter((_, i) => !held[i]);
    await Promise.all([free.length > 0 ? this.run(free) : null, ...batch.filter((_, i) => held[i]).map((b) => this.run([b]))]);
  }
}
