// Idempotency-Key helpers in front of a create. Postgres is the arbiter: the key sits on the created
// row under a unique index and the create is INSERT ... ON CONFLICT DO NOTHING, so two requests with
// one key make one object whatever Redis knows. Redis is only a replay cache: the first answer,
// written after the commit without the request waiting for it, and read back (byte for byte) when
// Postgres says the key was already used.
import { createHash } from 'node:crypto';
import type { KeyValue } from '../store/kv.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** What a key creates; each kind has its own keys (and its own unique index in Postgres). */
export type IdempotentKind = 'payment' | 'refund' | 'link';

export const validIdempotencyKey = (k: string): boolean => KEY_RE.test(k);

/** An answer as first given: replayed byte for byte, with the request id that produced it. */
export interface StoredAnswer { status: number; body: string; requestId: string }

interface Done { s: 'd'; h: string; status: number; body: string; rid: string }

/** A stable hash of what the request asks for: endpoint and body, independent of key order and spacing. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${stableStringify(body)}`).digest('base64url');
}

export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableStringify((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class Idempotency {
  constructor(private readonly kv: KeyValue, private readonly onFailOpen: () => void) {}

  /** Keys are scoped by merchant, mode and kind of object: a payment's key and a refund's never meet. */
  static scope = (merchantId: string, livemode: boolean, kind: IdempotentKind, key: string): string =>
    `idem:${merchantId}:${livemode ? 'live' : 'test'}:${kind}:${key}`;

  /** Caches a committed answer for replays; the caller does not wait (a failure only costs a later Postgres render). */
  remember(scope: string, hash: string, a: StoredAnswer): void {
    this.kv.set(scope, JSON.stringify({ s: 'd', h: hash, status: a.status, body: a.body, rid: a.requestId } satisfies Done), IDEMPOTENCY_TTL_MS)
      .catch(() => this.onFailOpen());
  }

  /** The first answer given under this key for this request, if Redis still has it. */
  async recall(scope: string, hash: string): Promise<StoredAnswer | null> {
    let raw: string | null;
    try { raw = await this.kv.get(scope); } catch { this.onFailOpen(); return null; }
    if (raw === null) return null;
    try {
      const rec = JSON.parse(raw) as Done;
      return rec.s === 'd' && rec.h === hash ? { status: rec.status, body: rec.body, requestId: rec.rid } : null;
    } catch { return null; }
  }
}
