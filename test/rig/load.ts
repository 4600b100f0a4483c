// A client load for the rig: creates through nginx at a fixed concurrency, each with its own
// Idempotency-Key, retried with the same key (as the API asks) on a network error, a 5xx or 409
// idempotency_key_in_use, until it gets its answer. Every answer is recorded with the phase it
// fell in, so a test can say what each fault cost without timing anything.
import type { Rig } from './rig.js';

export interface Outcome { key: string; id: string | null; status: number; attempts: number; replayed: boolean }
export interface Attempt { phase: string; status: number; ms: number }

export interface Load {
  /** Phase name recorded with every attempt from now on. */
  phase: string;
  outcomes: Outcome[];
  attempts: Attempt[];
  /** Resolves when `n` more creates have been acknowledged (2xx) from now. */
  acked(n: number, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

const RETRY = new Set([0, 409, 500, 502, 503, 504]);

export function startLoad(rig: Rig, key: string, opts: { concurrency?: number; tag?: string; maxAttempts?: number } = {}): Load {
  const tag = opts.tag ?? `load-${Date.now()}`;
  const maxAttempts = opts.maxAttempts ?? 60;
  const load: Load = { phase: 'start', outcomes: [], attempts: [], acked, stop };
  let running = true;
  let seq = 0;
  let ackCount = 0;

  async function one(): Promise<void> {
    const idem = `${tag}-${seq++}`;
    const body = { amount: 1000 + (seq % 500), currency: 'AZN', order_id: idem };
    for (let attempt = 1; ; attempt++) {
      const t0 = performance.now();
      const phase = load.phase;
      let status = 0;
      let id: string | null = null;
      let replayed = false;
      let code = '';
      try {
        const r = await rig.request('POST', '/api/v2/payments', { key, idem, body, timeoutMs: 20_000 });
        status = r.status;
        id = r.body?.id ?? null;
        code = r.body?.error?.code ?? r.body?.code ?? '';
        replayed = r.headers.get('idempotent-replayed') === 'true';
      } catch { status = 0; }
      load.attempts.push({ phase, status, ms: performance.now() - t0 });
      const retry = RETRY.has(status) && (status !== 409 || /in_use/.test(code));
      if (!retry || attempt >= maxAttempts) {
        load.outcomes.push({ key: idem, id: status < 300 ? id : null, status, attempts: attempt, replayed });
        if (status >= 200 && status < 300) ackCount++;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1000)));
    }
  }

  const workers = Array.from({ length: opts.concurrency ?? 16 }, async () => { while (running) await one(); });

  async function acked(n: number, ms = 120_000): Promise<void> {
    const target = ackCount + n;
    const end = Date.now() + ms;
    while (ackCount < target) {
      if (Date.now() > end) throw new Error(`load: ${ackCount}/${target} creates acknowledged after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function stop(): Promise<void> { running = false; await Promise.all(workers); }
  return load;
}

/** p50 / p99 / max of the attempts of one phase, in ms (for the log only; tests never assert time). */
export function latency(attempts: Attempt[], phase: string): string {
  const ms = attempts.filter((a) => a.phase === phase).map((a) => a.ms).sort((a, b) => a - b);
  if (!ms.length) return `${phase}: no attempts`;
  const q = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]);
  const other = new Map<number, number>();
  for (const a of attempts) if (a.phase === phase && a.status !== 201) other.set(a.status, (other.get(a.status) ?? 0) + 1);
  const answers = [...other].map(([s, n]) => `${s === 0 ? 'network error' : s} ×${n}`).join(', ') || 'none';
  return `${phase}: ${ms.length} attempts, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms; answers other than 201: ${answers}`;
}
