// On the embedded default (no DATABASE_URL), test-mode webhooks may go to the developer's own
// machine (loopback); live-mode events never do, and with DATABASE_URL loopback is refused at save.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/wait.js';

const ADMIN = 'adm_loopback_test';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-loopback-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const rx = await startReceiver();
t.teardown(() => rx.close());

t.test('embedded default: loopback accepted, test-mode events delivered, live-mode refused', async (t) => {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', WORKERS: '1', ADMIN_TOKEN: ADMIN, DEMO_MERCHANT: '0', DATA_DIR: dataDir,
    PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100', WEBHOOK_POLL_MS: '100' });
  t.equal(config.webhooks.allowLoopbackTest, true);
  t.equal(loadConfig({ DATABASE_URL: 'postgres://x@db/y', CARD_FINGERPRINT_KEY: 'k' }).webhooks.allowLoopbackTest, false, 'never with DATABASE_URL');
  const srv = await startServer(config, createLogger('silent'));
  t.teardown(() => srv.close());
  const call = async (method: string, p: string, key: string, body?: unknown) => {
    const r = await fetch(srv.url + p, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return { status: r.status, body: await r.json() as any };
  };
  const m = await call('POST', '/internal/merchants', ADMIN, { name: 'loopback', rate_limit_per_minute: 1000 });
  const put = await call('PUT', `/internal/merchants/${m.body.id}/webhook-settings`, ADMIN, { api: 'merchant', url: rx.url });
  t.equal(put.status, 201, 'a loopback URL is accepted');
  const priv = await call('PUT', `/internal/merchants/${m.body.id}/webhook-settings`, ADMIN, { api: 'merchant', url: 'http://10.1.2.3/hooks' });
  t.equal(priv.status, 422, 'a private (not loopback) address is still refused');
  t.match(priv.body.error.message, /WEBHOOK_ALLOW_PRIVATE/);

  const test = (await call('POST', `/internal/merchants/${m.body.id}/api-keys`, ADMIN, { kind: 'merchant', mode: 'test' })).body.key;
  const live = (await call('POST', `/internal/merchants/${m.body.id}/api-keys`, ADMIN, { kind: 'merchant', mode: 'live' })).body.key;
  // A 503 is the server's honest answer when a busy machine's embedded Postgres misses the request
  // deadline (seen once in a full local run): retried as a merchant would, with the same key.
  const create = async (key: string, idem: string) => {
    for (let i = 0; ; i++) {
      const r = await fetch(srv.url + '/api/v2/payments', { method: 'POST', body: JSON.stringify({ amount: 100 }),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem } });
      const body = await r.json() as any;
      if (r.status !== 503 || i === 4) return { status: r.status, body };
      t.comment(`create answered 503 (${body.error?.code}); retried`);
    }
  };
  const pt = await create(test, 'loopback-test');
  const pl = await create(live, 'loopback-live');
  t.same([pt.status, pl.status], [201, 201], `both payments created: ${JSON.stringify([pt.body, pl.body])}`);
  // Expiry after 1 s, then the delivery: a busy machine (an embedded Postgres per test file) may take a while.
  await until('the test-mode event delivered', () => rx.received.some((r) => r.body.includes(pt.body.id)), 60_000);
  const pool = (await import('pg')).default;
  const db = new pool.Pool({ connectionString: srv.databaseUrl, max: 1 });
  t.teardown(() => db.end());
  let row: any;
  // The claim counts the attempt (status delivering); its outcome is written after it: wait for that.
  await until('the live-mode delivery attempted and its outcome recorded', async () => {
    row = (await db.query(`SELECT d.attempts, d.last_error FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.aggregate_id = $1`, [pl.body.id])).rows[0];
    return !!row && row.attempts >= 1 && row.last_error !== null;
  });
  t.match(row.last_error, /https_required|not allowed/, 'live mode never reaches loopback');
  t.notOk(rx.received.some((r) => r.body.includes(pl.body.id)), 'nothing live was sent');
});
