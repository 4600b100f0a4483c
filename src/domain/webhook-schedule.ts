// When a failed delivery is tried again. Pure; the random source is injected for tests.

const MIN = 60_000;
const HOUR = 60 * MIN;

/** Merchant API: 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h after each failure: 8 attempts in all. */
export const MERCHANT_RETRY_DELAYS_MS = [1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];

/**
 * Gateway API: 8 attempts within 24 hours, exponential from 30 s (×4 each time, the last two held
 * back so the whole schedule ends inside the day): 30 s, 2 min, 8 min, 32 min, 2 h 8 min, 6 h, 12 h.
 */
export const GATEWAY_RETRY_DELAYS_MS = [30_000, 2 * MIN, 8 * MIN, 32 * MIN, 128 * MIN, 6 * HOUR, 12 * HOUR];

export const MAX_ATTEMPTS = 8;
export const JITTER = 0.05;

export type Api = 'merchant' | 'gateway';

export type Outcome =
  | { kind: 'success' }
  | { kind: 'gone' }                                  // 410: the receiver asked us to stop
  | { kind: 'failure'; retryAfterMs?: number };       // anything else, incl. timeouts and redirects

export type Next =
  | { status: 'succeeded' }
  | { status: 'gone' }
  | { status: 'undelivered' }
  | { status: 'pending'; nextAttemptAt: number };

/** The state after attempt number `attempt` (1-based) ended with `outcome` at `now`. */
export function afterAttempt(api: Api, attempt: number, outcome: Outcome, now: number, random: () => number = Math.random): Next {
  if (outcome.kind === 'success') return { status: 'succeeded' };
  if (outcome.kind === 'gone') return { status: 'gone' };
  if (attempt >= MAX_ATTEMPTS) return { status: 'undelivered' };
  const base = (api === 'merchant' ? MERCHANT_RETRY_DELAYS_MS : GATEWAY_RETRY_DELAYS_MS)[attempt - 1];
  const jittered = Math.round(base * (1 + (random() * 2 - 1) * JITTER));
  // A receiver's Retry-After is honoured when it asks for more time than the schedule gives.
  const delay = Math.max(jittered, outcome.retryAfterMs ?? 0);
  return { status: 'pending', nextAttemptAt: now + delay };
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** Whether an HTTP status ends a delivery, and how. */
export function classifyStatus(status: number, retryAfter: string | null, now: number): Outcome {
  if (status >= 200 && status < 300) return { kind: 'success' };
  if (status === 410) return { kind: 'gone' };
  if (status === 429 || status === 503) return { kind: 'failure', retryAfterMs: parseRetryAfter(retryAfter, now) ?? undefined };
  return { kind: 'failure' };
}
