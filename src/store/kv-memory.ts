// In-process key-value store: correct for one process, which is what the embedded default runs.
import type { KeyValue, RateLease } from './kv.js';

interface Entry { value: string; expiresAt: number }

export class MemoryKeyValue implements KeyValue {
  readonly kind = 'memory' as const;
  private readonly map = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.map.get(key);
    if (e && e.expiresAt <= this.now()) { this.map.delete(key); return undefined; }
    return e;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, e] of this.map) if (e.expiresAt <= t) this.map.delete(k);
  }

  async rateLease(key: string, windowMs: number, want: number, limit: number): Promise<RateLease> {
    let e = this.live(key);
    if (!e) { e = { value: '0', expiresAt: this.now() + windowMs }; this.map.set(key, e); }
    const before = Number(e.value);
    const granted = Math.max(0, Math.min(want, limit - before));
    e.value = String(before + granted);
    return { before, granted, ttlMs: e.expiresAt - this.now() };
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    const e = this.live(key);
    if (e) return e.value;
    this.map.set(key, { value, expiresAt: this.now() + ttlMs });
    return null;
  }

  async set(key: string, value: string, ttlMs: number) { this.map.set(key, { value, expiresAt: this.now() + ttlMs }); }
  async setMany(entries: [string, string][], ttlMs: number) { for (const [k, v] of entries) this.map.set(k, { value: v, expiresAt: this.now() + ttlMs }); }
  async get(key: string) { return this.live(key)?.value ?? null; }
  async del(key: string) { this.map.delete(key); }
  async ping() { return true; }
  openNodes(): string[] { return []; }
  async close() { clearInterval(this.sweeper); this.map.clear(); }
}
