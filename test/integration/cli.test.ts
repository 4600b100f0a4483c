// The operator CLI, run as a real child process (the compiled dist/src/cli/main.js) against a real
// server started in this process: merchants, keys, revocation and api_enabled take effect on the
// merchant API at once; usage mistakes exit 2, API errors exit 1 with the code on stderr.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { PG_URL, freshDatabase } from '../helpers/env.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const ADMIN = 'test-admin';

interface Run { code: number; stdout: string; stderr: string }

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000,
    }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-cli-'));
const database = PG_URL ? await freshDatabase('cli') : null;
const srv = await startServer(loadConfig({
  PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', WORKERS: '1', ADMIN_TOKEN: ADMIN, DEMO_MERCHANT: '0',
  DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url, CARD_FINGERPRINT_KEY: 'test-fingerprint-key-not-secret' } : {}),
}));
t.teardown(async () => {
  await srv.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { PAYMENTS_URL: srv.url, ADMIN_TOKEN: ADMIN };

async function ping(key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/api/v2/ping`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

t.test('merchants create, keys create, revoke and api-enabled take effect on the merchant API', async (t) => {
  const created = await cli(['merchants', 'create', '--name', 'CLI Shop', '--currencies', 'azn,usd', '--currency', 'USD',
    '--fee-percent', '2.5', '--fee-fixed', '10', '--rate-limit', '600'], env);
  t.equal(created.code, 0, created.stderr);
  const merchant = JSON.parse(created.stdout);
  t.match(merchant, {
    object: 'merchant', name: 'CLI Shop', default_currency: 'USD', currencies: ['AZN', 'USD'],
    fee_percent: 2.5, fee_fixed: 10, rate_limit_per_minute: 600, api_enabled: true,
  });
  t.match(created.stdout, /^\{\n {2}"/, 'pretty-printed JSON');

  const got = await cli(['merchants', 'get', merchant.id], env);
  t.equal(got.code, 0, got.stderr);
  t.equal(JSON.parse(got.stdout).id, merchant.id);

  // Flags take precedence over the environment.
  const keyRun = await cli(['keys', 'create', merchant.id, '--kind', 'merchant', '--mode', 'test', '--label', 'ci', '--quiet',
    '--url', srv.url, '--token', ADMIN], { PAYMENTS_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: 'wrong' });
  t.equal(keyRun.code, 0, keyRun.stderr);
  const key = keyRun.stdout.trim();
  t.match(key, /^svc_test_\S+$/, '--quiet prints only the key');
  t.equal(keyRun.stdout, `${key}\n`);
  t.equal((await ping(key)).status, 200, 'the new key works');

  const listed = await cli(['keys', 'list', merchant.id], env);
  t.equal(listed.code, 0, listed.stderr);
  const list = JSON.parse(listed.stdout);
  t.equal(list.data.length, 1);
  t.equal(list.data[0].label, 'ci');
  t.notOk(listed.stdout.includes(key), 'the list never shows the secret');

  const revoked = await cli(['keys', 'revoke', merchant.id, list.data[0].id], env);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(JSON.parse(revoked.stdout), { id: list.data[0].id, revoked: true });
  const afterRevoke = await ping(key);
  t.equal(afterRevoke.status, 401, 'a revoked key is refused at once');
  t.equal(afterRevoke.body.error.code, 'api_key_invalid');

  const second = await cli(['keys', 'create', merchant.id, '--kind', 'merchant', '--mode', 'test'], env);
  t.equal(second.code, 0, second.stderr);
  const secondKey = JSON.parse(second.stdout).key as string;
  t.match(secondKey, /^svc_test_/);
  t.equal((await ping(secondKey)).status, 200);

  const disabled = await cli(['merchants', 'update', merchant.id, '--api-enabled', 'false'], env);
  t.equal(disabled.code, 0, disabled.stderr);
  t.equal(JSON.parse(disabled.stdout).api_enabled, false);
  const afterDisable = await ping(secondKey);
  t.equal(afterDisable.status, 403, 'a disabled merchant is refused at once');
  t.equal(afterDisable.body.error.code, 'api_disabled');

  const enabled = await cli(['merchants', 'update', merchant.id, '--api-enabled', 'true'], env);
  t.equal(enabled.code, 0, enabled.stderr);
  t.equal((await ping(secondKey)).status, 200, 'and allowed again');
});

t.test('merchants create --quiet prints the id', async (t) => {
  const r = await cli(['merchants', 'create', '--name', 'Quiet', '--quiet'], env);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout.trim(), /^\S+$/);
  t.equal((await cli(['merchants', 'get', r.stdout.trim()], env)).code, 0);
});

t.test('usage errors exit 2 without calling the server', async (t) => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['missing required option', ['merchants', 'create'], env, /--name is required/],
    ['unknown command', ['merchants', 'delete', 'x'], env, /unknown command/],
    ['unknown option', ['keys', 'list', 'mer_1', '--bogus'], env, /unknown option --bogus/],
    ['option of another command', ['keys', 'list', 'mer_1', '--kind', 'merchant'], env, /does not apply/],
    ['bad choice', ['keys', 'create', 'mer_1', '--kind', 'root', '--mode', 'test'], env, /--kind must be one of/],
    ['missing argument', ['keys', 'revoke', 'mer_1'], env, /missing KEY_ID/],
    ['not a number', ['merchants', 'update', 'mer_1', '--fee-percent', 'lots'], env, /must be a number/],
    ['not a boolean', ['merchants', 'update', 'mer_1', '--api-enabled', 'maybe'], env, /true or false/],
    ['nothing to update', ['merchants', 'update', 'mer_1'], env, /nothing to update/],
    ['no token', ['merchants', 'get', 'mer_1'], { PAYMENTS_URL: srv.url }, /no operator token/],
    ['no command', [], env, /no command given/],
  ];
  for (const [name, args, e, stderr] of cases) {
    const r = await cli(args, e);
    t.equal(r.code, 2, name);
    t.match(r.stderr, stderr, name);
    t.equal(r.stdout, '', `${name}: nothing on stdout`);
  }
  const help = await cli(['help'], {});
  t.equal(help.code, 0);
  t.match(help.stdout, /keys create MERCHANT_ID/);
  const cmdHelp = await cli(['keys', 'create', '--help'], {});
  t.equal(cmdHelp.code, 0);
  t.match(cmdHelp.stdout, /--kind KIND/);
});

t.test('API errors exit 1 with the code and message on stderr', async (t) => {
  const missing = await cli(['merchants', 'get', 'mer_doesnotexist'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /merchant_not_found: No such merchant; check the merchant id\. \(HTTP 404/);
  t.equal(missing.stdout, '');

  const badToken = await cli(['merchants', 'get', 'mer_x'], { ...env, ADMIN_TOKEN: 'wrong' });
  t.equal(badToken.code, 1);
  t.match(badToken.stderr, /admin_unauthorized/);

  const invalid = await cli(['merchants', 'create', '--name', 'X', '--fee-percent', '250'], env);
  t.equal(invalid.code, 1);
  t.match(invalid.stderr, /fee_percent/);

  const revokeUnknown = await cli(['keys', 'revoke', 'mer_x', 'key_x'], env);
  t.equal(revokeUnknown.code, 1);
  t.match(revokeUnknown.stderr, /api_key_not_found/);

  const unreachable = await cli(['health'], { PAYMENTS_URL: 'http://127.0.0.1:9' });
  t.equal(unreachable.code, 1);
  t.match(unreachable.stderr, /connection_failed/);
});

t.test('health needs no token and exits 0 while the database is up', async (t) => {
  const r = await cli(['health'], { PAYMENTS_URL: srv.url });
  t.equal(r.code, 0, r.stderr);
  t.match(JSON.parse(r.stdout), { status: 'ok', database: { status: 'up' } });
  const q = await cli(['health', '--quiet'], { PAYMENTS_URL: srv.url });
  t.equal(q.stdout, 'ok\n');
});
