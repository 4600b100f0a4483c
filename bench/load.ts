// Load generation with autocannon: a warm-up run that is thrown away, then the measured run.
// The running instance is exposed so a signal handler can stop it.
import autocannon from 'autocannon';
import { round } from './stats.js';

export interface LoadParams { connections: number; seconds: number; warmupSeconds: number }

export interface LoadFigures {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

let current: autocannon.Instance | null = null;

export function stopLoad(): void {
  current?.stop();
}

function once(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    // autocannon stops itself after `duration`; the extra timer only guards against a hang.
    const guard = setTimeout(() => current?.stop(), ((opts.duration ?? 10) + 30) * 1000);
    current = autocannon(opts, (err, res) => {
      clearTimeout(guard);
      current = null;
      if (err) reject(err);
      else resolve(res);
    });
  });
}

/** Runs the warm-up (not counted) and then the measured load against url. */
export async function measure(url: string, requests: autocannon.Request[], p: LoadParams): Promise<LoadFigures> {
  const base = { url, connections: p.connections, timeout: 10, requests };
  if (p.warmupSeconds > 0) await once({ ...base, duration: p.warmupSeconds });
  const r = await once({ ...base, duration: p.seconds });
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(v.count);
  return {
    reqPerSec: round(r.requests.average, 0),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
}
