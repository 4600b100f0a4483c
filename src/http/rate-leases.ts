// Leased rate-limit windows: each process takes blocks of a window's allowance from the key-value
// store in one atomic step (never past the limit) and spends them locally, so N requests over all
// processes never admit more than the limit, without one store round trip per request.
//
// Every admitted request holds one numbered unit ("ticket" n of the window, 1 <= n <= limit); its
// X-RateLimit-Remaining is limit - n. Units leased by other processes and not yet spent are not
// seen, so the header is truthful to within the other processes' leased blocks (see blockFor).
// Requests that find no unit wait for the lease in flight; the next lease asks for at least as
// many units as there are waiters, so a burst costs one round trip, not one per request.
import type { KeyValue } from '../store/kv.js';

export const WINDOW_MS = 60_000;
/** A lease that has not answered by then lets its waiters through (fail open). */
export const LEASE_DEADLINE_MS = 1000;

/**
 * Units leased ahead of demand: none below a limit of 200 (exactly what waiting requests need, so
 * small limits are admitted exactly as one shared counter would), else 1 % of the limit, at most
 * 256. A process never holds more than this unspent, so N processes admit at least
 * limit - N * blockFor(limit) of a window when the demand is there.
 */
export const blockFor = (limit: number): number => (limit < 200 ? 1 : Math.min(256, Math.floor(limit / 100)));

export type Spent =
  | { kind: 'admitted'; ticket: number; expiresAt: number }
  | { kind: 'denied'; expiresAt: number }
  | { kind: 'unavailable' };

interface Window {
  limit: number;
  /** Our next unit and the last one leased (next > last: none left). */
  next: number;
  last: number;
  /** Local end of the window: the lease's send time + the store's time left (never later than the store's). */
  expiresAt: number;
  spent: boolean;
  leasing: boolean;
  waiters: Array<(s: Spent) => void>;
}

export class RateLeases {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly kv: KeyValue, private readonly deadlineMs = LEASE_DEADLINE_MS) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  /** Spends one unit of `key`'s window: synchronously when one is held, else after a lease. */
  spend(key: string, limit: number, now: number): Spent | Promise<Spent> {
    let w = this.windows.get(key);
    if (!w || w.limit !== limit || now >= w.expiresAt) {
      // A new window (or a changed limit): a lease still in flight for the old one serves its own waiters.
      w = { limit, next: 1, last: 0, expiresAt: Infinity, spent: false, leasing: false, waiters: [] };
      this.windows.set(key, w);
    }
    if (w.next <= w.last && now < w.expiresAt) return { kind: 'admitted', ticket: w.next++, expiresAt: w.expiresAt };
    if (w.spent && now < w.expiresAt) return { kind: 'denied', expiresAt: w.expiresAt };
    const win = w;
    return new Promise<Spent>((resolve) => {
      win.waiters.push(resolve);
      if (!win.leasing) void this.lease(key, win);
    });
  }

  private async lease(key: string, w: Window): Promise<void> {
    w.leasing = true;
    const sentAt = Date.now();
    const want = Math.max(blockFor(w.limit), w.waiters.length);
    let timer: NodeJS.Timeout | undefined;
    let got: Awaited<ReturnType<KeyValue['rateLease']>> | null;
    try {
      got = await Promise.race([
        this.kv.rateLease(`rl:${key}`, WINDOW_MS, want, w.limit),
        new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), this.deadlineMs); }),
      ]);
    } catch {
      got = null;
    } finally {
      clearTimeout(timer);
    }
    w.leasing = false;
    if (got === null) {
      // The store is down or slow: every request waiting now is let through; the next one asks again.
      for (const resolve of w.waiters.splice(0)) resolve({ kind: 'unavailable' });
      return;
    }
    w.expiresAt = sentAt + got.ttlMs;
    w.next = got.before + 1;
    w.last = got.before + got.granted;
    w.spent = got.granted < want;
    const waiters = w.waiters.splice(0);
    let i = 0;
    for (; i < waiters.length && w.next <= w.last; i++) waiters[i]({ kind: 'admitted', ticket: w.next++, expiresAt: w.expiresAt });
    if (i < waiters.length && w.spent) {
      for (; i < waiters.length; i++) waiters[i]({ kind: 'denied', expiresAt: w.expiresAt });
    } else if (i < waiters.length) {
      // Arrived while the lease was in flight: lease again for them.
      w.waiters.push(...waiters.slice(i));
      void this.lease(key, w);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, w] of this.windows) if (now >= w.expiresAt && !w.leasing && w.waiters.length === 0) this.windows.delete(k);
  }

  close(): void { clearInterval(this.sweeper); this.windows.clear(); }
}
