// A sweep run every `pollMs` on the main thread, one run at a time, stoppable: the shape of every
// scheduler (expiry, attempt recovery). A run's failure is logged with its cause; the next run is
// the retry, since every sweep claims its work with leases.
import type { Logger } from '../src/log.js';

export interface Periodic { stop(): Promise<void>; tick(): Promise<number>; readonly stopped: boolean }

export function startPeriodic(name: string, pollMs: number, log: Logger, run: (p: Periodic) => Promise<number>, report: (n: number) => void): Periodic {
  let running: Promise<number> | null = null;
  const self: Periodic = {
    stopped: false,
    tick: () => run(self),
    async stop() { (self as { stopped: boolean }).stopped = true; clearInterval(timer); if (running) await running; },
  };
  const timer = setInterval(() => {
    if (running || self.stopped) return;
    running = run(self)
      .then((n) => { if (n) report(n); return n; })
      .catch((err: Error) => { log.warn({ err, sweep: name }, 'sweep failed; the next run retries'); return 0; })
      .finally(() => { running = null; });
  }, pollMs);
  timer.unref();
  return self;
}
