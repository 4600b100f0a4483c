// Latest known state of recently used payments, kept on the main thread from the actors' replies,
// served only while Membership says this process is the only writer. Every entry is tagged with the
// membership generation it was learnt in; a change of generation voids them all.
import type { Payment } from './domain/payment.js';
import type { Membership } from './membership.js';

export class ReadCache {
  private readonly map = new Map<string, Payment>();
  private gen = -1;
  hits = 0;
  misses = 0;

  constructor(private readonly membership: Membership | null, private readonly max: number) {}

  /** The generation a caller notes before reading, to hand back to offer(). */
  get generation(): number { return this.membership?.generation ?? -1; }

  private usable(): boolean {
    if (!this.membership || this.max === 0 || !this.membership.alone()) return false;
    if (this.gen !== this.membership.generation) { this.map.clear(); this.gen = this.membership.generation; }
    return true;
  }

  get(id: string): Payment | undefined {
    if (!this.usable()) return undefined;
    const p = this.map.get(id);
    if (p) this.hits++; else this.misses++;
    return p;
  }

  /** Learns a committed state, if nothing changed in membership since `generation` was noted. */
  offer(p: Payment, generation: number): void {
    if (!this.usable() || generation !== this.gen) return;
    const cur = this.map.get(p.id);
    if (cur && cur.version >= p.version) return;
    this.map.delete(p.id);
    this.map.set(p.id, p);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  get size(): number { return this.map.size; }
}
