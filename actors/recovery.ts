// The recovery sweep: finds connector attempts whose outcome was never recorded (the process or the
// worker died between the call and the write, or the connector did not answer in time) and hands
// each to its aggregate's actor, which asks the connector for that attempt's outcome and records it.
// Any number of processes may run it: attempts are leased with FOR UPDATE SKIP LOCKED.
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimStuckAttempts } from '../src/store/attempts-repo.js';
import type { Dispatcher } from './dispatcher.js';

export interface RecoverySweep { stop(): Promise<void>; tick(): Promise<number> }

export interface RecoveryOptions {
  /** An attempt started longer ago than this, with no outcome, is recovered (longer than any connector call). */
  afterMs: number;
  pollMs: number;
}

export function startRecovery(db: pg.Pool, dispatcher: Dispatcher, opts: RecoveryOptions, log: Logger): RecoverySweep {
  let running: Promise<number> | null = null;
  let stopped = false;

  async function tick(): Promise<number> {
    let settled = 0;
    for (;;) {
      const stuck = await claimStuckAttempts(db, opts.afterMs, 100);
      const replies = await Promise.all(stuck.map((a) => dispatcher.send({ kind: 'attempt.recover', id: a.aggregateId, attemptId: a.id })));
      replies.forEach((r, i) => {
        if (r.ok) settled++;
        else log.warn({ attemptId: stuck[i].id, code: r.failure.code }, 'attempt recovery failed; it will be tried again when its lease ends');
      });
      if (stuck.length < 100 || stopped) break;
    }
    return settled;
  }

  const timer = setInterval(() => {
    if (running || stopped) return;
    running = tick()
      .then((n) => { if (n) log.info({ recovered: n }, 'connector attempts recovered'); return n; })
      .catch((err: Error) => { log.warn({ err }, 'attempt recovery sweep failed'); return 0; })
      .finally(() => { running = null; });
  }, opts.pollMs);
  timer.unref();

  return {
    tick,
    async stop() { stopped = true; clearInterval(timer); if (running) await running; },
  };
}
