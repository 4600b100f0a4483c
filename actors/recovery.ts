// The recovery sweep: finds connector attempts whose outcome was never recorded (the process or the
// worker died between the call and the write, or the connector did not answer in time) and hands
// each to its aggregate's actor, which asks the connector for that attempt's outcome and records it.
// Any number of processes may run it: attempts are leased with FOR UPDATE SKIP LOCKED.
//
// Recoveries are handed on without waiting for one another (sweep-pipeline.ts, startFlowingSweep): a
// recovery that is slow for a reason of its own (the bank does not answer its status query, another
// transaction holds its payment's row) holds back neither the next claim nor the other attempts.
// Waiting for a whole claim before the next one let a single slow attempt stop this process's
// recovery until the actor's deadline, claim after claim (issue 25, session 22).
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimStuckAttempts, shortenRecoveryLeases } from '../src/store/attempts-repo.js';
import { failpoint } from '../src/failpoints.js';
import type { Dispatcher } from './dispatcher.js';
import type { Periodic } from './periodic.js';
import { startFlowingSweep } from './sweep-pipeline.js';

export interface RecoveryOptions {
  /** An attempt started longer ago than this, with no outcome, is recovered (longer than any connector call). */
  afterMs: number;
  pollMs: number;
}

/**
 * A claim's lease: long enough for one recovery (the actor's deadline and the bank's question), so
 * that no second process asks meanwhile. A try that fails gives its claim back sooner: RETRY_SECONDS.
 */
export const RECOVERY_LEASE_SECONDS = 30;
export const RECOVERY_RETRY_SECONDS = 2;
/** Claims of 100, at most 400 recoveries in flight per process (well under a shard's mailbox limit). */
const RECOVERY_SWEEP = { batch: 100, cap: 400 } as const;

export function startRecovery(db: pg.Pool, dispatcher: Dispatcher, opts: RecoveryOptions, log: Logger): Periodic {
  return startFlowingSweep('attempt recovery', opts.pollMs, log, {
    ...RECOVERY_SWEEP,
    claim: (limit) => claimStuckAttempts(db, opts.afterMs, limit, RECOVERY_LEASE_SECONDS),
    async apply(a) {
      const r = await dispatcher.send({ kind: 'attempt.recover', id: a.aggregateId, attemptId: a.id });
      if (r.ok) {
        failpoint('after-recovery'); // fault tests: a process dying with other recoveries in flight
        return true;
      }
      log.warn({ attemptId: a.id, code: r.failure.code, retryInSeconds: RECOVERY_RETRY_SECONDS }, 'attempt recovery failed; it is tried again soon');
      // Recovery is safe to repeat (the bank's answer is asked again and recorded under the version
      // check), so a failed try needs no full lease: a second process may take it after the retry delay.
      await shortenRecoveryLeases(db, [a.id], RECOVERY_RETRY_SECONDS).catch((err: Error) =>
        log.warn({ err, attemptId: a.id }, 'a failed recovery kept its full lease; it is tried again when that ends'));
      return false;
    },
    report: (n) => log.info({ recovered: n }, 'connector attempts recovered'),
    failed: (err) => log.error({ err }, 'attempt recovery failed past its own handling; the attempt is tried again when its lease ends'),
  });
}
