// Child processes of the benchmark (server, baselines): spawn, wait for a JSON line, sample memory,
// and stop every one of them, on the normal path, on errors and on SIGINT/SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Resolves with the first stdout JSON line whose msg matches; rejects on exit or timeout. */
  waitFor(msg: string, timeoutMs: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL after graceMs; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  tail(): string;
}

const live = new Set<Child>();

export function spawnNode(name: string, script: string, env: Record<string, string>, nodeArgs: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeArgs, script], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: Array<{ msg: string; resolve(v: Record<string, unknown>): void }> = [];
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let buffered = '';
  const keep = (s: string) => { output.push(s); if (output.length > 40) output.shift(); };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      // The server's access lines (one per request) are neither kept nor parsed: autocannon runs in
      // this process, and parsing tens of thousands of lines a second would slow the load itself.
      if (line.includes('"msg":"request"')) continue;
      keep(line);
      if (!line.startsWith('{')) continue;
      try {
        const obj = JSON.parse(line) as Record<string, unknown>;
        lines.push(obj);
        for (const w of waiters.filter((x) => x.msg === obj.msg)) w.resolve(obj);
      } catch { /* not JSON: ignore */ }
    }
  });
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => keep(chunk.trimEnd()));

  const child: Child = {
    name, proc,
    tail: () => output.slice(-15).join('\n'),
    waitFor(msg, timeoutMs) {
      const seen = lines.find((l) => l.msg === msg);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no "${msg}" within ${timeoutMs} ms\n${child.tail()}`)), timeoutMs);
        exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (code ${proc.exitCode}) before "${msg}"\n${child.tail()}`));
        });
        waiters.push({ msg, resolve: (v) => { clearTimeout(timer); resolve(v); } });
      });
    },
    async stop(graceMs = 20_000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(child);
    },
  };
  live.add(child);
  exited.then(() => live.delete(child));
  return child;
}

/** Kills every child still running, without waiting (for signal handlers and fatal errors). */
export function killAll(): void {
  for (const c of live) c.proc.kill('SIGKILL');
  live.clear();
}

/** Current resident set size of a process in KiB (0 when it is gone). */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples VmRSS every intervalMs; stop() returns the largest sample in KiB. */
export function sampleRss(pid: number, intervalMs = 200): { stop(): number } {
  let peak = rssKb(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssKb(pid)); }, intervalMs);
  return { stop() { clearInterval(timer); return Math.max(peak, rssKb(pid)); } };
}
