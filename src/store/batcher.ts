// Groups the key lookups that arrive together into one load (for example one
// `SELECT … WHERE id = ANY($1)`), on the thread that asks.
//
// A lookup joins the queue; the queue is sent at the end of the current event-loop turn
// (setImmediate: every request uWS handed over in that turn is in it), or, when `maxInflight`
// loads are already running, as soon as one of them finishes: under load, lookups gather while
// earlier loads are in flight and the batches grow by themselves. A load takes at most `maxBatch`
// keys. Each caller gets its own value (null when the load did not find the key); a load that fails
// rejects only the lookups it carried, and the failure is reported once through `onError`.
//
// Freshness: a lookup is only ever added to a load that has not been sent yet, so the statement
// starts after the lookup arrived and sees every write committed before it.

export interface BatcherOptions<K, V> {
  /** Loads many keys at once; keys absent from the map are answered null. */
  load(keys: K[]): Promise<Map<K, V>>;
  /** Keys per load, at most. */
  maxBatch: number;
  /** Loads running at once, at most; lookups arriving meanwhile wait for the next one. */
  maxInflight: number;
  /** Told about every failed load (its error and how many lookups it failed). */
  onError(err: Error, lookups: number): void;
}

interface Waiter<K, V> { key: K; resolve(v: V | null): void; reject(err: Error): void }

export interface BatcherStats { loads: number; lookups: number; failedLoads: number; largest: number }

export class Batcher<K, V> {
  private queue: Waiter<K, V>[] = [];
  private scheduled = false;
  private inflight = 0;
  /** Counters since start, for /metrics and tests. */
  readonly stats: BatcherStats = { loads: 0, lookups: 0, failedLoads: 0, largest: 0 };

  constructor(private readonly opts: BatcherOptions<K, V>) {
    if (opts.maxBatch < 1 || opts.maxInflight < 1) throw new Error('maxBatch and maxInflight must be at least 1');
  }

  get(key: K): Promise<V | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      if (!this.scheduled && this.inflight < this.opts.maxInflight) {
        this.scheduled = true;
        setImmediate(() => { this.scheduled = false; this.flush(); });
      }
    });
  }

  /** Loads running now (for tests and metrics). */
  get running(): number { return this.inflight; }

  private flush(): void {
    while (this.queue.length > 0 && this.inflight < this.opts.maxInflight) {
      void this.run(this.queue.splice(0, this.opts.maxBatch));
    }
  }

  private async run(batch: Waiter<K, V>[]): Promise<void> {
    this.inflight++;
    const s = this.stats;
    s.loads++;
    s.lookups += batch.length;
    if (batch.length > s.largest) s.largest = batch.length;
    try {
      const found = await this.opts.load([...new Set(batch.map((w) => w.key))]);
      for (const w of batch) w.resolve(found.get(w.key) ?? null);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      s.failedLoads++;
      this.opts.onError(err, batch.length);
      for (const w of batch) w.reject(err);
    } finally {
      this.inflight--;
      // What gathered while this load ran goes now, together.
      this.flush();
    }
  }
}
