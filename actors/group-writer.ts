// Group commit for one worker: writes that arrive while earlier ones are in flight are sent
// together in one statement, so Postgres pays its per-statement and per-commit cost once per
// group rather than once per aggregate. At low load every write goes alone, with no added wait.
// Each caller still gets its answer only after the statement holding its row has committed, and
// each actor still has at most one write in flight (its mailbox), so ordering per id is unchanged.

interface Pending<I, O> { item: I; resolve(o: O): void; reject(e: unknown): void }

export class GroupWriter<I, O> {
  private queue: Pending<I, O>[] = [];
  private inflight = 0;

  constructor(private readonly write: (items: I[]) => Promise<O[]>, private readonly maxInflight = 4, private readonly maxBatch = 64) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.inflight < this.maxInflight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inflight++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outcomes = await this.write(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(outcomes[i]));
        } catch (err) {
          batch.forEach((b) => b.reject(err)); // a failed statement fails only its own group
        }
      }
    } finally {
      this.inflight--;
    }
  }
}
