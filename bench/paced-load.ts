// Open-loop load at a fixed rate: request n is due at start + n / rate, whatever the answers do, so
// a slow server sees a queue instead of a slower client (no coordinated omission). autocannon's
// overallRate would instead send each connection's share as one burst at the top of every second.
// Latency counts from the moment a request was due, queueing in the client included.
import http from 'node:http';
import type { LoadFigures, LoadParams, TimedFigures } from './load.js';
import { percentile, round } from './stats.js';

export interface PacedRequest { method: string; path: string; headers: Record<string, string>; body?: string }

const running = new Set<{ stop(): void }>();

/** Stops every paced run now (signal handlers); their promises still resolve. */
export function stopPaced(): void {
  for (const r of running) r.stop();
}

/** Sends make(n) to url at `rate` requests/s over at most p.connections keep-alive sockets, for warm-up + measured seconds. */
export function pacedLoad(url: string, rate: number, p: LoadParams, make: (n: number) => PacedRequest): Promise<TimedFigures> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: p.connections });
  const t0 = Date.now();
  const startMs = t0 + p.warmupSeconds * 1000;
  const endMs = startMs + p.seconds * 1000;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let sent = 0, inflight = 0, total2xx = 0, measured = 0, non2xx = 0, errors = 0, timeouts = 0, stopped = false;

  return new Promise((resolve) => {
    let ticker: NodeJS.Timeout;
    const control = { stop: () => { stopped = true; finishIfDone(); } };
    running.add(control);
    function finishIfDone() {
      if (!stopped || inflight > 0) return;
      clearInterval(ticker);
      running.delete(control);
      agent.destroy();
      latencies.sort((a, b) => a - b);
      const figures: LoadFigures = {
        reqPerSec: round(measured / p.seconds, 0), p50: percentile(latencies, 50), p99: percentile(latencies, 99),
        requests: measured, non2xx, errors, timeouts, statusCodes,
      };
      resolve({ figures, startMs, endMs, total2xx });
    }
    function send(n: number, dueMs: number) {
      const r = make(n);
      const counted = dueMs >= startMs;
      inflight++;
      let finished = false;
      const done = (status: number | null, timedOut = false) => {
        if (finished) return;
        finished = true;
        inflight--;
        if (status !== null && status >= 200 && status < 300) total2xx++;
        if (counted) {
          measured++;
          latencies.push(Date.now() - dueMs);
          if (status === null) { if (timedOut) timeouts++; else errors++; }
          else {
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (status < 200 || status >= 300) non2xx++;
          }
        }
        finishIfDone();
      };
      const req = http.request({
        host: target.hostname, port: target.port, path: r.path, method: r.method, agent, timeout: 10_000,
        headers: { ...r.headers, ...(r.body === undefined ? {} : { 'content-length': Buffer.byteLength(r.body) }) },
      }, (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? null));
        res.on('close', () => done(null));
      });
      req.on('timeout', () => { done(null, true); req.destroy(); });
      req.on('error', () => done(null));
      req.end(r.body);
    }
    ticker = setInterval(() => {
      const now = Math.min(Date.now(), endMs);
      const due = Math.floor(((now - t0) * rate) / 1000);
      while (!stopped && sent < due) {
        send(sent, t0 + (sent * 1000) / rate);
        sent++;
      }
      if (Date.now() >= endMs) control.stop();
    }, 2);
  });
}
