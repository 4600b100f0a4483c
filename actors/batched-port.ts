// Messages between the main thread and a shard's worker travel in batches: everything posted while
// the current turn of the event loop runs (every request parsed in one poll of the sockets, every
// reply whose statement came back together) crosses in one postMessage, sent from setImmediate.
// One structured clone and one wake-up of the other thread per batch instead of per message; order
// is kept (FIFO within and across batches).
import type { MessagePort } from 'node:worker_threads';

export class BatchedPort<M> {
  private queue: M[] = [];
  private scheduled = false;

  constructor(private readonly port: MessagePort) {}

  post(m: M): void {
    this.queue.push(m);
    if (!this.scheduled) { this.scheduled = true; setImmediate(this.flush); }
  }

  /** Sends what is queued now (also called by the timer). */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.port.postMessage(batch);
  };
}

/** Listens for batches, handing each message to `handle` in order. */
export function onBatch<M>(port: MessagePort, handle: (m: M) => void): void {
  port.on('message', (batch: M[]) => { for (const m of batch) handle(m); });
}
