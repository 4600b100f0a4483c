// A keyed mailbox: jobs for one id run strictly one after another, in arrival order; jobs for
// different ids interleave freely. Bounded twice: a full mailbox refuses instead of queueing
// forever, and so does one id whose own queue is full, so a hot id cannot take the whole budget.

type Job = () => Promise<void>;

export type PushResult = 'queued' | 'full' | 'id_full';

export class KeyedMailbox {
  private readonly queues = new Map<string, Job[]>();
  private pending = 0;

  constructor(private readonly limit: number, private readonly perIdLimit = Infinity) {}

  get depth(): number { return this.pending; }
  get activeIds(): number { return this.queues.size; }

  /** Queues a job for `id`, unless the mailbox or that id's queue is full. */
  push(id: string, job: Job): PushResult {
    if (this.pending >= this.limit) return 'full';
    const q = this.queues.get(id);
    if (q && q.length >= this.perIdLimit) return 'id_full';
    this.pending++;
    if (q) { q.push(job); return 'queued'; }
    this.queues.set(id, [job]);
    void this.run(id);
    return 'queued';
  }

  private async run(id: string): Promise<void> {
    const q = this.queues.get(id)!;
    while (q.length > 0) {
      const job = q[0];
      try { await job(); } catch { /* a job reports its own failure (the worker logs it); the mailbox keeps going */ }
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
