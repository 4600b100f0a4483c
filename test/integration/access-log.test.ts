// The access log, read from a real child process's stdout: one line per request with method, route
// pattern, status, duration, request id and merchant id; 401/403/429 with their reason; a card pay's
// line with its payment and last4 (the one line for it); never a key, a token or card data; ACCESS_LOG=0 turns it off; and no warning or error lines at a clean shutdown.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix } from '../helpers/env.js';
import { until } from '../helpers/wait.js';
import { CARDS, card } from '../helpers/checkout.js';

const ADMIN = `adm_access_${suffix()}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-access-'));
const db = PG_URL ? await freshDatabase('access') : null;
t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });
const env: Record<string, string> = {
  ADMIN_TOKEN: ADMIN, DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', KV_PREFIX: `al${suffix()}:`,
  ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }), ...(REDIS_URL ? { REDIS_URL } : {}),
};

const lines = (c: Child) => c.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
const call = async (c: Child, method: string, p: string, key: string | null, body?: unknown) => {
  const r = await fetch(c.url + p, { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json().catch(() => null) as any, id: r.headers.get('x-request-id') };
};

t.test('one line per request, reasons for refusals, no secrets, quiet shutdown', async (t) => {
  const c = await startChild(env);
  t.teardown(() => { c.proc.kill('SIGKILL'); });
  const m = await call(c, 'POST', '/internal/merchants', ADMIN, { name: 'access log', rate_limit_per_minute: 2 });
  const k = await call(c, 'POST', `/internal/merchants/${m.body.id}/api-keys`, ADMIN, { kind: 'merchant', mode: 'test' });
  const key = k.body.key as string;
  const created = await call(c, 'POST', '/api/v2/payments', key, { amount: 100, metadata: { card_number: CARDS.success, cvc: '123' } });
  t.equal(created.status, 201);
  const got = await call(c, 'GET', `/api/v2/payments/${created.body.id}`, key);
  t.equal(got.status, 200);
  const limited = await call(c, 'GET', `/api/v2/payments/${created.body.id}`, key);
  t.equal(limited.status, 429);
  const bad = await call(c, 'GET', '/api/v2/payments', 'svc_test_00000000000000000000000000000000');
  t.equal(bad.status, 401);
  await call(c, 'PATCH', `/internal/merchants/${m.body.id}`, ADMIN, { api_enabled: false });
  const disabled = await call(c, 'GET', '/api/v2/ping', key);
  t.equal(disabled.status, 403);

  // A card payment through the hosted checkout (another merchant: this one's two requests a minute are spent).
  const m2 = await call(c, 'POST', '/internal/merchants', ADMIN, { name: 'access log card' });
  const key2 = (await call(c, 'POST', `/internal/merchants/${m2.body.id}/api-keys`, ADMIN, { kind: 'merchant', mode: 'test' })).body.key as string;
  const toPay = await call(c, 'POST', '/api/v2/payments', key2, { amount: 500 });
  const paid = await call(c, 'POST', `/checkout/${toPay.body.id}/pay`, null, card(CARDS.success));
  t.equal(paid.body?.status, 'succeeded');

  const missing = await call(c, 'GET', `/no-such-file.ico?card=${CARDS.success}`, null);
  t.equal(missing.status, 404);
  const wrongMethod = await call(c, 'DELETE', '/v2/health', null);
  t.equal(wrongMethod.status, 405);

  const byId = (id: string | null) => lines(c).find((l) => l.msg === 'request' && l.requestId === id);
  await until('the access lines', () => [created, got, limited, bad, disabled, paid, missing, wrongMethod].every((r) => byId(r.id)));
  t.match(byId(paid.id), { route: '/checkout/:id/pay', status: 200, paymentId: toPay.body.id, paymentStatus: 'succeeded', paymentMethod: 'card', last4: CARDS.success.slice(-4) },
    'the pay\'s one line names the payment it paid and the card by its last4');
  t.equal(lines(c).filter((l) => l.paymentId === toPay.body.id).length, 1, 'and no second line for that payment');
  t.notOk(byId(created.id)?.paymentId, 'a create that paid nothing names no payment');
  t.match(byId(missing.id), { status: 404, route: 'unmatched', reason: 'route_not_found' }, 'the code alone: no path in the reason');
  t.match(byId(wrongMethod.id), { status: 405, reason: 'method_not_allowed' });
  t.notOk(c.output().includes('no-such-file'), 'the path of an unmatched request is nowhere in the log');
  for (const l of lines(c)) {
    t.match(l.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, `${l.msg}: time is ISO 8601`);
    t.ok(Math.abs(Date.parse(l.time) - Date.now()) < 3_600_000, `${l.msg}: and it reads back as a time of this run`);
  }
  t.match(byId(created.id), { level: 30, method: 'POST', route: '/api/v2/payments', status: 201, ms: Number, merchantId: m.body.id });
  t.match(byId(got.id), { method: 'GET', route: '/api/v2/payments/:id', status: 200 }, 'the route pattern, not the path');
  t.match(byId(limited.id), { status: 429, reason: /^rate_limited/, merchantId: m.body.id });
  t.match(byId(bad.id), { status: 401, reason: 'api_key_invalid' });
  t.match(byId(disabled.id), { status: 403, reason: 'api_disabled' });

  c.proc.kill('SIGTERM');
  t.equal(await c.exited, 0);
  const out = c.output();
  for (const secret of [key, ADMIN, CARDS.success, created.body.id]) t.notOk(out.includes(secret), `the log never holds ${secret.slice(0, 12)}…`);
  const all = lines(c);
  const from = all.findIndex((l) => /shutting down/.test(l.msg));
  t.ok(from >= 0);
  t.same(all.slice(from).filter((l) => l.level >= 40).map((l) => l.msg), [], 'no warning or error while shutting down cleanly');
});

t.test('ACCESS_LOG=0 turns it off', async (t) => {
  const c = await startChild({ ...env, ACCESS_LOG: '0' });
  t.teardown(() => { c.proc.kill('SIGKILL'); });
  t.equal((await fetch(`${c.url}/v2/health`)).status, 200);
  c.proc.kill('SIGTERM');
  await c.exited;
  t.equal(lines(c).filter((l) => l.msg === 'request').length, 0);
});
