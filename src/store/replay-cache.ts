// The Idempotency-Key replay cache in the key-value store: the first answer given under a key,
// written after the commit (nobody waits for it) and read back only when Postgres says the key was
// already used, so that a replay is the first answer byte for byte. Shared by the front end and the
// workers (which write it for the creates they render); losing it only costs a render from the row.
import type { KeyValue } from './kv.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** An answer as first given: replayed byte for byte, with the request id that produced it. */
export interface StoredAnswer { status: number; body: string; requestId: string }

/**
 * The stored form: `d1`, the request's hash, the status and the request id on a line each, then the
 * body as it was sent. The body is not escaped (as a JSON string it was: quoting a 1 KB answer cost
 * a worker about 6 µs a create, docs/decisions.md "The replay cache stores the body as sent"). The fields before it
 * hold no newline (a base64url hash, a number, a request id of the engine's own alphabet); one that
 * did would be written in the JSON form instead.
 */
const TAG = 'd1\n';

/** The JSON form written before session 28, still read: a process of the previous release may have written it. */
interface Done { s: 'd'; h: string; status: number; body: string; rid: string }

export function encodeAnswer(hash: string, a: StoredAnswer): string {
  if (hash.includes('\n') || a.requestId.includes('\n')) return JSON.stringify({ s: 'd', h: hash, status: a.status, body: a.body, rid: a.requestId } satisfies Done);
  return `${TAG}${hash}\n${a.status}\n${a.requestId}\n${a.body}`;
}

/** The answer stored under a key, with the hash it was stored for; null when the value is neither form. */
export function decodeAnswer(raw: string): { hash: string; answer: StoredAnswer } | null {
  if (raw.startsWith(TAG)) {
    const h = raw.indexOf('\n', TAG.length);
    const st = h < 0 ? -1 : raw.indexOf('\n', h + 1);
    const r = st < 0 ? -1 : raw.indexOf('\n', st + 1);
    if (r < 0) return null;
    const status = Number(raw.slice(h + 1, st));
    if (!Number.isInteger(status)) return null;
    return { hash: raw.slice(TAG.length, h), answer: { status, requestId: raw.slice(st + 1, r), body: raw.slice(r + 1) } };
  }
  try {
    const rec = JSON.parse(raw) as Done;
    return rec.s === 'd' ? { hash: rec.h, answer: { status: rec.status, body: rec.body, requestId: rec.rid } } : null;
  } catch { return null; }
}

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
    this.pending.push([scope, encodeAnswer(hash, a)]);
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
    const stored = decodeAnswer(raw);
    // Another request's answer under this key (a different hash), or a value in no known form: not a replay.
    return stored !== null && stored.hash === hash ? stored.answer : null;
  }

  close(): Promise<void> { this.flush(); return this.kv.close(); }
}
