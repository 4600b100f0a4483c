// The rig's child processes (replicas, nginx, Redis nodes) do not die with the process that started
// them: if a test ends without its teardown (a crash, process.exit), this kills them on the way out.
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

export function killOnExit(proc: ChildProcess): void {
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  if (hooked) return;
  hooked = true;
  process.once('exit', () => { for (const p of live) { try { p.kill('SIGKILL'); } catch { /* gone */ } } });
}
