// Where the benchmark's Postgres and Redis come from, and the per-run databases and keys it creates
// and removes. Postgres: DATABASE_URL, else the local server on 127.0.0.1:5432 if it answers, else an
// embedded Postgres started here in a temporary directory (BENCH_EMBEDDED=1 forces that). Redis: REDIS_URL, else 127.0.0.1:6379 if
// it answers PING, else none (the server then uses its in-process key-value store). With
// BENCH_KEEP_DATABASES=1 the run's databases are kept on a Postgres that outlives the run (not an embedded one).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { startEmbedded, type Embedded } from '../src/store/embedded.js';
import { withDatabase } from '../src/store/db.js';
import { createLogger } from '../src/log.js';
import { parentOf } from './cpu.js';

const LOCAL_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

export interface PostgresTarget {
  source: 'DATABASE_URL' | 'local' | 'embedded';
  version: string;
  /** Settings that decide what a commit costs (fsync, synchronous_commit, ...). */
  settings: Record<string, string>;
  /** The Postgres server process when it runs on this machine (its CPU is counted per request), else null. */
  serverPid: number | null;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface RedisTarget { source: 'REDIS_URL' | 'local' | 'in-process'; url: string | null }

async function answers(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const r = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return r.rows[0].v;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The postmaster of the Postgres `admin` talks to, if it is a process of this machine: the parent
 * of our backend, when /proc shows that backend as a postgres process (a remote server's backend
 * pid means nothing here, or names some other process).
 */
async function localServerPid(admin: pg.Pool): Promise<number | null> {
  const backend = (await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const isPostgres = (pid: number) => { try { return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres'; } catch { return false; } };
  if (!isPostgres(backend)) return null;
  const parent = parentOf(backend);
  return parent !== null && isPostgres(parent) ? parent : null;
}

export async function resolvePostgres(): Promise<PostgresTarget> {
  let adminUrl: string;
  let source: PostgresTarget['source'];
  let embedded: Embedded | null = null;
  let dataDir: string | null = null;
  let version = process.env.DATABASE_URL ? await answers(process.env.DATABASE_URL) : null;
  if (process.env.DATABASE_URL) {
    if (!version) throw new Error('DATABASE_URL is set but that Postgres does not answer');
    adminUrl = process.env.DATABASE_URL;
    source = 'DATABASE_URL';
  } else if (process.env.BENCH_EMBEDDED !== '1' && (version = await answers(LOCAL_PG))) {
    adminUrl = LOCAL_PG;
    source = 'local';
  } else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-pg-'));
    embedded = await startEmbedded(dataDir, createLogger('warn', 'bench'));
    adminUrl = embedded.url;
    source = 'embedded';
    version = (await answers(adminUrl)) ?? 'unknown';
  }
  const keep = process.env.BENCH_KEEP_DATABASES === '1';
  const kept = new Set<string>();
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1, connectionTimeoutMillis: 5000 });
  admin.on('error', () => {});
  const settings: Record<string, string> = {};
  const shown = await admin.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name = ANY($1) ORDER BY name`,
    [['fsync', 'synchronous_commit', 'wal_level', 'shared_buffers', 'max_connections']]);
  for (const r of shown.rows) settings[r.name] = r.setting;
  const serverPid = await localServerPid(admin);
  const safe = (name: string) => {
    if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`refusing database name ${name}`);
    return name;
  };
  return {
    source, version: version!, settings, serverPid,
    async createDatabase(name) {
      await admin.query(`CREATE DATABASE ${safe(name)}`);
      return withDatabase(adminUrl, name);
    },
    async dropDatabase(name) {
      if (keep && !embedded) {
        // BENCH_KEEP_DATABASES=1: the run's databases stay for a look afterwards (bench/webhook-stages.sql); drop them by hand.
        const there = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [safe(name)]);
        if (there.rowCount && !kept.has(name)) process.stderr.write(`[bench] kept database ${name} (BENCH_KEEP_DATABASES=1)\n`);
        kept.add(name);
        return;
      }
      await admin.query(`DROP DATABASE IF EXISTS ${safe(name)} WITH (FORCE)`);
    },
    async close() {
      await admin.end().catch(() => {});
      if (embedded) await embedded.stop().catch(() => {});
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function pings(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function resolveRedis(): Promise<RedisTarget> {
  if (process.env.REDIS_URL) {
    if (process.env.REDIS_URL.startsWith('redis-cluster://')) return { source: 'REDIS_URL', url: process.env.REDIS_URL };
    if (!(await pings(process.env.REDIS_URL))) throw new Error('REDIS_URL is set but that Redis does not answer PING');
    return { source: 'REDIS_URL', url: process.env.REDIS_URL };
  }
  if (await pings(LOCAL_REDIS)) return { source: 'local', url: LOCAL_REDIS };
  return { source: 'in-process', url: null };
}

/** Deletes every key under prefix (the server's KV_PREFIX for one run). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  if (url.startsWith('redis-cluster://')) return 0; // SCAN would have to visit every node: left to the operator
  const r = new Redis(url, { connectTimeout: 2000, maxRetriesPerRequest: 1 });
  r.on('error', () => {});
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return deleted;
}
