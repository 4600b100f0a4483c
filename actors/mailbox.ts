// A keyed mailbox: jobs for one id run strictly one after another, in arrival order; jobs for
// different ids interleave freely. Bounded: a full mailbox refuses instead of queueing forever.

type Job = () => Promise<void>;

export class KeyedMailbox {
  private readonly queues = new Map<string, Job[]>();
  private pending = 0;

  constructor(private readonly limit: number) {}

  get depth(): number { return this.pending; }
  get activeIds(): number { return this.queues.size; }

  /** Queues a job for `id`; false when the mailbox is full. */
  push(id: string, job: Job): boolean {
    if (this.pending >= this.limit) return false;
    this.pending++;
    const q = this.queues.get(id);
    if (q) { q.push(job); return true; }
    this.queues.set(id, [job]);
    void this.run(id);
    return true;
  }

  private async run(id: string): Promise<void> {
    const q = this.queues.get(id)!;
    while (q.length > 0) {
      const job = q[0];
      try { await job(); } catch { /* a job reports its own failure; the mailbox keeps going */ }
      q.shift();
      this.pending--;
    }
    this.queues.delete(id);
  }

  /** Resolves once every queued job has finished. */
  async idle(): Promise<void> {
    while (this.pending > 0) await new Promise((r) => setTimeout(r, 5));
  }
}
