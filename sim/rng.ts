// The simulator's only source of randomness: a small seeded PRNG (mulberry32). Every choice of the
// workload and the fault schedule comes from one seed, through named streams forked from it, so one
// client's choices do not shift when another client makes more or fewer of its own.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(items: readonly (readonly [number, T])[]): T {
    const total = items.reduce((s, [w]) => s + w, 0);
    let x = this.next() * total;
    for (const [w, v] of items) {
      if ((x -= w) < 0) return v;
    }
    return items[items.length - 1][1];
  }

  /** A hex string of `n` characters (idempotency keys). */
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += this.int(0, 0xffff).toString(16).padStart(4, '0');
    return s.slice(0, n);
  }

  /** An independent stream named `label`, derived from this one's seed (not from its position). */
  static fork(seed: number, label: string): Rng {
    let h = (seed ^ 0x9e3779b9) >>> 0;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    return new Rng(h);
  }
}
