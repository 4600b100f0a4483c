// `npm start` prints the CLI's settings for the server it started, on whatever port: the printed
// `export PAYMENTS_URL=… ADMIN_TOKEN=…` line is all the CLI needs (no --url, no default port). Its
// script sets the main thread's heap limit, and an operator's NODE_OPTIONS overrides it.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptNodeOptions } from '../../bench/start-options.js';
import { ROOT, spawnMain, startChild } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-banner-'));
const db = PG_URL ? await freshDatabase('banner') : null;
t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });

const cli = (env: Record<string, string>, ...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});

t.test('the banner\'s export line points the CLI at this server and its token', async (t) => {
  const c = await startChild({
    ADMIN_TOKEN: '', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', KV_PREFIX: `bn${suffix()}:`,
    ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }), ...(REDIS_URL ? { REDIS_URL } : {}),
  });
  t.teardown(() => { c.proc.kill('SIGKILL'); });
  await until('the start banner', () => /export PAYMENTS_URL=\S+ ADMIN_TOKEN=\S+/.test(c.output()));
  const line = /export (PAYMENTS_URL=\S+ ADMIN_TOKEN=\S+)/.exec(c.output())![1];
  const env = Object.fromEntries(line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  t.equal(env.PAYMENTS_URL, c.url, 'the URL of this server');
  t.not(new URL(c.url).port, '3000', 'not the default port, so --url would otherwise be needed');
  const made = await cli(env, 'merchants', 'create', '--name', 'banner', '--quiet');
  t.equal(made.code, 0, made.stderr);
  t.match(made.stdout.trim(), /^mer_\w+$/, 'an operator command worked with the printed settings alone');
  c.proc.kill('SIGTERM');
  await c.exited;
});

t.test('with ADMIN_TOKEN set, the line leaves the token to the environment', async (t) => {
  const c = await startChild({
    ADMIN_TOKEN: `adm_banner_${suffix()}`, DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', KV_PREFIX: `bn${suffix()}:`,
    ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }), ...(REDIS_URL ? { REDIS_URL } : {}),
  });
  t.teardown(() => { c.proc.kill('SIGKILL'); });
  await until('the start banner', () => /export PAYMENTS_URL=/.test(c.output()));
  t.match(c.output(), new RegExp(`export PAYMENTS_URL=${c.url.replace(/[.]/g, '\\.')}\\n`), 'the URL only: the token is not printed');
  c.proc.kill('SIGTERM');
  await c.exited;
});

t.test('npm start sets the heap limit it documents, and NODE_OPTIONS overrides it', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  // The script's command after its build (the suite's build is already there).
  const run = pkg.scripts.start.split(' && ').at(-1)!;
  const limit = Number(/--max-old-space-size=(\d+)/.exec(startScriptNodeOptions())?.[1]);
  t.ok(limit > 0, `the start script sets --max-old-space-size (${limit} MB)`);
  const env = {
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', KV_PREFIX: `bn${suffix()}:`,
    ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }), ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  for (const [own, low, high] of [['', limit, limit + 128], ['--max-old-space-size=512', 512, 640]] as const) {
    const c = spawnMain({ ...env, NODE_OPTIONS: own }, undefined, run);
    t.teardown(() => { c.proc.kill('SIGKILL'); });
    await until('the listening line', () => /"msg":"listening"/.test(c.output()) || c.proc.exitCode !== null, 60_000);
    const line = JSON.parse(c.output().split('\n').find((l) => l.includes('"msg":"listening"')) ?? '{}') as { heapLimitMb?: number; pid?: number };
    t.ok(line.heapLimitMb !== undefined && line.heapLimitMb >= low && line.heapLimitMb < high,
      `NODE_OPTIONS="${own}": the heap limit is ${line.heapLimitMb} MB, in [${low}, ${high})`);
    // sh may stay the server's parent: the server's own pid is in its log lines.
    if (line.pid) process.kill(line.pid, 'SIGTERM');
    t.equal(await c.exited, 0, 'stops cleanly');
  }
});
