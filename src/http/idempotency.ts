// Idempotency-Key handling in front of a create. Redis holds the fast answer (in flight, or the
// finished response); Postgres holds the truth (the key on the created row under a unique
// index), so a flushed or absent Redis can never produce a duplicate.
import { createHash } from 'node:crypto';
import type { KeyValue } from '../store/kv.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/**
 * How long an in-flight marker holds its key: the request's own deadline, not the key's 24 hours,
 * so a process that died between the claim and the answer does not lock the key for a day.
 */
export const DEFAULT_INFLIGHT_TTL_MS = 30_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** What a key creates; each kind has its own keys (and its own unique index in Postgres). */
export type IdempotentKind = 'payment' | 'refund' | 'link' | 'session';

export const validIdempotencyKey = (k: string): boolean => KEY_RE.test(k);

interface InFlight { s: 'p'; h: string }
interface Done { s: 'd'; h: string; status: number; body: string; rid: string }
type Record_ = InFlight | Done;

export type Begin =
  | { kind: 'proceed'; degraded: boolean }
  | { kind: 'replay'; status: number; body: string; requestId: string }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };

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
  constructor(private readonly kv: KeyValue, private readonly onFailOpen: () => void, private readonly inflightTtlMs = DEFAULT_INFLIGHT_TTL_MS) {}

  /** Keys are scoped by merchant, mode and kind of object: a payment's key and a refund's never meet. */
  static scope = (merchantId: string, livemode: boolean, kind: IdempotentKind, key: string): string =>
    `idem:${merchantId}:${livemode ? 'live' : 'test'}:${kind}:${key}`;

  async begin(scope: string, hash: string): Promise<Begin> {
    let existing: string | null;
    try {
      existing = await this.kv.setIfAbsent(scope, JSON.stringify({ s: 'p', h: hash } satisfies InFlight), this.inflightTtlMs);
    } catch {
      this.onFailOpen();
      return { kind: 'proceed', degraded: true };
    }
    if (existing === null) return { kind: 'proceed', degraded: false };
    let rec: Record_;
    try { rec = JSON.parse(existing) as Record_; } catch { return { kind: 'proceed', degraded: true }; }
    if (rec.h !== hash) return { kind: 'conflict' };
    if (rec.s === 'p') return { kind: 'in_flight' };
    return { kind: 'replay', status: rec.status, body: rec.body, requestId: rec.rid };
  }

  async complete(scope: string, hash: string, status: number, body: string, requestId: string): Promise<void> {
    try {
      await this.kv.set(scope, JSON.stringify({ s: 'd', h: hash, status, body, rid: requestId } satisfies Done), IDEMPOTENCY_TTL_MS);
    } catch { this.onFailOpen(); }
  }

  /** Forgets an in-flight marker after a failure that created nothing, so a retry may run. */
  async abandon(scope: string): Promise<void> {
    try { await this.kv.del(scope); } catch { this.onFailOpen(); }
  }
}
