// The scale-out rig: what an operator runs, on this machine's real parts. Two or three server
// processes (dist/src/main.js) on one fresh Postgres database, nginx in front configured from
// deploy/nginx.conf (test/rig/nginx.ts), and a Redis Cluster of three masters
// (test/rig/redis-cluster.ts) reached through `redis-cluster://`. Replicas can be SIGKILLed and
// started again on their port (nginx keeps its upstream list), Redis masters stopped and started.
// `node dist/test/rig/start.js` (npm run rig) starts one by hand; tests use startRig().
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLogger } from '../../src/log.js';
import { startEmbedded } from '../../src/store/embedded.js';
import { PG_URL, freshDatabase, suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';
import { killOnExit } from './reaper.js';
import { rigPorts } from './ports.js';
import { nginxMissing, startNginx, type Nginx } from './nginx.js';
import { redisClusterMissing, startRedisCluster, type RedisCluster } from './redis-cluster.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/**
 * The settings every replica gets from the rig, as an operator sets them: docker-compose.yml's
 * `app` service names each of them (test/unit/compose-settings.test.ts).
 */
export const RIG_APP_SETTINGS = ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'CARD_FINGERPRINT_KEY', 'PUBLIC_BASE_URL', 'CLIENT_IP_HEADER', 'WORKERS', 'PG_POOL_MAX'] as const;
/** What only the rig sets (compose has its own equivalents or the defaults are right there). */
export const RIG_LOCAL_SETTINGS = ['HOST', 'PORT', 'DATA_DIR', 'DEMO_MERCHANT', 'KV_PREFIX', 'LOG_LEVEL'] as const;

export const RIG_ADMIN = 'adm-rig';

export interface Replica {
  port: number;
  url: string;
  proc: ChildProcess | null;
  /** The last lines the process wrote (stdout and stderr). */
  tail(): string;
}

export interface Reply { status: number; headers: Headers; body: any; text: string }
export interface RequestOpts { key?: string | null; body?: unknown; headers?: Record<string, string>; idem?: string; timeoutMs?: number }

