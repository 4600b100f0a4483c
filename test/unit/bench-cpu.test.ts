// The bench's CPU counters read /proc: a process's main thread is its own row of the per-thread
// table, part of the process's total, and it counts the time this thread spends. The machine's
// steal (time the hypervisor gave to other guests) is a share of its total.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { machineSeconds, mainThreadSeconds, stealPercent, treeCpuSeconds } from '../../bench/cpu.js';

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

t.test('a child that ended during the window still counts in its parent\'s tree', { skip: existsSync('/proc/self/task') ? false : 'needs /proc (Linux)' }, async (t) => {
  const before = treeCpuSeconds([process.pid]);
  // The child spins until it has used 300 ms of CPU (a condition, not a duration), then exits.
  const child = spawn(process.execPath, ['-e', 'const u=process.cpuUsage();let x=0;while(process.cpuUsage(u).user<300000)x+=Math.sqrt(x+1);']);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 0);
  // The exit event comes once libuv has reaped it: its time is now in this process's cutime.
  const grown = treeCpuSeconds([process.pid]) - before;
  t.ok(grown >= 0.25, `the ended child's CPU is in the tree (${grown.toFixed(2)} s)`);
});

t.test('the machine\'s steal is a share of its total time', async (t) => {
  t.equal(stealPercent({ steal: 10, total: 100 }, { steal: 13, total: 120 }), 15, '3 s of 20 s stolen');
  t.equal(stealPercent({ steal: 10, total: 100 }, { steal: 10, total: 100 }), 0, 'no time passed: none');
  t.equal(stealPercent({ steal: 0, total: 0 }, { steal: 0, total: 0 }), 0, 'no /proc/stat: none');
});

t.test('machineSeconds reads /proc/stat: busy and steal within the total, all growing', { skip: existsSync('/proc/stat') ? false : 'needs /proc (Linux)' }, async (t) => {
  const a = machineSeconds();
  const used0 = process.cpuUsage();
  let x = 0;
  while (process.cpuUsage(used0).user < 100_000) x += Math.sqrt(x + 1);
  t.ok(x > 0);
  const b = machineSeconds();
  t.ok(b.total > a.total && b.busy > a.busy, 'both moved with this thread\'s work');
  t.ok(b.steal >= a.steal && b.steal + b.busy <= b.total, 'busy and steal apart, within the total');
});
