// Scenario 3: the payments server as a child process (one WORKERS value, one fresh database),
// measured on POST /api/v2/payments (distinct Idempotency-Keys), POST /v2/payments/checkout (the
// gateway's checkout session, same shape of load, reported as a ratio to the merchant API's create)
// and GET /api/v2/payments/{id};
// and GET /api/v2/payments/{id} again with two server processes on one database (the production
// shape), the load spread over both.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sampleRss, spawnNode } from './children.js';
import { measure, measureTimed, type LoadFigures, type LoadParams } from './load.js';
import { mb } from './stats.js';
import { TEST_CARDS } from '../src/connectors/sandbox/cards.js';
import type autocannon from 'autocannon';

export interface ServerScenarioOptions {
  workers: number;
  databaseUrl: string;
  redisUrl: string | null;
  kvPrefix: string;
  dataDir: string;
  load: LoadParams;
  /** Extra node flags for the server (e.g. --cpu-prof); profiles are written when it stops. */
  nodeArgs?: string[];
  /** Run only the create scenario (profiling). */
  createOnly?: boolean;
  /** Which scenarios to measure (default: all). */
  scenarios?: { create: boolean; get: boolean; checkout?: boolean; direct?: boolean };
  /** Awaited before each measured scenario ('create', 'get', 'get2'), e.g. to wait for an idle machine. */
  beforeScenario?: (name: string) => Promise<void>;
}

export interface ScenarioFigures extends LoadFigures { peakRssMb: number }

export interface ServerRun {
  workers: number;
  startupMs: number;
  /** Null when the create scenario was filtered out (BENCH_ONLY). */
  create: ScenarioFigures | null;
  /** POST /v2/payments/checkout; null when filtered out. */
  checkout?: ScenarioFigures | null;
  /** POST /v2/payments (card 4242…, automatic capture: create and sandbox charge); null when filtered out. */
  direct?: ScenarioFigures | null;
  get: ScenarioFigures | null;
}

/** GET /api/v2/payments/{id} with `processes` server processes (WORKERS each) on one database. */
export interface MultiProcessGet {
  processes: number;
  workers: number;
  get: ScenarioFigures;
}

const SERVER = fileURLToPath(new URL('../src/main.js', import.meta.url));

export async function call(url: string, token: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(json)}`);
  return json!;
}

/** Operator API: a merchant whose rate limit does not interfere, and a test merchant key. */
export async function setupMerchant(url: string, adminToken: string): Promise<{ id: string; key: string }> {
  const merchant = await call(url, adminToken, 'POST', '/internal/merchants', { name: 'bench' });
  const id = String(merchant.id);
  // 10 000 000/min is the schema's maximum: far above anything two cores can send.
  await call(url, adminToken, 'PATCH', `/internal/merchants/${id}`, { rate_limit_per_minute: 10_000_000 });
  const key = await call(url, adminToken, 'POST', `/internal/merchants/${id}/api-keys`, { kind: 'merchant', mode: 'test' });
  return { id, key: String(key.key) };
}

async function seedPayments(url: string, key: string, tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, j) => call(url, key, 'POST', '/api/v2/payments',
      { amount: 4900, currency: 'AZN', order_id: `seed-${i + j}` }, { 'Idempotency-Key': `${tag}-seed-${i + j}` }));
    for (const p of await Promise.all(batch)) ids.push(String(p.id));
  }
  return ids;
}

/** Runs the load while sampling memory; peakRssMb is the largest of the processes' own peaks. */
export async function withRss(pid: number | number[], run: () => Promise<LoadFigures>): Promise<ScenarioFigures> {
  const samplers = (Array.isArray(pid) ? pid : [pid]).map((p) => sampleRss(p, 200));
  try {
    const figures = await run();
    return { ...figures, peakRssMb: mb(Math.max(...samplers.map((x) => x.stop()))) };
  } finally {
    for (const x of samplers) x.stop();
  }
}

export type ServerChildOptions = Pick<ServerScenarioOptions, 'workers' | 'databaseUrl' | 'redisUrl' | 'kvPrefix' | 'dataDir' | 'nodeArgs'>;

/** Starts the server child on a free loopback port; `extraEnv` is added to the bench's usual env. */
export async function startServer(o: ServerChildOptions, extraEnv: Record<string, string> = {}) {
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: o.databaseUrl, KV_PREFIX: o.kvPrefix, DATA_DIR: o.dataDir,
    WORKERS: String(o.workers), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'info', DEMO_MERCHANT: '0',
    CARD_FINGERPRINT_KEY: `bench_${randomBytes(16).toString('hex')}`,
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
    // The worker heap settings pass through, to compare them on one machine (docs/operations.md "Memory").
    ...Object.fromEntries(['WORKER_YOUNG_GENERATION_MB', 'WORKER_OLD_GENERATION_MB'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
    ...extraEnv,
  };
  const started = Date.now();
  // BENCH_NODE_ARGS: extra node flags for the server, to try V8 settings (e.g. --max-semi-space-size=32).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = spawnNode(`server (WORKERS=${o.workers})`, SERVER, env, [...extra, ...(o.nodeArgs ?? [])]);
  try {
    const ready = await server.waitFor('listening', 60_000);
    return { server, adminToken, url: String(ready.url), startupMs: Date.now() - started };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** The JSON body of the n-th create of a run. */
export const createBody = (n: number): string => JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}` });

