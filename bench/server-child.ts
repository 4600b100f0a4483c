// The payments server as a child of the benchmark: start it on a free loopback port with a fresh
// admin token, call its APIs while preparing a scenario, and sample its memory while measuring.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sampleRss, spawnNode } from './children.js';
import type { LoadFigures } from './load.js';
import { startScriptNodeOptions } from './start-options.js';
import { mb } from './stats.js';

/** What a server child needs: its WORKERS, a fresh database, the Redis prefix and the data directory. */
export interface ServerChildOptions {
  workers: number;
  databaseUrl: string;
  redisUrl: string | null;
  kvPrefix: string;
  dataDir: string;
  /** Extra node flags for the server (e.g. --cpu-prof); profiles are written when it stops. */
  nodeArgs?: string[];
}

export interface ScenarioFigures extends LoadFigures { peakRssMb: number }

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

/** Starts the server child on a free loopback port; `extraEnv` is added to the bench's usual env. */
export async function startServer(o: ServerChildOptions, extraEnv: Record<string, string> = {}) {
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: o.databaseUrl, KV_PREFIX: o.kvPrefix, DATA_DIR: o.dataDir,
    WORKERS: String(o.workers), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'info', DEMO_MERCHANT: '0',
    CARD_FINGERPRINT_KEY: `bench_${randomBytes(16).toString('hex')}`,
    // npm start's node options (its main-thread heap limit): the bench measures the server as shipped.
    NODE_OPTIONS: startScriptNodeOptions(),
    ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
    // The worker heap settings and the connection budget pass through, to compare them on one machine
    // (docs/operations.md "Memory" and "Database connections").
    ...Object.fromEntries(['WORKER_YOUNG_GENERATION_MB', 'WORKER_OLD_GENERATION_MB', 'PG_POOL_MAX'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
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
