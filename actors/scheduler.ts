// Periodic work that any number of processes may run at once: expiry of pending payments whose
// window has ended, the void of authorizations (capture_method manual) whose hold has lapsed (through
// the payment's actor and the attempt protocol, as a merchant's cancel), and release of idempotency keys (payments', refunds', payouts') older than 24 hours. Work is claimed with
// FOR UPDATE SKIP LOCKED and a lease; the state change itself goes through the payment's actor.
// Due means due on the payment's test clock when it is on one (store/test-clocks-repo.ts `due`).
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimDuePayments, claimLapsedAuthorizations, releaseOldIdempotencyKeys } from '../src/store/payments-repo.js';
import { releaseOldLinkIdempotencyKeys } from '../src/store/links-repo.js';
import { releaseOldRefundKeys } from '../src/store/refunds-repo.js';
import { releaseOldAttemptKeys } from '../src/store/attempts-repo.js';
import { releaseOldPayoutKeys } from '../src/store/payouts-repo.js';
import { settleAdvancingClocks } from '../src/store/test-clocks-repo.js';
import type { Dispatcher } from './dispatcher.js';
import { startPeriodic, type Periodic } from './periodic.js';
import { failpoint } from '../src/failpoints.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export type Scheduler = Periodic;

export function startScheduler(db: pg.Pool, dispatcher: Dispatcher, pollMs: number, log: Logger): Scheduler {
  let lastSweep = 0;
  return startPeriodic('expiry', pollMs, log, async (self) => {
    let expired = 0;
    for (;;) {
      const ids = await claimDuePayments(db, 200);
      if (ids.length) failpoint('after-expiry-claim'); // fault tests: a process dying mid-sweep (test clocks' advance)
      const replies = await Promise.all(ids.map((id) => dispatcher.send({ kind: 'payment.apply', id, command: { type: 'expire' } })));
      expired += replies.filter((r) => r.ok).length;
      if (ids.length < 200 || self.stopped) break;
    }
    for (;;) {
      const ids = await claimLapsedAuthorizations(db, 200);
      const replies = await Promise.all(ids.map((id) => dispatcher.send({ kind: 'payment.void', id, expired: true })));
      replies.forEach((r, i) => {
        if (r.ok) expired++;
        // Captured or cancelled meanwhile is fine; anything else is tried again when the lease ends.
        else if (r.failure.code !== 'payment_not_cancellable') log.warn({ paymentId: ids[i], code: r.failure.code }, 'lapsed authorization not voided yet; tried again when its lease ends');
      });
      if (ids.length < 200 || self.stopped) break;
    }
    // Test clocks (issue 26): an advancing clock on which nothing is due any more is ready. Any
    // process's sweep does it, so an advance whose process died is finished by another.
    const ready = await settleAdvancingClocks(db);
    if (ready.length) log.info({ testClocks: ready }, 'test clocks advanced: everything due has committed');
    if (Date.now() - lastSweep > 60_000) {
      lastSweep = Date.now();
      await releaseOldIdempotencyKeys(db, IDEMPOTENCY_TTL_SECONDS);
      await releaseOldLinkIdempotencyKeys(db, IDEMPOTENCY_TTL_SECONDS);
      await releaseOldRefundKeys(db, IDEMPOTENCY_TTL_SECONDS);
      await releaseOldAttemptKeys(db, IDEMPOTENCY_TTL_SECONDS);
      await releaseOldPayoutKeys(db, IDEMPOTENCY_TTL_SECONDS);
    }
    return expired;
  }, (n) => log.info({ expired: n }, 'payments expired (and lapsed authorizations voided)'));
}
