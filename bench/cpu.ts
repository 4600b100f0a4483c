// CPU time of a process tree from /proc: user + system time of each process (all its threads) and
// of its descendants, in seconds. Sampled before and after a measured run, divided by the requests
// answered, it gives the server's CPU cost per request, independent of how busy the machine was.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let ticksPerSecond = 0;
function clockTicks(): number {
  if (!ticksPerSecond) {
    try { ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { ticksPerSecond = 100; }
  }
  return ticksPerSecond;
}

/** The fields of a /proc stat file after the command name (which may hold spaces), or null when it is gone. */
function statFields(path: string): string[] | null {
  try {
    const stat = readFileSync(path, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of one process (or, with `tid`, of one of its threads) in ticks (0 when it is gone). */
export function ownTicks(pid: number, tid?: number): number {
  // State is field 3, utime 14, stime 15 (indexes 11 and 12 after the command name).
  const f = statFields(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`);
  return f ? Number(f[11]) + Number(f[12]) : 0;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) out.push(...list.split(' ').map(Number));
    }
  } catch { /* gone, or no children file */ }
  return out;
}

/**
 * utime + stime + cutime + cstime of one process in ticks: its own CPU and that of its children that
 * have ended and that it has reaped (theirs and their own reaped children's); 0 when it is gone.
 */
function ownAndReapedTicks(pid: number): number {
  const f = statFields(`/proc/${pid}/stat`);
  return f ? Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) : 0;
}

/**
 * CPU seconds used so far by the given processes and all their descendants, those that have ended
 * included: an ended child's time moves into its parent's cutime/cstime when the parent reaps it, so
 * a Postgres backend or autovacuum worker that exits during a measured window is still counted once
 * (without it the tree's sum fell when one exited: a negative "PG µs/req" was seen).
 */
export function treeCpuSeconds(pids: number[]): number {
  let ticks = 0;
  const seen = new Set<number>();
  const todo = [...pids];
  while (todo.length) {
    const pid = todo.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    ticks += ownAndReapedTicks(pid);
    todo.push(...childrenOf(pid));
  }
  return ticks / clockTicks();
}

/**
 * CPU seconds of the whole machine so far (all CPUs, /proc/stat's first line): busy (what the
 * machine's own processes and kernel ran: without idle, iowait and steal), steal (time the
 * hypervisor gave to other guests while ours wanted to run), and the total of all of them. Zeros
 * where /proc/stat cannot be read.
 */
export function machineSeconds(): { busy: number; steal: number; total: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const steal = f[7] ?? 0;
    const busy = f[0] + f[1] + f[2] + f[5] + f[6];
    return { busy: busy / clockTicks(), steal: steal / clockTicks(), total: (busy + steal + f[3] + (f[4] ?? 0)) / clockTicks() };
  } catch {
    return { busy: 0, steal: 0, total: 0 };
  }
}

/** The share (0..100 %) of the machine's CPU time between two readings that the hypervisor stole. */
export function stealPercent(a: { steal: number; total: number }, b: { steal: number; total: number }): number {
  const total = b.total - a.total;
  return total > 0 ? Math.round((1000 * (b.steal - a.steal)) / total) / 10 : 0;
}

/** The parent process (PPid) of a process, or null when it cannot be read. */
export function parentOf(pid: number): number | null {
  try {
    const m = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

let postmaster: number | null = null;
/** The Postgres server process whose tree (every backend, the WAL writer, the checkpointer) is counted per request. */
export function countPostgres(pid: number | null): void { postmaster = pid; }
/** CPU seconds of the counted Postgres so far (null when none is counted), its ended backends included. */
export function postgresCpuSeconds(): number | null { return postmaster === null ? null : treeCpuSeconds([postmaster]); }

/** CPU seconds used so far by each of these processes (a Postgres backend is one process). */
export function processSeconds(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, ownTicks(pid) / clockTicks()]));
}

/**
 * CPU seconds so far of the main threads of the given processes (a Node process's main thread has
 * the process's id as its thread id): the server's front end (HTTP, auth, validation, Redis, the
 * hops to the actor workers), apart from its worker threads and V8's helper threads.
 */
export function mainThreadSeconds(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + ownTicks(pid, pid), 0) / clockTicks();
}
