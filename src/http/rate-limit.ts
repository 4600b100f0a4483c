// Per-key rate limit: a fixed one-minute window whose allowance each process leases from the
// key-value store in blocks and spends locally (rate-leases.ts), so parallel requests over all
// processes never admit more than the limit and most requests make no store round trip. When the
// store is down or slow (LEASE_DEADLINE_MS) the request is let through (fail open), logged and counted.
import type { KeyValue } from '../store/kv.js';
import { RateLeases, WINDOW_MS, type Spent } from './rate-leases.js';

export interface RateDecision { allowed: boolean; limit: number; remaining: number; resetAt: number; retryAfter: number; failedOpen: boolean }

const leasesByStore = new WeakMap<KeyValue, RateLeases>();

function leasesOf(kv: KeyValue): RateLeases {
  let l = leasesByStore.get(kv);
  if (!l) { l = new RateLeases(kv); leasesByStore.set(kv, l); }
  return l;
}

function decide(s: Spent, limit: number, now: number): RateDecision {
  if (s.kind === 'unavailable') {
    return { allowed: true, limit, remaining: limit, resetAt: Math.ceil((now + WINDOW_MS) / 1000), retryAfter: 0, failedOpen: true };
  }
  const resetAt = Math.ceil(s.expiresAt / 1000);
  const retryAfter = Math.max(1, Math.ceil((s.expiresAt - now) / 1000));
  return s.kind === 'admitted'
    ? { allowed: true, limit, remaining: limit - s.ticket, resetAt, retryAfter, failedOpen: false }
    : { allowed: false, limit, remaining: 0, resetAt, retryAfter, failedOpen: false };
}

/** Counts one request against `keyId`'s window of `limit` per minute (keys of any kind: API keys, addresses, sessions). */
export async function checkRate(kv: KeyValue, keyId: string, limit: number, now = Date.now()): Promise<RateDecision> {
  const spent = leasesOf(kv).spend(keyId, limit, now);
  return spent instanceof Promise ? decide(await spent, limit, Date.now()) : decide(spent, limit, now);
}

export const rateHeaders = (d: RateDecision): [string, string][] => [
  ['X-RateLimit-Limit', String(d.limit)],
  ['X-RateLimit-Remaining', String(d.remaining)],
  ['X-RateLimit-Reset', String(d.resetAt)],
];
