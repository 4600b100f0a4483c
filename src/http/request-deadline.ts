// One end-to-end deadline per request (DESIGN invariant 10; issue 22): whatever the request waits
// on (a pool connection, statements, the actor's mailbox and its bank call), its answer leaves
// within REQUEST_DEADLINE_MS of its arrival. Past it the client gets 503 deadline_exceeded, an
// unknown outcome (retry with the same key), and the late answer is dropped. One timer sweeps all
// requests in arrival order, so a request costs a set insertion, not a timer of its own.
import type { Ctx } from './context.js';

export class RequestDeadlines {
  private readonly open = new Set<Ctx>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly ms: number, private readonly onLate: (ctx: Ctx) => void, tickMs = Math.max(10, Math.min(100, Math.floor(ms / 4)))) {
    this.timer = setInterval(() => this.sweep(performance.now()), tickMs);
    this.timer.unref();
  }

  watch(ctx: Ctx): void { this.open.add(ctx); }

  settled(ctx: Ctx): void { this.open.delete(ctx); }

  /** Answers every request older than the deadline; the set is in arrival order, so it stops at the first young one. */
  sweep(now: number): void {
    for (const ctx of this.open) {
      if (ctx.done || ctx.aborted) { this.open.delete(ctx); continue; }
      if (now - ctx.startedAt < this.ms) break;
      this.open.delete(ctx);
      this.onLate(ctx);
    }
  }

  get size(): number { return this.open.size; }

  close(): void { clearInterval(this.timer); }
}
