// Periodic work that any number of processes may run at once: expiry of pending payments whose
// window has ended, and release of idempotency keys older than 24 hours. Work is claimed with
// FOR UPDATE SKIP LOCKED and a lease; the state change itself goes through the payment's actor.
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import { claimDuePayments, releaseOldIdempotencyKeys } from '../src/store/payments-repo.js';
import type { Dispatcher } from './dispatcher.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export interface Scheduler { stop(): Promise<void>; tick(): Promise<number> }

export function startScheduler(db: pg.Pool, dispatcher: Dispatcher, pollMs: number, log: Logger): Scheduler {
  let running: Promise<number> | null = null;
  let stopped = false;
  let lastSweep = 0;

  async function tick(): Promise<number> {
    let expired = 0;
    for (;;) {
      const ids = await claimDuePayments(db, 200);
      const replies = await Promise.all(ids.map((id) => dispatcher.send({ kind: 'payment.apply', id, command: { type: 'expire' } })));
      expired += replies.filter((r) => r.ok).length;
      if (ids.length < 200 || stopped) break;
    }
    if (Date.now() - lastSweep > 60_000) {
      lastSweep = Date.now();
      await releaseOldIdempotencyKeys(db, IDEMPOTENCY_TTL_SECONDS);
    }
    return expired;
  }

  const timer = setInterval(() => {
    if (running || stopped) return;
    running = tick()
      .then((n) => { if (n) log.info({ expired: n }, 'payments expired'); return n; })
      .catch((err: Error) => { log.warn({ err }, 'scheduler tick failed'); return 0; })
      .finally(() => { running = null; });
  }, pollMs);
  timer.unref();

  return {
    tick,
    async stop() { stopped = true; clearInterval(timer); if (running) await running; },
  };
}
