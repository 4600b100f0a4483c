// Starts a real server in this process (real workers, real Postgres, real or in-process KV) for
// one test file, and a small fetch client for it. Everything is closed in teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { BUSY_MACHINE_DEADLINES, PG_URL, REDIS_URL, freshDatabase, suffix } from './env.js';
import { seedEmbeddedCluster } from './embedded-cluster.js';

export const ADMIN = 'test-admin-token';
/** Required with DATABASE_URL (src/config.ts); any non-default value does for tests. */
export const TEST_FINGERPRINT_KEY = 'test-fingerprint-key-not-secret';

export interface Reply { status: number; headers: Headers; body: any; text: string }

export interface TestServer {
  srv: RunningServer;
  url: string;
  /** A direct connection to the server's database, for assertions. */
  db: pg.Pool;
  request(method: string, path: string, opts?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply>;
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  merchant(fields?: Record<string, unknown>): Promise<{ id: string; key: string; liveKey: string }>;
  key(merchantId: string, kind?: string, mode?: string): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export { BUSY_MACHINE_DEADLINES } from './env.js';

interface Tap { teardown(fn: () => unknown): void }

/**
 * A test's server has the busy machine's deadlines unless its env sets its own (a test of the
 * deadlines does): a test that is not about them must not fail because the host is loaded.
 * It runs one worker thread unless the test asks for more (WORKERS): a worker costs 0.6-0.9 s of
 * CPU to start and stop, which most tests do not need; a test about what several workers do sets
 * its count (the crash and cluster tests' child servers take the machine's, as in production).
 * `opts.log`: the server's logger (default: silent, so no access lines either); a capturing one sees the access lines too. */
export async function startTestServer(t: Tap | null, env: Record<string, string> = {}, opts: { redis?: boolean; databaseUrl?: string; log?: Logger } = {}): Promise<TestServer> {
  const group = testGroup();
  if (!group) return newTestServer(t, env, opts);
  // In a group of files (test/group.ts) a server of the default settings is one for all of them,
  // closed at the group's end. Any other is the file's own, closed when the file's tests end (or
  // with the test that started it): each holds Postgres connections, and they must not pile up.
  if (Object.keys(env).length || Object.keys(opts).length) {
    const own = await newTestServer(t, env, opts);
    group.afterFile.push(own.close);
    return own;
  }
  if (!sharedServer) {
    const starting = newTestServer(null, {}, {});
    sharedServer = starting;
    group.atEnd.push(async () => (await starting).close());
  }
  return { ...(await sharedServer), close: async () => {} };
}

/** What test/group.ts offers the files it runs together: work for the end of each file, and of all. */
interface TestGroup { afterFile: (() => Promise<void>)[]; atEnd: (() => Promise<void>)[] }
const testGroup = (): TestGroup | undefined => (globalThis as { [GROUP]?: TestGroup })[GROUP];
const GROUP = Symbol.for('payments-engine.test-group');
let sharedServer: Promise<TestServer> | null = null;

async function newTestServer(t: Tap | null, env: Record<string, string>, opts: { redis?: boolean; databaseUrl?: string; log?: Logger }): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-test-'));
  const database = !opts.databaseUrl && PG_URL ? await freshDatabase() : null;
  if (!opts.databaseUrl && !PG_URL && !env.DATABASE_URL) await seedEmbeddedCluster(dataDir);
  const useRedis = opts.redis ?? true;
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', WORKERS: '1', ADMIN_TOKEN: ADMIN, DEMO_MERCHANT: '0',
    DATA_DIR: dataDir, EXPIRY_POLL_MS: '200', KV_PREFIX: `t${suffix()}:`,
    // Every test calls from 127.0.0.1, and a grouped file's server serves the whole group: the
    // public per-address limit (600 a minute by default) would count them all as one payer.
    // The tests of that limit set theirs.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    ...BUSY_MACHINE_DEADLINES,
    ...(opts.databaseUrl ?? database ? { DATABASE_URL: opts.databaseUrl ?? database!.url, CARD_FINGERPRINT_KEY: TEST_FINGERPRINT_KEY } : {}),
    ...(useRedis && REDIS_URL ? { REDIS_URL } : {}),
    ...env,
  });
  // tap starts each test file with its preloads (--import of its plugins and process info); the
  // actor workers need none of them, and loading them again in each worker doubled a server's CPU.
  config.workerExecArgv = [];
  const srv = await startServer(config, opts.log ?? createLogger('silent'));
  const db = new pg.Pool({ connectionString: srv.databaseUrl, max: 4 });
  db.on('error', () => {});

  async function request(method: string, p: string, o: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json'; }
    const res = await fetch(srv.url + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  const admin = (method: string, p: string, body?: unknown) => request(method, p, { key: ADMIN, body });

  async function key(merchantId: string, kind = 'merchant', mode = 'test') {
    const r = await admin('POST', `/internal/merchants/${merchantId}/api-keys`, { kind, mode });
    if (r.status !== 201) throw new Error(`key create failed: ${r.text}`);
    return { id: r.body.id as string, key: r.body.key as string };
  }

  async function merchant(fields: Record<string, unknown> = {}) {
    const r = await admin('POST', '/internal/merchants', { name: 'Test merchant', rate_limit_per_minute: 100000, ...fields });
    if (r.status !== 201) throw new Error(`merchant create failed: ${r.text}`);
    return { id: r.body.id as string, key: (await key(r.body.id)).key, liveKey: (await key(r.body.id, 'merchant', 'live')).key };
  }

  let closed = false;
  async function close() {
    if (closed) return;
    closed = true;
    await db.end().catch(() => {});
    await srv.close();
    if (database) await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  t?.teardown(close);
  return { srv, url: srv.url, db, request, admin, merchant, key, close };
}
