// The machine is shared (2 cores): before each scenario, measure how busy the CPUs are without us
// and wait a bounded time for them to calm down, so a neighbour's test run does not pass as ours.
import { readFileSync } from 'node:fs';

function cpuTimes(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0); // idle + iowait
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

/** Share of all CPU time (0..100 %) spent busy during the next `ms` milliseconds. */
export async function busyPercent(ms = 1000): Promise<number> {
  try {
    const a = cpuTimes();
    await new Promise((r) => setTimeout(r, ms));
    const b = cpuTimes();
    const total = b.total - a.total;
    return total > 0 ? Math.round((100 * (total - (b.idle - a.idle))) / total) : 0;
  } catch {
    return 0; // no /proc/stat (not Linux): nothing to measure
  }
}

/** Waits until the machine is below thresholdPct busy, at most maxWaitMs; returns the last reading. */
export async function waitForQuiet(maxWaitMs: number, thresholdPct = 15): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await busyPercent();
  while (busy > thresholdPct && Date.now() < deadline) busy = await busyPercent(2000);
  return busy;
}
