// Periodic work that any number of processes may run at once: expiry of pending payments whose
// window has ended, the void of authorizations (capture_method manual) whose hold has lapsed (through
// the payment's actor and the attempt protocol, as a merchant's cancel), and the finishing of test
// clocks' advances (the release of aged idempotency keys is key-release.ts). Work is claimed with
// FOR UPDATE SKIP LOCKED and a lease; the state change itself goes through the payment's actor.
// Each sweep is a pipeline (sweep-pipeline.ts): the next claim leaves while earlier commands are in
// flight, and a run that keeps finding full batches keeps going rather than waiting for its poll.
// The voids, which ask the bank, are a flowing sweep of their own: they never hold back expiries.
// Due means due on the payment's test clock when it is on one (store/test-clocks-repo.ts `due`).
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimDuePayments, claimLapsedAuthorizations } from '../src/store/payments-repo.js';
import { settleAdvancingClocks } from '../src/store/test-clocks-repo.js';
import type { Dispatcher } from './dispatcher.js';
import { startPeriodic, type Periodic } from './periodic.js';
import { failpoint } from '../src/failpoints.js';
import { runPipeline, startFlowingSweep } from './sweep-pipeline.js';

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
  const expiry = startPeriodic('expiry', pollMs, log, async (self) => {
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
    // Test clocks (issue 26): an advancing clock on which nothing is due any more is ready. Any
    // process's sweep does it, so an advance whose process died is finished by another.
    const ready = await settleAdvancingClocks(db);
    if (ready.length) log.info({ testClocks: ready }, 'test clocks advanced: everything due has committed');
    return expired;
  }, (n) => log.info({ expired: n }, 'payments expired'));
  // The voids of lapsed authorizations run apart: a void asks the bank, and a bank slow to answer
  // must delay neither the expiry of pending payments nor the other voids (a flowing sweep).
  const voids = startFlowingSweep('authorization voids', pollMs, log, {
    ...VOID_SWEEP,
    claim: (limit) => claimLapsedAuthorizations(db, limit),
    async apply(id) {
      const r = await dispatcher.send({ kind: 'payment.void', id, expired: true });
      // Captured or cancelled meanwhile is fine; anything else is tried again when the lease ends.
      if (!r.ok && r.failure.code !== 'payment_not_cancellable') log.warn({ paymentId: id, code: r.failure.code }, 'lapsed authorization not voided yet; tried again when its lease ends');
      return r.ok;
    },
    report: (n) => log.info({ voided: n }, 'lapsed authorizations voided'),
    failed: (err) => log.error({ err }, 'lapsed authorization void failed past its own handling; tried again when its lease ends'),
  });
  return {
    get stopped() { return expiry.stopped; },
    /** One run of the expiry sweep (the voids run on their own). */
    tick: () => expiry.tick(),
    async stop() { await Promise.all([expiry.stop(), voids.stop()]); },
  };
}
