// The key-value port: idempotency records, rate-limit counters and caches. Redis in production,
// an in-process map for the single-process default. Callers treat every failure as "Redis is
// down" and fall back to Postgres or fail open; nothing durable lives here.

export interface RateLease { before: number; granted: number; ttlMs: number }

export interface KeyValue {
  readonly kind: 'redis' | 'memory';
  /**
   * Leases up to `want` units of a fixed window's allowance atomically: the counter (which starts
   * its window at the first lease) never goes past `limit`. Returns the count before the lease, the
   * units granted (0 once the window is spent) and the window's time left.
   */
  rateLease(key: string, windowMs: number, want: number, limit: number): Promise<RateLease>;
  /** Stores value only if the key is absent; returns null when stored, else the value already there. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Sets several keys with one time to live, in one command where the store can (one Redis: one
   * script call for all of them; a cluster: each key on its own node, in parallel). Rejects when
   * any failed: which ones is not known.
   */
  setMany(entries: [key: string, value: string][], ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** Health: false when any key the engine may use cannot be served now. */
  ping(): Promise<boolean>;
  /** Nodes whose circuit breaker is open: their keys fail at once, without asking them. */
  openNodes(): string[];
  close(): Promise<void>;
}
