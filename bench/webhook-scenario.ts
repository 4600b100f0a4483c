// Webhook scenario (issue 5): merchant W's payments expire one second after creation and each
// yields one signed payment.expired delivery to a local receiver (its own process); merchant B,
// without webhooks, measures create throughput. Phase 1: B alone. Phase 2: B at full speed while W
// creates at a fixed rate; then wait until every W event has arrived (bounded). One server child
// with PAYMENT_WINDOW_SECONDS=1 EXPIRY_POLL_MS=100 WEBHOOK_ALLOW_PRIVATE=1 serves both phases.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { spawnNode } from './children.js';
import { dispatchFigures, type DispatchFigures } from './dispatch-figures.js';
import { measureTimed, type LoadFigures, type LoadParams, type TimedFigures } from './load.js';
import { pacedLoad } from './paced-load.js';
import {
  call, createBody, createRequest, setupMerchant, startServer, withRss, type ScenarioFigures, type ServerChildOptions,
} from './server-scenarios.js';
import { round } from './stats.js';

export interface WebhookScenarioOptions extends ServerChildOptions {
  load: LoadParams;
  /** W's creates per second (each one a delivery a second later). */
  rate: number;
  /** 'steady': open-loop pacer; 'autocannon': overallRate (bursts once a second per connection). */
  pacer: 'steady' | 'autocannon';
  drainSeconds: number;
  beforeScenario?: (name: string) => Promise<void>;
}

export interface DeliveryFigures {
  expected: number; received: number; duplicates: number; signatureFailures: number; malformed: number;
  /** Deliveries that arrived during B's measured window of phase 2, per second. */
  perSecond: number;
  /** created_at-to-delivery (ms) of the events committed during that window (created_at: the decision, just before the commit). */
  p50: number; p99: number; max: number;
  /** Expiry commit minus (payment created_at + window), ms: how late the scheduler expired them. */
  expiryLagP50: number; expiryLagP99: number;
  /** Time from the end of the load until the last event arrived (or the drain limit). */
  drainMs: number; complete: boolean;
  /**
   * From the server's histograms (every W delivery of phase 2 and its drain, not only the window):
   * the delivery's write (just before its commit) to the first attempt's start (`webhook_dispatch_wait_seconds`), as the upper bound of the
   * bucket holding the quantile, ms. The rest of the latency is the request itself.
   */
  waitP50?: number | null; waitP99?: number | null;
}

export interface WebhookRun {
  workers: number; rate: number; pacer: string; serverEnv: Record<string, string>;
  /** BENCH_WEBHOOK_ANSWER_MS: the receiver answered each delivery this long after it arrived (absent: at once). */
  receiverAnswerMs?: number;
  /** Time from the end of phase 1 until every payment of phase 1 had expired (window + expiry backlog). */
  backlogDrainMs: number;
  alone: ScenarioFigures;
  withWebhooks: ScenarioFigures;
  paced: LoadFigures;
  /** B's create req/s in phase 2 ÷ phase 1, and (B + W) ÷ B alone. */
  createRatio: number; totalCreateRatio: number;
  deliveries: DeliveryFigures;
  /** The dispatchers' counters over the server's whole run (absent from runs before they existed). */
  dispatch?: DispatchFigures;
}

const RECEIVER = fileURLToPath(new URL('./webhook-receiver.js', import.meta.url));
const WINDOW_SECONDS = 1;
const W_SOCKETS = 256;

/** The server's env for this scenario; WEBHOOK_* variables of the bench's own env are passed on (experiments). */
function scenarioEnv(): Record<string, string> {
  const env: Record<string, string> = { PAYMENT_WINDOW_SECONDS: String(WINDOW_SECONDS), EXPIRY_POLL_MS: '100', WEBHOOK_ALLOW_PRIVATE: '1' };
  for (const [k, v] of Object.entries(process.env)) if (/^WEBHOOK_[A-Z_]+$/.test(k) && v !== undefined) env[k] = v;
  return env;
}

type ReceiverStats = Omit<DeliveryFigures, 'expected' | 'drainMs' | 'complete' | 'perSecond'> & { perSecond: number; lastArrivalMs: number; connections?: number };

async function receiverStats(port: number, from = 0, to = Date.now()): Promise<ReceiverStats> {
  const res = await fetch(`http://127.0.0.1:${port}/stats?from=${from}&to=${to}`, { signal: AbortSignal.timeout(10_000) });
  return (await res.json()) as ReceiverStats;
}

/**
 * Quantiles of a Prometheus histogram (no labels) in ms: for each q, the upper bound of the first
 * bucket whose count reaches q of the total (null when nothing was observed or it is the +Inf bucket).
 */
export function histogramQuantiles(text: string, name: string, qs: number[]): Array<number | null> {
  const buckets: Array<[number, number]> = [];
  const re = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm');
  for (const m of text.matchAll(re)) buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  buckets.sort((a, b) => a[0] - b[0]);
  const total = buckets.at(-1)?.[1] ?? 0;
  return qs.map((q) => {
    if (total === 0) return null;
    const b = buckets.find(([, n]) => n >= q * total)!;
    return Number.isFinite(b[0]) ? round(b[0] * 1000) : null;
  });
}

