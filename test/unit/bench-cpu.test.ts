// The bench's CPU counters read /proc: a process's main thread is its own row of the per-thread
// table, part of the process's total, and it counts the time this thread spends.
import t from 'tap';
import { existsSync } from 'node:fs';
import { mainThreadSeconds, treeCpuSeconds } from '../../bench/cpu.js';

t.test('the main thread\'s CPU is read apart from the process\'s', { skip: existsSync('/proc/self/task') ? false : 'needs /proc (Linux)' }, async (t) => {
  const main0 = mainThreadSeconds([process.pid]);
  // Spin on this thread until the process has used 200 ms more CPU (a condition, not a duration).
  const used0 = process.cpuUsage();
  let x = 0;
  while (process.cpuUsage(used0).user < 200_000) x += Math.sqrt(x + 1);
  t.ok(x > 0);
  const main = mainThreadSeconds([process.pid]) - main0;
  t.ok(main >= 0.1, `the main thread's counter moved with its own work (${main.toFixed(2)} s)`);
  t.ok(mainThreadSeconds([process.pid]) <= treeCpuSeconds([process.pid]) + 0.02, 'and never exceeds the whole process');
  t.equal(mainThreadSeconds([2 ** 22 + 7]), 0, 'a process that does not exist counts 0');
});
