// Per-key rate limit: a fixed one-minute window counted atomically in the key-value store
// (INCR in one Lua script), so parallel requests never admit more than the limit. When the store
// is down the request is let through (fail open), logged and counted.
import type { KeyValue } from '../store/kv.js';

export interface RateDecision { allowed: boolean; limit: number; remaining: number; resetAt: number; retryAfter: number; failedOpen: boolean }

const WINDOW_MS = 60_000;

export async function checkRate(kv: KeyValue, keyId: string, limit: number, now = Date.now()): Promise<RateDecision> {
  try {
    const { count, ttlMs } = await kv.rateHit(`rl:${keyId}`, WINDOW_MS);
    const resetAt = Math.ceil((now + ttlMs) / 1000);
    return {
      allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt,
      retryAfter: Math.max(1, Math.ceil(ttlMs / 1000)), failedOpen: false,
    };
  } catch {
    return { allowed: true, limit, remaining: limit, resetAt: Math.ceil((now + WINDOW_MS) / 1000), retryAfter: 0, failedOpen: true };
  }
}

export const rateHeaders = (d: RateDecision): [string, string][] => [
  ['X-RateLimit-Limit', String(d.limit)],
  ['X-RateLimit-Remaining', String(d.remaining)],
  ['X-RateLimit-Reset', String(d.resetAt)],
];
