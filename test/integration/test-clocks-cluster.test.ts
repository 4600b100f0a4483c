// Test clocks (issue 26) across processes: two servers advancing and sweeping one clock at once
// expire each payment and deliver each webhook exactly once; a server killed (SIGKILL) in the middle
// of an advance's sweep leaves the clock advancing, and another process's sweep finishes the work
// (once each) and marks the clock ready.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callChild as call, startChild, type Child } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix, testPool } from '../helpers/env.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const C = '/api/v2/test_helpers/test_clocks';

t.test('two servers advancing and sweeping one clock at once fire each expiry and webhook once', async (t) => {
  const env = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50', EXPIRY_POLL_MS: '50' };
  const a = await startTestServer(t, env);
  const b = await startTestServer(t, env, { databaseUrl: a.srv.databaseUrl });
  const hooks = await startReceiver();
  t.teardown(() => hooks.close());
  const m = await a.merchant();
  await a.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: hooks.url });
  const start = Date.parse('2026-05-01T08:00:00.000Z');
  const clock = (await a.request('POST', C, { key: m.key, body: { frozen_time: iso(start) } })).body.id as string;
  // One at a time, retried under their key on a 503 (this shared machine may be slow): the point is the advance.
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const s = i % 2 ? a : b;
    const headers = { 'idempotency-key': `clock-${i}` };
    let r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 + i, test_clock: clock }, headers });
    for (let k = 0; r.status === 503 && k < 5; k++) r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 + i, test_clock: clock }, headers });
    if (r.status !== 201 && r.status !== 200) throw new Error(r.text);
    ids.push(r.body.id);
  }
  const to = iso(start + 31 * MIN);
  const answers = await Promise.all([a, b, a, b].map((s) => s.request('POST', `${C}/${clock}/advance`, { key: m.key, body: { frozen_time: to } })));
  t.equal(answers.filter((r) => r.status === 200).length, 1, 'one advance moved the clock; the others were refused');
  await until('clock ready', async () => (await b.request('GET', `${C}/${clock}`, { key: m.key })).body.status === 'ready');
  const ev = await a.db.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE type = 'payment.expired' AND aggregate_id = ANY($1)", [ids]);
  t.same(ev.rows[0], { n: 30, d: 30 }, 'every payment expired exactly once');
  const got = hooks.received.map((r) => String(r.headers['x-svc-event-id']));
  t.equal(got.length, 30, 'each event delivered once by the time the clock is ready');
  t.equal(new Set(got).size, 30);
});

t.test('a server killed mid-advance: another process finishes the advance and marks the clock ready', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-clock-'));
  const db = PG_URL ? await freshDatabase('clock') : null;
  t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });
  const hooks = await startReceiver();
  t.teardown(() => hooks.close());
  const env: Record<string, string> = {
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', KV_PREFIX: `ck${suffix()}:`, WEBHOOK_ALLOW_PRIVATE: '1',
    EXPIRY_POLL_MS: '100', WEBHOOK_POLL_MS: '100', ...(db ? { DATABASE_URL: db.url } : {}), ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  const first = await startChild({ ...env, FAILPOINTS: 'after-expiry-claim:kill' }, 90_000);
  let second: Child | null = null;
  t.teardown(() => { first.proc.kill('SIGKILL'); second?.proc.kill('SIGKILL'); });
  const m = await call(first, 'POST', '/internal/merchants', 'adm', { name: 'clock', rate_limit_per_minute: 1000000 });
  const key = (await call(first, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
  await call(first, 'PUT', `/internal/merchants/${m.body.id}/webhook-settings`, 'adm', { api: 'merchant', url: hooks.url });
  const start = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = (await call(first, 'POST', C, key, { frozen_time: iso(start) })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await call(first, 'POST', '/api/v2/payments', key, { amount: 200 + i, test_clock: clock });
    if (r.status !== 201) throw new Error(r.text);
    ids.push(r.body.id);
  }
  // The advance commits, then this process's sweep (every 100 ms) claims the payments it made due
  // and dies there. Which comes first, the answer leaving or the kill, is the machine's timing: a
  // closed connection is the answer lost with the process. What follows shows the advance committed
  // (the kill needs a non-empty claim, and every payment ends expired on the new time).
  const adv = await call(first, 'POST', `${C}/${clock}/advance`, key, { frozen_time: iso(start + 31 * MIN) }).catch((err: Error) => err);
  if (adv instanceof Error) t.match(String((adv as { cause?: unknown }).cause ?? adv), /closed|ECONNRESET|socket/i, 'the process died before its answer left');
  else t.equal(adv.status, 200);
  t.equal(await first.exited, null, 'the server died in its sweep (SIGKILL)');
  // The embedded default: each start names its Postgres port (the same data directory).
  const dbOf = (c: Child) => env.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${/"port":(\d+),"databaseDir"/.exec(c.output())![1]}/postgres`;
  if (env.DATABASE_URL) {
    const pool = testPool(dbOf(first), 1);
    const mid = await pool.query('SELECT status FROM test_clocks WHERE id = $1', [clock]);
    t.equal(mid.rows[0].status, 'advancing', 'the advance was left unfinished');
    await pool.end();
  }
  second = await startChild(env, 90_000);
  // The dead sweep's claims hold their 30 s lease; then this process takes them over.
  await until('clock ready', async () => (await call(second!, 'GET', `${C}/${clock}`, key)).body?.status === 'ready', 90_000, 200);
  const pool = testPool(dbOf(second), 1);
  const rows = (await pool.query("SELECT e.aggregate_id FROM events e WHERE e.type = 'payment.expired' AND e.aggregate_id = ANY($1)", [ids])).rows;
  const statuses = (await pool.query('SELECT status FROM payments WHERE id = ANY($1)', [ids])).rows.map((r) => r.status);
  await pool.end();
  t.same(statuses, ids.map(() => 'expired'));
  t.equal(rows.length, 5, 'each expired once');
  const events = hooks.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'payment.expired');
  t.equal(events.length, 5, 'each payment.expired delivered once');
  t.equal(new Set(events.map((e) => e.id)).size, 5);
});