export interface Rig {
  /** nginx, the only address clients use. */
  url: string;
  replicas: Replica[];
  redis: RedisCluster;
  nginx: Nginx;
  /** A direct connection to the rig's database, for assertions. */
  db: pg.Pool;
  env: Record<string, string>;
  /** A request through nginx (or `base`); network errors are thrown. */
  request(method: string, p: string, o?: RequestOpts, base?: string): Promise<Reply>;
  admin(method: string, p: string, body?: unknown): Promise<Reply>;
  merchant(fields?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  kill(i: number): Promise<void>;
  restart(i: number): Promise<void>;
  close(): Promise<void>;
}

export function rigMissing(): string | false {
  return nginxMissing() || redisClusterMissing();
}

const TAIL = 200;

async function spawnReplica(r: Replica, env: Record<string, string>): Promise<void> {
  const lines: string[] = [];
  const proc = spawn(process.execPath, [MAIN], { env: { ...process.env, ...env, PORT: String(r.port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Its own line before its health: a health answer alone could come from another server on that port.
  const own = `listening on ${r.url} `;
  let recent = '';
  let seen = false;
  const keep = (d: Buffer) => {
    recent = (recent + d.toString()).slice(-4096);
    seen ||= recent.includes(own);
    for (const l of d.toString().split('\n')) if (l) { lines.push(l); if (lines.length > TAIL) lines.shift(); }
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  r.proc = proc;
  killOnExit(proc);
  r.tail = () => lines.join('\n');
  await until(`replica on ${r.port}`, async () => {
    if (proc.exitCode !== null) throw new Error(`replica ${r.port} exited ${proc.exitCode}:\n${r.tail()}`);
    if (!seen) return false;
    return fetch(`${r.url}/v2/health`, { signal: AbortSignal.timeout(2000) }).then((res) => res.status === 200, () => false);
  }, 60_000, 100);
}

async function stopProc(p: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill(signal);
  const timer = setTimeout(() => p.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

export async function startRig(opts: { replicas?: number; workers?: number; env?: Record<string, string>; log?: (m: string) => void } = {}): Promise<Rig> {
  const say = opts.log ?? (() => {});
  const undo: (() => Promise<unknown>)[] = [];
  const close = async () => { for (const f of undo.reverse()) await f().catch(() => {}); undo.length = 0; };
  try {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-rig-'));
    undo.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let databaseUrl: string;
    if (PG_URL) {
      const database = await freshDatabase('rig');
      undo.push(() => database.drop());
      databaseUrl = database.url;
    } else {
      // No DATABASE_URL: one embedded Postgres of our own, shared by every replica. As root it runs
      // as the postgres user, who must be able to reach its directory through ours.
      chmodSync(dataDir, 0o711);
      const embedded = await startEmbedded(path.join(dataDir, 'shared'), createLogger('silent'));
      undo.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    say(`postgres ${databaseUrl.replace(/:[^:@/]*@/, ':***@')}`);
    const redis = await startRedisCluster();
    undo.push(() => redis.close());
    say(`redis cluster ${redis.url}`);

    const n = opts.replicas ?? 3;
    const ports = await rigPorts(n + 1, redis.nodes.map((x) => x.port));
    const lbPort = ports.pop()!;
    const url = `http://127.0.0.1:${lbPort}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl, REDIS_URL: redis.url, ADMIN_TOKEN: RIG_ADMIN, CARD_FINGERPRINT_KEY: 'rig-fingerprint-key-not-secret',
      PUBLIC_BASE_URL: url, CLIENT_IP_HEADER: 'x-real-ip', WORKERS: String(opts.workers ?? 1), PG_POOL_MAX: '12',
      HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_MERCHANT: '0', KV_PREFIX: `rig${suffix()}:`, LOG_LEVEL: 'warn',
      ...opts.env,
    };
    const replicas: Replica[] = ports.map((port) => ({ port, url: `http://127.0.0.1:${port}`, proc: null, tail: () => '' }));
    undo.push(() => Promise.all(replicas.map((r) => stopProc(r.proc, 'SIGKILL'))));
    // One at a time: migrations serialise anyway, and the first start is the slow one.
    for (const r of replicas) await spawnReplica(r, env);
    say(`replicas ${replicas.map((r) => r.url).join(' ')}`);
    const nginx = await startNginx(lbPort, replicas.map((r) => `127.0.0.1:${r.port}`));
    undo.push(() => nginx.close());
    say(`nginx ${url}`);
    const db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
    db.on('error', () => {});
    undo.push(() => db.end());

    async function request(method: string, p: string, o: RequestOpts = {}, base = url): Promise<Reply> {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.key) headers.authorization = `Bearer ${o.key}`;
      if (o.idem) headers['idempotency-key'] = o.idem;
      let body: string | undefined;
      if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json'; }
      const res = await fetch(base + p, { method, headers, body, signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
      const text = await res.text();
      let parsed: unknown = null;
      try { parsed = JSON.parse(text); } catch { /* not JSON (nginx's own 502 page) */ }
      return { status: res.status, headers: res.headers, body: parsed, text };
    }
    const admin = (method: string, p: string, body?: unknown) => request(method, p, { key: RIG_ADMIN, body });
    async function merchant(fields: Record<string, unknown> = {}) {
      const m = await admin('POST', '/internal/merchants', { name: 'Rig merchant', rate_limit_per_minute: 1_000_000, ...fields });
      if (m.status !== 201) throw new Error(`merchant create failed: ${m.status} ${m.text}`);
      const k = await admin('POST', `/internal/merchants/${m.body.id}/api-keys`, { kind: 'merchant', mode: 'test' });
      if (k.status !== 201) throw new Error(`key create failed: ${k.status} ${k.text}`);
      return { id: m.body.id as string, key: k.body.key as string };
    }

    return {
      url, replicas, redis, nginx, db, env, request, admin, merchant,
      kill: (i) => stopProc(replicas[i].proc, 'SIGKILL'),
      restart: (i) => spawnReplica(replicas[i], env),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
