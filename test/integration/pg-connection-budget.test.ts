// One process never holds more than PG_POOL_MAX Postgres connections, whatever the load: creates,
// reads, expiries and webhook deliveries at once. Counted in pg_stat_activity by the
// application_name every pool of the process sets (pe:<pid>:<role>).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { card, CARDS } from '../helpers/checkout.js';
import { startChild } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix, testPool } from '../helpers/env.js';
import { startReceiver } from '../helpers/receiver.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (connections are counted in the server\'s pg_stat_activity; CI sets it)');
  process.exit(0);
}

const MAX = 8;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-budget-'));
const db = await freshDatabase('budget');
const direct = testPool(db.url, 2);
t.teardown(async () => { await direct.end(); await db.drop(); rmSync(dataDir, { recursive: true, force: true }); });

t.test(`a process under load holds at most PG_POOL_MAX=${MAX} connections`, async (t) => {
  const rx = await startReceiver(() => ({ status: 200 }));
  t.teardown(() => rx.close());
  const child = await startChild({
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `bg${suffix()}:`, DATABASE_URL: db.url,
    ...(REDIS_URL ? { REDIS_URL } : {}), PG_POOL_MAX: String(MAX), PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100',
    WEBHOOK_ALLOW_PRIVATE: '1', AUTH_CACHE_MS: '0',
  });
  t.teardown(() => { child.proc.kill('SIGKILL'); });
  const call = async (method: string, p: string, key: string, body?: unknown) => {
    const r = await fetch(child.url + p, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(20_000) });
    return { status: r.status, body: await r.json() as any };
  };
  const m = await call('POST', '/internal/merchants', 'adm', { name: 'budget', rate_limit_per_minute: 1000000 });
  const key = (await call('POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
  const hook = await call('PUT', `/internal/merchants/${m.body.id}/webhook-settings`, 'adm', { api: 'merchant', url: rx.url });
  t.ok(hook.status < 300, `webhook settings (${hook.status})`);

  const app = `pe:${child.proc.pid}:%`;
  let peak = 0;
  const roles = new Set<string>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = (await direct.query('SELECT application_name FROM pg_stat_activity WHERE application_name LIKE $1', [app])).rows;
      peak = Math.max(peak, rows.length);
      for (const r of rows) roles.add(String(r.application_name).split(':')[2]);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  const ids: string[] = [];
  let stop = false;
  const creates = Array.from({ length: 24 }, async () => {
    while (!stop) { const r = await call('POST', '/api/v2/payments', key, { amount: 100 }); if (r.status === 201) ids.push(r.body.id); }
  });
  const reads = Array.from({ length: 24 }, async () => {
    while (!stop) { if (ids.length) await call('GET', `/api/v2/payments/${ids[Math.floor(Math.random() * ids.length)]}`, key); else await new Promise((r) => setTimeout(r, 10)); }
  });
  // Run until payments have expired and their webhooks were delivered, so every pool was busy (a
  // deadline for a busy machine: in CI with other files running, 30 s saw 40 of the 50).
  const end = Date.now() + 120_000;
  while ((rx.received.length < 50 || ids.length < 300) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  stop = true;
  await Promise.all([...creates, ...reads]);
  sampling = false;
  await sampler;

  t.ok(rx.received.length >= 50, `webhooks were delivered under load (${rx.received.length})`);
  t.ok(peak <= MAX, `peak ${peak} connections <= ${MAX}`);
  t.ok(peak >= 5, `the count sees the process's pools (peak ${peak})`);
  for (const role of ['front', 'w0', 'w1', 'hooks0', 'hooks1', 'listen']) t.ok(roles.has(role), `${role} pool seen`);
  child.proc.kill('SIGTERM');
  t.equal(await child.exited, 0);
});

t.test('the sandbox bank\'s ledger runs on its own connection, not the actors\'', async (t) => {
  const child = await startChild({
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `bk${suffix()}:`, DATABASE_URL: db.url,
    ...(REDIS_URL ? { REDIS_URL } : {}), PG_POOL_MAX: '20', AUTH_CACHE_MS: '0',
  });
  t.teardown(() => { child.proc.kill('SIGKILL'); });
  const call = async (method: string, p: string, key: string, body?: unknown) => {
    const r = await fetch(child.url + p, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(20_000) });
    return { status: r.status, body: await r.json() as any };
  };
  const m = await call('POST', '/internal/merchants', 'adm', { name: 'bank', currencies: ['RUB'], default_currency: 'RUB' });
  await call('PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
  const sk = (await call('POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;
  for (let i = 0; i < 4; i++) {
    const paid = await call('POST', '/v2/payments', sk, { amount: 4900, currency: 'RUB', card: card(CARDS.success) });
    t.same([paid.status, paid.body.status], [200, 'succeeded'], `card payment ${i}`);
  }
  const rows = (await direct.query<{ role: string; query: string }>(
    "SELECT split_part(application_name, ':', 3) AS role, query FROM pg_stat_activity WHERE application_name LIKE $1", [`pe:${child.proc.pid}:%`])).rows;
  const bank = rows.filter((r) => /^bank\d$/.test(r.role));
  t.ok(bank.length >= 1, `a bank connection is open (${rows.map((r) => r.role).join(', ')})`);
  t.ok(bank.every((r) => /sandbox_ledger/.test(r.query)), 'its statements are the ledger\'s');
  t.notOk(rows.some((r) => /^w\d$/.test(r.role) && /sandbox_ledger/.test(r.query)), 'no actor connection ran one');
  child.proc.kill('SIGTERM');
  t.equal(await child.exited, 0);
});
