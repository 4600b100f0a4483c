// Failpoints: named places on the money path where a fault test makes the process or the worker
// thread die on purpose, to prove that what was committed before that point is recovered after it.
// Off unless FAILPOINTS names them, e.g. FAILPOINTS=after-connector-call:kill (SIGKILL the whole
// process) or after-connector-call:exit-thread (end only this worker thread). Never set in
// production; the server logs a warning at start when it is set.
import { isMainThread } from 'node:worker_threads';

export type FailpointName = 'after-attempt-recorded' | 'after-connector-call' | 'after-create-commit' | 'after-idempotency-claim';

function parse(spec: string | undefined): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of (spec ?? '').split(',')) {
    const [name, action] = part.trim().split(':');
    if (name) m.set(name, action || 'kill');
  }
  return m;
}

const armed = parse(process.env.FAILPOINTS);

export const failpointsArmed = (): string[] => [...armed.keys()];

/** Dies here if the failpoint is armed; a no-op otherwise. */
export function failpoint(name: FailpointName): void {
  const action = armed.get(name);
  if (!action) return;
  if (action === 'exit-thread' && !isMainThread) process.exit(1); // in a worker, ends the thread only
  process.kill(process.pid, 'SIGKILL');
}