/** POST /api/v2/payments for autocannon, each request with its own Idempotency-Key (`<tag>-<n>`). */
export function createRequest(key: string, tag: string): autocannon.Request {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/api/v2/payments', headers,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-${n}` }, body: createBody(n) };
    },
  };
}

/** POST /v2/payments/checkout for autocannon with a gateway secret key, each with its own Idempotency-Key. */
export function checkoutRequest(key: string, tag: string): autocannon.Request {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/v2/payments/checkout', headers,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-cs-${n}` }, body: JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}` }) };
    },
  };
}

/** POST /v2/payments with the sandbox's success card and automatic capture, each with its own Idempotency-Key. */
export function directRequest(key: string, tag: string): autocannon.Request {
  // The sandbox bank's own success card (no card number is written outside the sandbox's list).
  const number = Object.keys(TEST_CARDS).find((pan) => TEST_CARDS[pan].kind === 'success')!;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/v2/payments', headers,
    setupRequest: (req) => {
      const n = seq++;
      const card = { number, exp_month: '12', exp_year: '34', cvc: '731' };
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-dp-${n}` }, body: JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}`, card }) };
    },
  };
}

/**
 * GET /api/v2/payments/{id} over existing payments, one id per connection: connection i reads
 * payment i from server i mod n, so the reads that meet in one statement are of distinct ids, as
 * with many clients. Each connection's request is fixed, so autocannon builds it once, as for the
 * hello baseline; a per-request `setupRequest` makes autocannon rebuild it from its whole option
 * set on every send, which cost it about 15 µs of CPU per request on 2 cores, taken from the
 * servers (2026-11-26, two processes on one database: 0.18× → 0.34× hello).
 */
function measureGets(bases: string[], key: string, ids: string[], load: LoadParams, pids: number[]): Promise<LoadFigures> {
  const urls = Array.from({ length: load.connections }, (_, i) => `${bases[i % bases.length]}/api/v2/payments/${ids[i % ids.length]}`);
  return measureTimed(urls, undefined, load, { headers: { authorization: `Bearer ${key}` } }, pids).then((t) => t.figures);
}

/** As many payments as connections (at least 100), so no two connections read the same one. */
const getIds = (load: LoadParams): number => Math.max(100, load.connections);

