// Scenario 3: the payments server as a child process (one WORKERS value, one fresh database),
// measured on POST /api/v2/payments (distinct Idempotency-Keys) and GET /api/v2/payments/{id}.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sampleRss, spawnNode } from './children.js';
import { measure, type LoadFigures, type LoadParams } from './load.js';
import { mb } from './stats.js';
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
  /** Awaited before each measured scenario ('create', 'get'), e.g. to wait for an idle machine. */
  beforeScenario?: (name: 'create' | 'get') => Promise<void>;
}

export interface ScenarioFigures extends LoadFigures { peakRssMb: number }

export interface ServerRun {
  workers: number;
  startupMs: number;
  create: ScenarioFigures;
  get: ScenarioFigures | null;
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

export async function withRss(pid: number, run: () => Promise<LoadFigures>): Promise<ScenarioFigures> {
  const sampler = sampleRss(pid, 200);
  try {
    const figures = await run();
    return { ...figures, peakRssMb: mb(sampler.stop()) };
  } finally {
    sampler.stop();
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
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}), ...extraEnv,
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

export async function runServerScenarios(o: ServerScenarioOptions): Promise<ServerRun> {
  const { server, adminToken, url, startupMs } = await startServer(o);
  try {
    const { key } = await setupMerchant(url, adminToken);
    const tag = `bench-${randomBytes(4).toString('hex')}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const createReq = createRequest(key, tag);
    const pid = server.proc.pid!;
    await o.beforeScenario?.('create');
    const create = await withRss(pid, () => measure(url, [createReq], o.load));
    if (o.createOnly) return { workers: o.workers, startupMs, create, get: null };

    const ids = await seedPayments(url, key, tag, 100);
    let next = 0;
    const getReq: autocannon.Request = {
      method: 'GET', path: `/api/v2/payments/${ids[0]}`, headers,
      setupRequest: (req) => ({ ...req, path: `/api/v2/payments/${ids[next++ % ids.length]}` }),
    };
    await o.beforeScenario?.('get');
    const get = await withRss(pid, () => measure(url, [getReq], o.load));
    return { workers: o.workers, startupMs, create, get };
  } finally {
    await server.stop();
  }
}
