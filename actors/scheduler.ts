// Periodic work that any number of processes may run at once: expiry of pending payments whose
// window has ended, the void of authorizations (capture_method manual) whose hold has lapsed (through
// the payment's actor and the attempt protocol, as a merchant's cancel), and the finishing of test
// clocks' advances (the release of aged idempotency keys is key-release.ts). Work is claimed with
// FOR UPDATE SKIP LOCKED and a lease; the state change itself goes through the payment's actor.
// Each sweep is a pipeline (sweep-pipeline.ts): the next claim leaves while earlier commands are in
// flight, and a run that keeps finding full batches keeps going rather than waiting for its poll.
// Due means due on the payment's test clock when it is on one (store/test-clocks-repo.ts `due`).
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimDuePayments, claimLapsedAuthorizations } from '../src/store/payments-repo.js';
import { settleAdvancingClocks } from '../src/store/test-clocks-repo.js';
import type { Dispatcher } from './dispatcher.js';
import { startPeriodic, type Periodic } from './periodic.js';
import { failpoint } from '../src/failpoints.js';
import { runPipeline } from './sweep-pipeline.js';

export type Scheduler = Periodic;

/**
 * Claims of 200, at most 800 commands in flight (a new claim as soon as a full batch fits): a
 * backlog drains at the rate the actors finish expiries, not one batch per round trip (issue 25).
 * Well under a shard's mailbox limit, so the sweep never crowds out the merchants' own commands.
 */
const SWEEP = { batch: 200, cap: 800 } as const;
/** A lapsed authorization's void calls the bank: fewer of those at once. */
const VOID_SWEEP = { batch: 100, cap: 300 } as const;

export function startScheduler(db: pg.Pool, dispatcher: Dispatcher, pollMs: number, log: Logger): Scheduler {
  return startPeriodic('expiry', pollMs, log, async (self) => {
    let expired = 0;
    await runPipeline({
      ...SWEEP,
      stopped: () => self.stopped,
      claim: async (limit) => {
        const ids = await claimDuePayments(db, limit);
        if (ids.length) failpoint('after-expiry-claim'); // fault tests: a process dying mid-sweep (test clocks' advance)
        return ids;
      },
      apply: async (id) => {
        const r = await dispatcher.send({ kind: 'payment.apply', id, command: { type: 'expire' } });
        if (r.ok) expired++;
      },
    });
    await runPipeline({
      ...VOID_SWEEP,
      stopped: () => self.stopped,
      claim: (limit) => claimLapsedAuthorizations(db, limit),
      apply: async (id) => {
        const r = await dispatcher.send({ kind: 'payment.void', id, expired: true });
        if (r.ok) expired++;
        // Captured or cancelled meanwhile is fine; anything else is tried again when the lease ends.
        else if (r.failure.code !== 'payment_not_cancellable') log.warn({ paymentId: id, code: r.failure.code }, 'lapsed authorization not voided yet; tried again when its lease ends');
      },
    });
    // Test clocks (issue 26): an advancing clock on which nothing is due any more is ready. Any
    // process's sweep does it, so an advance whose process died is finished by another.
    const ready = await settleAdvancingClocks(db);
    if (ready.length) log.info({ testClocks: ready }, 'test clocks advanced: everything due has committed');
    return expired;
  }, (n) => log.info({ expired: n }, 'payments expired (and lapsed authorizations voided)'));
}