export async function runServerScenarios(o: ServerScenarioOptions): Promise<ServerRun> {
  const want = o.createOnly ? { create: true, get: false, checkout: false } : o.scenarios ?? { create: true, get: true, checkout: true };
  const { server, adminToken, url, startupMs } = await startServer(o);
  try {
    const { key } = await setupMerchant(url, adminToken);
    const tag = `bench-${randomBytes(4).toString('hex')}`;
    const pid = server.proc.pid!;
    let create: ScenarioFigures | null = null;
    if (want.create) {
      await o.beforeScenario?.('create');
      create = await withRss(pid, () => measure(url, [createRequest(key, tag)], o.load, [pid]));
    }
    let checkout: ScenarioFigures | null = null;
    if (want.checkout) {
      const merchant = await setupMerchant(url, adminToken);
      const sk = await call(url, adminToken, 'POST', `/internal/merchants/${merchant.id}/api-keys`, { kind: 'secret', mode: 'test' });
      await o.beforeScenario?.('checkout');
      checkout = await withRss(pid, () => measure(url, [checkoutRequest(String(sk.key), tag)], o.load, [pid]));
    }
    let direct: ScenarioFigures | null = null;
    if (want.direct) {
      const merchant = await setupMerchant(url, adminToken);
      await call(url, adminToken, 'PATCH', `/internal/merchants/${merchant.id}`, { card_data_allowed: true });
      const sk = await call(url, adminToken, 'POST', `/internal/merchants/${merchant.id}/api-keys`, { kind: 'secret', mode: 'test' });
      await o.beforeScenario?.('direct');
      direct = await withRss(pid, () => measure(url, [directRequest(String(sk.key), tag)], o.load, [pid]));
    }
    if (!want.get) return { workers: o.workers, startupMs, create, checkout, direct, get: null };

    const ids = await seedPayments(url, key, tag, getIds(o.load));
    await o.beforeScenario?.('get');
    const get = await withRss(pid, () => measureGets([url], key, ids, o.load, [pid]));
    return { workers: o.workers, startupMs, create, checkout, direct, get };
  } finally {
    await server.stop();
  }
}

/**
 * Two server processes (WORKERS each) on one database, as in production behind a load balancer:
 * autocannon spreads its connections over both in turn. CPU per request is that of both processes.
 */
export async function runMultiProcessGet(o: Omit<ServerScenarioOptions, 'createOnly' | 'scenarios'>, processes = 2): Promise<MultiProcessGet> {
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    for (let i = 0; i < processes; i++) servers.push(await startServer(o));
    const { key } = await setupMerchant(servers[0].url, servers[0].adminToken);
    const tag = `bench-${randomBytes(4).toString('hex')}`;
    const ids = await seedPayments(servers[0].url, key, tag, getIds(o.load));
    const pids = servers.map((s) => s.server.proc.pid!);
    await o.beforeScenario?.('get2');
    const get = await withRss(pids, () => measureGets(servers.map((s) => s.url), key, ids, o.load, pids));
    return { processes, workers: o.workers, get };
  } finally {
    await Promise.all(servers.map((s) => s.server.stop()));
  }
}

/**
 * POST /v2/payouts (gateway, sk_test_ key, distinct Idempotency-Keys) of 1 minor unit each to an
 * IBAN, from a balance funded by settled payments. Every payout of one merchant, mode and currency
 * takes that balance's lock (docs/decisions.md "Payouts and balance"), so this is the serialised
 * path's figure, bank call included.
 */
export async function runPayoutScenario(o: Omit<ServerScenarioOptions, 'createOnly' | 'scenarios'>): Promise<ScenarioFigures> {
  const { server, adminToken, url } = await startServer(o);
  try {
    const { id, key } = await setupMerchant(url, adminToken);
    const sk = String((await call(url, adminToken, 'POST', `/internal/merchants/${id}/api-keys`, { kind: 'secret', mode: 'test' })).key);
    const tag = `bench-po-${randomBytes(4).toString('hex')}`;
    for (const pid of await seedPayments(url, key, tag, 10)) {
      await call(url, key, 'POST', `/api/v2/test/payments/${pid}/complete`, { outcome: 'succeeded' });
    }
    const headers = { authorization: `Bearer ${sk}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ amount: 1, currency: 'AZN', destination: { type: 'iban', iban: 'DE89370400440532013000' } });
    let seq = 0;
    const request: autocannon.Request = {
      method: 'POST', path: '/v2/payouts', headers, body,
      setupRequest: (req) => ({ ...req, headers: { ...headers, 'idempotency-key': `${tag}-${seq++}` }, body }),
    };
    const pid = server.proc.pid!;
    await o.beforeScenario?.('payouts');
    return await withRss(pid, () => measure(url, [request], o.load, [pid]));
  } finally {
    await server.stop();
  }
}
