// Idempotency-Key helpers in front of a create. Postgres is the arbiter: the key sits on the created
// row under a unique index and the create is INSERT ... ON CONFLICT DO NOTHING, so two requests with
// one key make one object whatever Redis knows. Redis is only a replay cache: the first answer,
// written after the commit without the request waiting for it, and read back (byte for byte) when
// Postgres says the key was already used.
import { createHash } from 'node:crypto';
import type { KeyValue } from '../store/kv.js';
import { ReplayCache, type StoredAnswer } from '../store/replay-cache.js';

export { IDEMPOTENCY_TTL_MS, type StoredAnswer } from '../store/replay-cache.js';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** What a key creates; each kind has its own keys (and its own unique index in Postgres). */
export type IdempotentKind = 'payment' | 'refund' | 'link' | 'payout' | 'session' | 'capture' | 'cancel';

export const validIdempotencyKey = (k: string): boolean => KEY_RE.test(k);


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

/** The front end's replay cache (see src/store/replay-cache.ts), with the scope of a key. */
export class Idempotency extends ReplayCache {
  constructor(kv: KeyValue, onFailOpen: () => void) { super(kv, onFailOpen); }

  /** Keys are scoped by merchant, mode and kind of object: a payment's key and a refund's never meet. */
  static scope = (merchantId: string, livemode: boolean, kind: IdempotentKind, key: string): string =>
    `idem:${merchantId}:${livemode ? 'live' : 'test'}:${kind}:${key}`;
}
