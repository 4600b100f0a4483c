// The recovery sweep: finds connector attempts whose outcome was never recorded (the process or the
// worker died between the call and the write, or the connector did not answer in time) and hands
// each to its aggregate's actor, which asks the connector for that attempt's outcome and records it.
// Any number of processes may run it: attempts are leased with FOR UPDATE SKIP LOCKED.
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimStuckAttempts, shortenRecoveryLeases } from '../src/store/attempts-repo.js';
import type { Dispatcher } from './dispatcher.js';
import { startPeriodic, type Periodic } from './periodic.js';

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

export function startRecovery(db: pg.Pool, dispatcher: Dispatcher, opts: RecoveryOptions, log: Logger): Periodic {
  return startPeriodic('attempt recovery', opts.pollMs, log, async (self) => {
    let settled = 0;
    for (;;) {
      const stuck = await claimStuckAttempts(db, opts.afterMs, 100, RECOVERY_LEASE_SECONDS);
      const replies = await Promise.all(stuck.map((a) => dispatcher.send({ kind: 'attempt.recover', id: a.aggregateId, attemptId: a.id })));
      const retry: string[] = [];
      replies.forEach((r, i) => {
        if (r.ok) settled++;
        else {
          retry.push(stuck[i].id);
          log.warn({ attemptId: stuck[i].id, code: r.failure.code, retryInSeconds: RECOVERY_RETRY_SECONDS }, 'attempt recovery failed; it is tried again soon');
        }
      });
      // Recovery is safe to repeat (the bank's answer is asked again and recorded under the version
      // check), so a failed try needs no full lease: a second process may take it after the retry delay.
      if (retry.length) await shortenRecoveryLeases(db, retry, RECOVERY_RETRY_SECONDS);
      if (stuck.length < 100 || self.stopped) break;
    }
    return settled;
  }, (n) => log.info({ recovered: n }, 'connector attempts recovered'));
}
