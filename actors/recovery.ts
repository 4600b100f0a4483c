// The recovery sweep: finds connector attempts whose outcome was never recorded (the process or the
// worker died between the call and the write, or the connector did not answer in time) and hands
// each to its aggregate's actor, which asks the connector for that attempt's outcome and records it.
// Any number of processes may run it: attempts are leased with FOR UPDATE SKIP LOCKED.
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimStuckAttempts } from '../src/store/attempts-repo.js';
import type { Dispatcher } from './dispatcher.js';
import { startPeriodic, type Periodic } from './periodic.js';

export interface RecoveryOptions {
  /** An attempt started longer ago than this, with no outcome, is recovered (longer than any connector call). */
  afterMs: number;
  pollMs: number;
}

export function startRecovery(db: pg.Pool, dispatcher: Dispatcher, opts: RecoveryOptions, log: Logger): Periodic {
  return startPeriodic('attempt recovery', opts.pollMs, log, async (self) => {
    let settled = 0;
    for (;;) {
      const stuck = await claimStuckAttempts(db, opts.afterMs, 100);
      const replies = await Promise.all(stuck.map((a) => dispatcher.send({ kind: 'attempt.recover', id: a.aggregateId, attemptId: a.id })));
      replies.forEach((r, i) => {
        if (r.ok) settled++;
        else log.warn({ attemptId: stuck[i].id, code: r.failure.code }, 'attempt recovery failed; it is tried again when its lease ends');
      });
      if (stuck.length < 100 || self.stopped) break;
    }
    return settled;
  }, (n) => log.info({ recovered: n }, 'connector attempts recovered'));
}
