// The simulated world, all real parts on loopback: a fresh database on the machine's Postgres, our
// own redis-server on a free port, a TCP proxy of ours in front of Postgres, and two server
// processes (dist/src/main.js) whose DATABASE_URL points at the proxy. Faults act on these parts;
// `close()` stops and drops everything, also after a failure.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTcpProxy, type TcpProxy } from '../test/helpers/tcp-proxy.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
export const ADMIN_TOKEN = 'sim-admin-token';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `ok` until it holds or `ms` pass; false on the deadline. */
export async function until(ok: () => Promise<boolean> | boolean, ms: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    try { if (await ok()) return true; } catch { /* not yet */ }
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const connects = (port: number) => new Promise<boolean>((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

interface Server { slot: number; port: number; url: string; proc: ChildProcess | null; exited: Promise<void>; tail: string[]; failpoints: string }

export class World {
  /** Worlds not yet closed, so that an interrupted run (SIGINT, SIGTERM) still tears them down. */
  static readonly open = new Set<World>();
  servers: Server[] = [];
  db!: pg.Pool;
  proxy!: TcpProxy;
  private redis: ChildProcess | null = null;
  private redisPort = 0;
  private dbName = '';
  private dataDir = '';
  private closed = false;

  constructor(private readonly pgUrl: string, private readonly env: Record<string, string>) {}

  get redisUrl(): string { return `redis://127.0.0.1:${this.redisPort}`; }
  get databaseName(): string { return this.dbName; }

  async start(dbName: string): Promise<void> {
    World.open.add(this);
    this.dbName = dbName;
    const admin = new pg.Client({ connectionString: this.pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(this.pgUrl);
    u.pathname = `/${dbName}`;
    const direct = u.toString();
    this.db = new pg.Pool({ connectionString: direct, max: 4 });
    this.db.on('error', () => {});
    this.proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    this.redisPort = await freePort();
    await this.startRedis();
    this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-sim-'));
    const proxied = this.proxy.url(direct);
    for (const slot of [0, 1]) {
      this.servers.push({ slot, port: await freePort(), url: '', proc: null, exited: Promise.resolve(), tail: [], failpoints: '' });
    }
    // One at a time: the first runs the migrations on the fresh database.
    for (const s of this.servers) await this.startServer(s.slot, '', proxied);
  }

  private proxiedUrl = '';

  /** Starts (or restarts) server `slot` on its port, with FAILPOINTS when given; resolves when it listens. */
  async startServer(slot: number, failpoints = '', databaseUrl = this.proxiedUrl): Promise<void> {
    this.proxiedUrl = databaseUrl;
    const s = this.servers[slot];
    if (s.proc && s.proc.exitCode === null && s.proc.signalCode === null) throw new Error(`server ${slot} is running`);
    const env: NodeJS.ProcessEnv = {
      ...process.env, HOST: '127.0.0.1', PORT: String(s.port), LOG_LEVEL: 'info', ACCESS_LOG: '0', DATABASE_URL: databaseUrl,
      REDIS_URL: this.redisUrl, KV_PREFIX: 'sim:', DATA_DIR: this.dataDir, ADMIN_TOKEN, DEMO_MERCHANT: '0', WORKERS: '2',
      CARD_FINGERPRINT_KEY: 'sim-fingerprint-key-not-secret', WEBHOOK_DISPATCH: '0', ...this.env,
      ...(failpoints ? { FAILPOINTS: failpoints } : {}),
    };
    if (!failpoints) delete env.FAILPOINTS;
    const proc = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    s.proc = proc;
    s.failpoints = failpoints;
    s.exited = new Promise((r) => proc.once('exit', () => r()));
    const keep = (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line) s.tail.push(line.slice(0, 400));
      if (s.tail.length > 200) s.tail.splice(0, s.tail.length - 200);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    const up = await until(async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error('exited');
      const r = await fetch(`http://127.0.0.1:${s.port}/v2/health`, { signal: AbortSignal.timeout(1000) });
      return r.status < 500;
    }, 30_000, 100);
    if (!up || proc.exitCode !== null) throw new Error(`server ${slot} did not start:\n${s.tail.slice(-20).join('\n')}`);
    s.url = `http://127.0.0.1:${s.port}`;
  }

  alive(slot: number): boolean {
    const p = this.servers[slot].proc;
    return !!p && p.exitCode === null && p.signalCode === null;
  }

  async kill(slot: number): Promise<void> {
    const s = this.servers[slot];
    if (s.proc && this.alive(slot)) s.proc.kill('SIGKILL');
    await s.exited;
  }

  async startRedis(): Promise<void> {
    this.redis = spawn('redis-server', ['--port', String(this.redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    if (!(await until(() => connects(this.redisPort), 10_000, 50))) throw new Error('redis-server did not start');
  }

  async stopRedis(): Promise<void> {
    const r = this.redis;
    this.redis = null;
    if (!r || r.exitCode !== null) return;
    const gone = new Promise((res) => r.once('exit', res));
    r.kill('SIGKILL');
    await gone;
  }

  redisRunning(): boolean {
    return this.redis !== null;
  }

  /** FLUSHALL on our redis-server, by hand (RESP), so the simulator needs no client of its own. */
  async flushRedis(): Promise<void> {
    await new Promise<void>((resolve) => {
      const s = net.connect(this.redisPort, '127.0.0.1', () => s.write('*1\r\n$8\r\nFLUSHALL\r\n'));
      s.once('data', () => { s.destroy(); resolve(); });
      s.once('error', () => resolve());
      s.setTimeout(2000, () => { s.destroy(); resolve(); });
    });
  }

  /** Holds `LOCK TABLE name IN ACCESS EXCLUSIVE MODE` for `ms`, directly on Postgres (not through the proxy). */
  async lockTable(name: string, ms: number): Promise<void> {
    const c = await this.db.connect();
    try {
      await c.query('BEGIN');
      await c.query(`LOCK TABLE ${name} IN ACCESS EXCLUSIVE MODE`);
      await new Promise((r) => setTimeout(r, ms));
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    World.open.delete(this);
    for (const s of this.servers) if (s.proc && this.alive(s.slot)) s.proc.kill('SIGKILL');
    await Promise.all(this.servers.map((s) => s.exited));
    await this.stopRedis().catch(() => {});
    await this.proxy?.close().catch(() => {});
    await this.db?.end().catch(() => {});
    if (this.dbName) {
      const c = new pg.Client({ connectionString: this.pgUrl });
      await c.connect().then(() => c.query(`DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`)).catch(() => {});
      await c.end().catch(() => {});
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
