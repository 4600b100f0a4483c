// Failpoints: named places on the money path where a fault test makes the process or the worker
// thread die on purpose, to prove that what was committed before that point is recovered after it.
// Off unless FAILPOINTS names them, e.g. FAILPOINTS=after-connector-call:kill (SIGKILL the whole
// process) or after-connector-call:exit-thread (end only this worker thread); `@N` after the action
// (after-connector-call:kill@3) fires at the Nth hit only, counted per thread (the simulator uses it to
// die mid-load). Never set in production; the server logs a warning at start when it is set.
import { isMainThread } from 'node:worker_threads';

export type FailpointName = 'after-attempt-recorded' | 'after-connector-call' | 'after-create-commit' | 'after-idempotency-claim' | 'after-expiry-claim'
  | 'after-refusal-recorded' | 'after-recovery';

interface Armed { action: string; nth: number; hits: number }

function parse(spec: string | undefined): Map<string, Armed> {
  const m = new Map<string, Armed>();
  for (const part of (spec ?? '').split(',')) {
    const [name, rest] = part.trim().split(':');
    const [action, nth] = (rest || 'kill').split('@');
    if (name) m.set(name, { action: action || 'kill', nth: nth ? Number(nth) : 0, hits: 0 });
  }
  return m;
}

const armed = parse(process.env.FAILPOINTS);

export const failpointsArmed = (): string[] => [...armed.keys()];

/** Dies here if the failpoint is armed; a no-op otherwise. */
export function failpoint(name: FailpointName): void {
  const point = armed.get(name);
  if (!point) return;
  if (point.nth > 0 && ++point.hits !== point.nth) return;
  if (point.action === 'exit-thread' && !isMainThread) process.exit(1); // in a worker, ends the thread only
  process.kill(process.pid, 'SIGKILL');
}
