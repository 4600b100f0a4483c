// Release of Idempotency-Keys older than 24 hours (payments', links', refunds', attempts' and
// payouts'), so that the same key may make a new object again, as docs/retries.md promises. Its own
// periodic, apart from the expiry sweep: a large backlog never holds up expiries. Each kind is
// released in batches until a batch comes back short, the kinds in turn, within a time budget per
// run; what is left when the budget runs out is logged and taken up by the next run. (Before, each
// kind released at most one batch a minute: about 17 keys a second, far below the rate at which a
// busy engine takes keyed requests, so keys outlived their 24 hours and their indexes grew.)
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { releaseOldIdempotencyKeys } from '../src/store/payments-repo.js';
import { releaseOldLinkIdempotencyKeys } from '../src/store/links-repo.js';
import { releaseOldRefundKeys } from '../src/store/refunds-repo.js';
import { releaseOldAttemptKeys } from '../src/store/attempts-repo.js';
import { releaseOldPayoutKeys } from '../src/store/payouts-repo.js';
import { IDEMPOTENCY_TTL_MS } from '../src/store/replay-cache.js';
import { startPeriodic, type Periodic } from './periodic.js';

/** How long a key holds its object: the replay cache's lifetime, in the statements' seconds. */
export const IDEMPOTENCY_TTL_SECONDS = IDEMPOTENCY_TTL_MS / 1000;

/** Rows per statement, the time one run may take, and how often a run starts. */
export const KEY_RELEASE = { batch: 1000, budgetMs: 20_000, everyMs: 60_000 } as const;

type Release = (db: pg.Pool, ttlSeconds: number, limit: number) => Promise<number>;
const KINDS: ReadonlyArray<[string, Release]> = [
  ['payments', releaseOldIdempotencyKeys], ['links', releaseOldLinkIdempotencyKeys], ['refunds', releaseOldRefundKeys],
  ['attempts', releaseOldAttemptKeys], ['payouts', releaseOldPayoutKeys],
];

export interface KeyReleaseRun {
  /** Keys released, by kind (only kinds that released any). */
  released: Record<string, number>;
  /** Kinds whose last batch was full when the run ended (the budget ran out, or it was stopped). */
  left: string[];
}

export interface KeyReleaseOptions { ttlSeconds?: number; batch?: number; budgetMs?: number; stopped?: () => boolean }

/** One run: every kind's aged keys, a batch at a time and the kinds in turn, until none is left or the budget is spent. */
export async function releaseAgedKeys(db: pg.Pool, o: KeyReleaseOptions = {}): Promise<KeyReleaseRun> {
  const ttl = o.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
  const batch = o.batch ?? KEY_RELEASE.batch;
  const until = Date.now() + (o.budgetMs ?? KEY_RELEASE.budgetMs);
  const released: Record<string, number> = {};
  let pending = [...KINDS];
  // Every kind gets its first batch whatever the budget; a kind stays in turn while its batches come back full.
  for (let first = true; pending.length && (first || (Date.now() < until && !o.stopped?.())); first = false) {
    const next: typeof pending = [];
    for (const [name, release] of pending) {
      const n = await release(db, ttl, batch);
      if (n) released[name] = (released[name] ?? 0) + n;
      if (n >= batch) next.push([name, release]);
    }
    pending = next;
  }
  return { released, left: pending.map(([name]) => name) };
}

export function startKeyRelease(db: pg.Pool, log: Logger, everyMs: number = KEY_RELEASE.everyMs): Periodic {
  return startPeriodic('key-release', everyMs, log, async (self) => {
    const run = await releaseAgedKeys(db, { stopped: () => self.stopped });
    if (run.left.length) {
      log.warn({ released: run.released, left: run.left, budgetMs: KEY_RELEASE.budgetMs }, 'idempotency keys older than 24 hours are left after this run\'s budget: the next run goes on');
    }
    return Object.values(run.released).reduce((a, b) => a + b, 0);
  }, (n) => log.info({ released: n }, 'idempotency keys older than 24 hours released'));
}