/** Waits until no payment is pending any more (read-only query on the run's database); returns the wait. */
async function waitForNoPendingPayments(databaseUrl: string, maxMs: number): Promise<number> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    while (Date.now() - started < maxMs) {
      const r = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE status = 'pending'`);
      if (r.rows[0].n === 0) break;
      await new Promise((res) => setTimeout(res, 250));
    }
  } finally {
    await client.end().catch(() => {});
  }
  return Date.now() - started;
}

export async function runWebhookScenario(given: WebhookScenarioOptions): Promise<WebhookRun> {
  // Statistics of the new database before each measured run (load.ts LoadParams.analyze).
  const o = { ...given, load: { ...given.load, analyze: given.databaseUrl } };
  const serverEnv = scenarioEnv();
  let backlogDrainMs = 0;
  const answerMs = Number(process.env.BENCH_WEBHOOK_ANSWER_MS ?? 0);
  const receiver = spawnNode('webhook receiver', RECEIVER, { BENCH_WINDOW_MS: String(WINDOW_SECONDS * 1000), BENCH_WEBHOOK_ANSWER_MS: String(answerMs) });
  try {
    const port = Number((await receiver.waitFor('listening', 15_000)).port);
    const { server, adminToken, url } = await startServer(o, serverEnv);
    try {
      const { key: keyB } = await setupMerchant(url, adminToken);
      const { id: merchantW, key: keyW } = await setupMerchant(url, adminToken);
      const settings = await call(url, adminToken, 'PUT', `/internal/merchants/${merchantW}/webhook-settings`,
        { api: 'merchant', url: `http://127.0.0.1:${port}/hooks` });
      const put = await fetch(`http://127.0.0.1:${port}/secret`, { method: 'PUT', body: String(settings.secret) });
      if (put.status !== 204) throw new Error(`receiver refused the secret: ${put.status}`);

      const tag = `bench-${randomBytes(4).toString('hex')}`;
      const pid = server.proc.pid!;
      await o.beforeScenario?.('webhooks phase 1');
      const alone = await withRss(pid, async () => (await measureTimed(url, [createRequest(keyB, `${tag}-b1`)], o.load)).figures);

      // Phase 1's payments all expire too: let the server finish that before phase 2 starts.
      backlogDrainMs = await waitForNoPendingPayments(o.databaseUrl, 60_000);
      await o.beforeScenario?.('webhooks phase 2');
      let bTimed: TimedFigures | null = null;
      let wTimed: TimedFigures | null = null;
      const withWebhooks = await withRss(pid, async () => {
        const headersW = { authorization: `Bearer ${keyW}`, 'content-type': 'application/json' };
        // Enough sockets that W keeps its rate while B's 100 connections fill the server's queue.
        const wLoad = { ...o.load, connections: W_SOCKETS };
        [bTimed, wTimed] = await Promise.all([
          measureTimed(url, [createRequest(keyB, `${tag}-b2`)], o.load),
          o.pacer === 'autocannon'
            ? measureTimed(url, [createRequest(keyW, `${tag}-w`)], wLoad, { overallRate: o.rate })
            : pacedLoad(url, o.rate, wLoad, (n) => ({ method: 'POST', path: '/api/v2/payments', headers: { ...headersW, 'idempotency-key': `${tag}-w-${n}` }, body: createBody(n) })),
        ]);
        return bTimed.figures;
      });
      const b = bTimed!, w = wTimed!;

      // Every W payment expires WINDOW_SECONDS after creation: wait until all of them have arrived
      // and nothing new came for a moment, or the drain limit.
      const loadEnd = Date.now();
      const deadline = loadEnd + o.drainSeconds * 1000;
      let s = await receiverStats(port);
      while (Date.now() < deadline && !(s.received >= w.total2xx && Date.now() - s.lastArrivalMs > 1500)) {
        await new Promise((r) => setTimeout(r, 250));
        s = await receiverStats(port);
      }
      const win = await receiverStats(port, b.startMs, b.endMs);
      const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(10_000) });
      if (!metrics.ok) throw new Error(`GET /metrics: ${metrics.status}`);
      const metricsText = await metrics.text();
      const wait = histogramQuantiles(metricsText, 'webhook_dispatch_wait_seconds', [0.5, 0.99]);
      const deliveries: DeliveryFigures = {
        expected: w.total2xx, received: s.received, duplicates: s.duplicates, signatureFailures: s.signatureFailures, malformed: s.malformed,
        perSecond: win.perSecond, p50: win.p50, p99: win.p99, max: win.max, expiryLagP50: win.expiryLagP50, expiryLagP99: win.expiryLagP99,
        drainMs: Math.max(0, (s.received >= w.total2xx ? s.lastArrivalMs : Date.now()) - loadEnd), complete: s.received >= w.total2xx,
        waitP50: wait[0], waitP99: wait[1],
      };
      return {
        workers: o.workers, rate: o.rate, pacer: o.pacer, serverEnv, ...(answerMs > 0 ? { receiverAnswerMs: answerMs } : {}), backlogDrainMs, alone, withWebhooks, paced: w.figures,
        createRatio: round(withWebhooks.reqPerSec / alone.reqPerSec),
        totalCreateRatio: round((withWebhooks.reqPerSec + w.figures.reqPerSec) / alone.reqPerSec),
        deliveries, dispatch: dispatchFigures(metricsText, s.connections ?? null),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await receiver.stop();
  }
}
