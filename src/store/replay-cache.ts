// The Idempotency-Key replay cache in the key-value store: the first answer given under a key,
// written after the commit (nobody waits for it) and read back only when Postgres says the key was
// already used, so that a replay is the first answer byte for byte. Shared by the front end and the
// workers (which write it for the creates they render); losing it only costs a render from the row.
import type { KeyValue } from './kv.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** An answer as first given: replayed byte for byte, with the request id that produced it. */
export interface StoredAnswer { status: number; body: string; requestId: string }

interface Done { s: 'd'; h: string; status: number; body: string; rid: string }

export class ReplayCache {
  private pending: [string, string][] = [];
  private scheduled = false;

  constructor(private readonly kv: KeyValue, private readonly onFailure: () => void = () => {}) {}

  /**
   * Caches a committed answer; the caller does not wait (a failure is counted, never thrown). The
   * answers remembered during one turn of the event loop (a group commit's creates) are written
   * together at its end, in one command (`setMany`): one Redis write per group instead of one per
   * create. Within a process a later recall of the key is sent after that write.
   */
  remember(scope: string, hash: string, a: StoredAnswer): void {
    this.pending.push([scope, JSON.stringify({ s: 'd', h: hash, status: a.status, body: a.body, rid: a.requestId } satisfies Done)]);
    if (!this.scheduled) { this.scheduled = true; setImmediate(this.flush); }
  }

  /** Writes what is waiting now (also called by the timer). */
  readonly flush = (): void => {
    this.scheduled = false;
    const entries = this.pending;
    if (entries.length === 0) return;
    this.pending = [];
    this.kv.setMany(entries, IDEMPOTENCY_TTL_MS).catch(() => { for (let i = 0; i < entries.length; i++) this.onFailure(); });
  };

  /** The first answer given under this key for this request, if the store still has it. */
  async recall(scope: string, hash: string): Promise<StoredAnswer | null> {
    let raw: string | null;
    try { raw = await this.kv.get(scope); } catch { this.onFailure(); return null; }
    if (raw === null) return null;
    try {
      const rec = JSON.parse(raw) as Done;
      return rec.s === 'd' && rec.h === hash ? { status: rec.status, body: rec.body, requestId: rec.rid } : null;
    } catch { return null; }
  }

  close(): Promise<void> { this.flush(); return this.kv.close(); }
}
