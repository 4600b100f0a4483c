// Circuit breaker of the key-value store (one per Redis node): after a run of failures it stops
// asking that node, so that callers fail open at once instead of each waiting out the timeout;
// after a pause it lets one call through as a probe, and closes again when the probe succeeds.
// Pure state with an injectable clock; src/store/kv-redis.ts drives it.

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  failures: number;
  /** First pause before a probe; doubles after each failed probe up to maxOpenMs. */
  openMs: number;
  maxOpenMs: number;
  now?: () => number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failures: 3, openMs: 500, maxOpenMs: 5000 };

/** Thrown instead of calling Redis while a breaker is open: callers fail open, as for any error. */
export class KvUnavailableError extends Error {
  readonly code = 'KV_UNAVAILABLE';
  constructor(node: string) { super(`key-value store node ${node} is failing; not asked (circuit open)`); }
}

export class Breaker {
  private failed = 0;
  private openUntil = 0;
  private pause: number;
  private probing = false;
  private readonly now: () => number;

  constructor(private readonly opts: BreakerOptions = DEFAULT_BREAKER) {
    this.pause = opts.openMs;
    this.now = opts.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.failed < this.opts.failures) return 'closed';
    return this.probing || this.now() >= this.openUntil ? 'half_open' : 'open';
  }

  /** Whether a call may go to the node now. While open, no; once the pause is over, one probe at a time. */
  allow(): boolean {
    if (this.failed < this.opts.failures) return true;
    if (this.probing || this.now() < this.openUntil) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    this.failed = 0;
    this.probing = false;
    this.pause = this.opts.openMs;
  }

  failure(): void {
    const wasProbe = this.probing;
    this.probing = false;
    this.failed++;
    if (this.failed < this.opts.failures) return;
    if (wasProbe) this.pause = Math.min(this.pause * 2, this.opts.maxOpenMs);
    this.openUntil = this.now() + this.pause;
  }
}
