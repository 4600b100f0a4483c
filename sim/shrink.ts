// A simple shrink: replay a failing seed with fewer clients and less time while the same class of
// violation still shows, and keep the smallest run that shows it. Its history is shorter to read.
import { grouped } from './report.js';
import { runOnce, type RunOptions, type RunResult } from './run.js';

const STEPS: [clients: number, seconds: number][] = [[3, 10], [2, 10], [1, 10], [2, 5], [1, 5]];

export async function shrink(failed: RunResult, o: Omit<RunOptions, 'seed' | 'clients' | 'seconds'>): Promise<{ cls: string; smallest: RunResult } | null> {
  // The class to keep is the most frequent one the run found before its final retries.
  const cls = grouped(failed.violations).map(([c]) => c).find((c) => !c.includes('final')) ?? grouped(failed.violations)[0]?.[0];
  if (!cls) return null;
  let smallest = failed;
  for (const [clients, seconds] of STEPS) {
    if (clients > smallest.clients) continue;
    o.log(`sim: shrink: seed ${failed.seed} with ${clients} clients for ${seconds} s, looking for "${cls}"`);
    const r = await runOnce({ ...o, seed: failed.seed, clients, seconds });
    if (r.violations.some((v) => v.cls === cls)) smallest = r;
  }
  return { cls, smallest };
}
