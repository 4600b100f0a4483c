// Crashes and several processes, with real child processes: a server killed (SIGKILL) after a
// change committed but before its webhook went out delivers it after restart, exactly once; one
// killed mid-delivery delivers again with the same event id; two processes on one database deliver
// each event once.
import t from 'tap';
import { until } from '../helpers/wait.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callChild, startChild, type Child } from '../helpers/child.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix, testPool } from '../helpers/env.js';


const call = callChild;

async function environment(t: { teardown(fn: () => unknown): void }) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-crash-'));
  const db = PG_URL ? await freshDatabase('crash') : null;
  t.teardown(async () => { await db?.drop(); rmSync(dataDir, { recursive: true, force: true }); });
  const env: Record<string, string> = {
    ADMIN_TOKEN: 'adm', DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '2', KV_PREFIX: `cr${suffix()}:`, WEBHOOK_ALLOW_PRIVATE: '1',
    PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100', WEBHOOK_POLL_MS: '100',
    ...(db ? { DATABASE_URL: db.url } : {}), ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  return env;
}

/** The database a child uses: DATABASE_URL, or the embedded Postgres it started (its log names the port). */
function databaseOf(env: Record<string, string>, c: Child): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const port = /"port":(\d+),"databaseDir"/.exec(c.output())?.[1];
  if (!port) throw new Error(`no embedded Postgres port in the output:\n${c.output()}`);
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

/**
 * Instead of sleeping to see whether a repeat comes: waits until `n` deliveries exist and all have
 * succeeded (a succeeded delivery is never leased again), and the receiver holds one request per
 * attempt ever leased (`attempts` counts leases, so a repeat still in flight is waited for too).
 */
async function settled(url: string, rx: Receiver, n: number): Promise<void> {
  const pool = testPool(url, 1);
  try {
    await until(`${n} deliveries settled`, async () => {
      const { rows: [r] } = await pool.query("SELECT count(*)::int AS n, count(*) FILTER (WHERE status <> 'succeeded')::int AS open, COALESCE(sum(attempts), 0)::int AS leased FROM webhook_deliveries");
      return r.n === n && r.open === 0 && r.leased === rx.received.length;
    }, 30_000);
  } finally {
    await pool.end();
  }
}

async function merchantWithHook(c: Child, url: string) {
  const m = await call(c, 'POST', '/internal/merchants', 'adm', { name: 'crash', rate_limit_per_minute: 1000000 });
  const k = await call(c, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' });
  const w = await call(c, 'PUT', `/internal/merchants/${m.body.id}/webhook-settings`, 'adm', { api: 'merchant', url });
  if (w.status !== 201) throw new Error(JSON.stringify(w.body));
  return { id: m.body.id as string, key: k.body.key as string };
}

t.test('killed after commit, before delivery: delivered exactly once after restart', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const env = await environment(t);
  const first = await startChild({ ...env, WEBHOOK_DISPATCH: '0' });
  t.teardown(() => { first.proc.kill('SIGKILL'); });
  const m = await merchantWithHook(first, rx.url);
  const p = await call(first, 'POST', '/api/v2/payments', m.key, { amount: 100 });
  await until('expired', async () => (await call(first, 'GET', `/api/v2/payments/${p.body.id}`, m.key)).body.status === 'expired');
  first.proc.kill('SIGKILL');
  await first.exited;
  t.equal(rx.received.length, 0, 'nothing was delivered before the crash');

  const second = await startChild(env);
  t.teardown(() => { second.proc.kill('SIGKILL'); });
  await settled(databaseOf(env, second), rx, 1);
  t.equal(rx.received.length, 1, 'exactly once');
  const ev = JSON.parse(rx.received[0].body);
  t.equal(ev.type, 'payment.expired');
  t.equal(ev.data.object.id, p.body.id);
  second.proc.kill('SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('killed mid-delivery: delivered again after the lease, with the same event id', async (t) => {
  const rx = await startReceiver((_r, n) => (n === 1 ? { status: 200, delayMs: 3000 } : { status: 200 }));
  t.teardown(() => rx.close());
  const env = { ...(await environment(t)), WEBHOOK_TIMEOUT_MS: '2500', WEBHOOK_LEASE_MS: '3000' };
  const first = await startChild(env);
  t.teardown(() => { first.proc.kill('SIGKILL'); });
  const m = await merchantWithHook(first, rx.url);
  await call(first, 'POST', '/api/v2/payments', m.key, { amount: 100 });
  await rx.waitFor(1);
  first.proc.kill('SIGKILL'); // the receiver is still holding the first attempt open
  await first.exited;

  const second = await startChild(env);
  t.teardown(() => { second.proc.kill('SIGKILL'); });
  await rx.waitFor(2);
  t.equal(rx.received.length, 2);
  t.equal(rx.received[0].headers['x-svc-event-id'], rx.received[1].headers['x-svc-event-id'], 'a repeat carries the same event id');
  t.equal(rx.received[1].headers['x-svc-attempt'], '2');
  second.proc.kill('SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('two processes on one database deliver each event once under load', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const env = await environment(t);
  const a = await startChild(env);
  t.teardown(() => { a.proc.kill('SIGKILL'); });
  // Without DATABASE_URL, the second process uses the first one's embedded Postgres.
  const b = await startChild({ ...env, DATABASE_URL: databaseOf(env, a) });
  t.teardown(() => { b.proc.kill('SIGKILL'); });
  const m = await merchantWithHook(a, rx.url);
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => call((i + j) % 2 ? a : b, 'POST', '/api/v2/payments', m.key, { amount: 100 + j })));
    for (const r of batch) ids.push(r.body.id);
  }
  await settled(databaseOf(env, a), rx, 200);
  const byEvent = new Map<string, number>();
  for (const r of rx.received) byEvent.set(String(r.headers['x-svc-event-id']), (byEvent.get(String(r.headers['x-svc-event-id'])) ?? 0) + 1);
  t.equal(byEvent.size, 200, 'one event per payment');
  t.ok([...byEvent.values()].every((n) => n === 1), 'each delivered once');
  const paid = new Set(rx.received.map((r) => JSON.parse(r.body).data.object.id));
  t.same([...paid].sort(), [...ids].sort());
  b.proc.kill('SIGTERM');
  a.proc.kill('SIGTERM');
  t.equal(await b.exited, 0);
  t.equal(await a.exited, 0);
});
