// Invariant 7: a read never shows a state older than the last acknowledged write, whichever process
// made it. Two real server processes on one database: writes through one, reads through the other
// at once, many in parallel, in both directions; then again after one of them restarted, and
// through a process that was stalled (SIGSTOP) while the other wrote.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callChild, startChild, type Child, type ChildAnswer } from '../helpers/child.js';
import { PG_URL, REDIS_URL, freshDatabase, suffix } from '../helpers/env.js';
import { startTestServer } from '../helpers/server.js';

const ADMIN = 'adm-ryw';

interface Answer { status: number; body: any }

const call = callChild;

async function stop(c: Child): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGCONT');
  c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), 20_000);
  await c.exited;
  clearTimeout(timer);
}

/** Runs `n` jobs, `width` at a time. */
async function parallel(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) await job(next++); }));
}

/**
 * A write retried as a client would while it is refused with `service_unavailable`, which says that
 * nothing changed (a pool wait on a busy machine, a process just restarted): only an acknowledged
 * write is checked against the reads. Any other answer is returned as it is.
 */
async function write(send: () => Promise<ChildAnswer>): Promise<ChildAnswer> {
  let answer = await send();
  for (let i = 0; i < 20 && answer.status === 503 && answer.body?.error?.code === 'service_unavailable'; i++) {
    await new Promise((r) => setTimeout(r, 100 * (i + 1)));
    answer = await send();
  }
  return answer;
}

/**
 * One payment's life, written through `w` and read through `r` right after each acknowledged write:
 * the create, then the completion. Returns the mismatches seen (none expected).
 */
async function lifeAcross(w: Child, r: Child, key: string, tag: string): Promise<string[]> {
  const bad: string[] = [];
  const created = await write(() => call(w, 'POST', '/api/v2/payments', key, { amount: 1000, currency: 'AZN', order_id: tag }));
  if (created.status !== 201) return [`create ${tag}: ${created.status} ${JSON.stringify(created.body)}`];
  const id = created.body.id as string;
  const g1 = await call(r, 'GET', `/api/v2/payments/${id}`, key);
  if (g1.status !== 200 || g1.body.status !== 'pending') bad.push(`${id} after create: ${g1.status} ${g1.body?.status}`);
  const s1 = await call(r, 'GET', `/checkout/${id}/status`, null);
  if (s1.status !== 200 || s1.body.payment_status !== 'pending') bad.push(`${id} checkout after create: ${s1.status} ${s1.body?.payment_status}`);
  const done = await write(() => call(w, 'POST', `/api/v2/test/payments/${id}/complete`, key, { outcome: 'succeeded' }));
  if (done.status !== 200 || done.body.status !== 'succeeded') return [...bad, `complete ${id}: ${done.status} ${JSON.stringify(done.body)}`];
  const [g2, s2] = await Promise.all([call(r, 'GET', `/api/v2/payments/${id}`, key), call(r, 'GET', `/checkout/${id}/status`, null)]);
  if (g2.status !== 200 || g2.body.status !== 'succeeded') bad.push(`${id} after completion: ${g2.status} ${g2.body?.status}`);
  if (s2.status !== 200 || s2.body.payment_status !== 'succeeded') bad.push(`${id} checkout after completion: ${s2.status} ${s2.body?.payment_status}`);
  return bad;
}

/** 60 payments, 20 at a time, alternating which process writes; returns every stale or failed read. */
async function round(a: Child, b: Child, key: string, name: string): Promise<string[]> {
  const bad: string[] = [];
  await parallel(60, 20, async (i) => {
    const [w, r] = i % 2 === 0 ? [a, b] : [b, a];
    bad.push(...(await lifeAcross(w, r, key, `${name}-${i}`)));
  });
  return bad;
}

t.test('two processes on one database: every read shows the last acknowledged write', { skip: PG_URL ? false : 'needs DATABASE_URL' }, async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pe-ryw-'));
  const db = await freshDatabase('ryw');
  const env: Record<string, string> = {
    ADMIN_TOKEN: ADMIN, DATA_DIR: dataDir, DEMO_MERCHANT: '0', WORKERS: '1', DATABASE_URL: db.url,
    KV_PREFIX: `ryw${suffix()}:`, ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  const children: Child[] = [];
  t.teardown(async () => {
    for (const c of children) await stop(c);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async () => { const c = await startChild(env); children.push(c); return c; };
  const a = await start();
  let b = await start();

  const m = await call(a, 'POST', '/internal/merchants', ADMIN, { name: 'ryw', rate_limit_per_minute: 1_000_000 });
  const k = await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, ADMIN, { kind: 'merchant', mode: 'test' });
  const key = k.body.key as string;

  t.same(await round(a, b, key, 'fresh'), [], 'each write read at once through the other process, 60 payments in parallel');

  // A restart in between: the new process reads what the old one and the other wrote, and vice versa.
  await stop(b);
  b = await start();
  t.same(await round(a, b, key, 'restarted'), [], 'the same after B restarted');

  // A process stalled while the other writes: its first answers after the stall show those writes.
  const created = await call(b, 'POST', '/api/v2/payments', key, { amount: 700, currency: 'AZN' });
  const id = created.body.id as string;
  t.equal((await call(a, 'GET', `/api/v2/payments/${id}`, key)).body.status, 'pending', 'A has read the payment once');
  a.proc.kill('SIGSTOP');
  let reads: Promise<Answer>[];
  try {
    const done = await call(b, 'POST', `/api/v2/test/payments/${id}/complete`, key, { outcome: 'failed', failure_code: 'card_declined' });
    t.equal(done.status, 200, 'B completed the payment while A was stopped');
    // Sent while A is stopped: they wait in A's socket backlog until it resumes.
    reads = Array.from({ length: 10 }, () => call(a, 'GET', `/api/v2/payments/${id}`, key));
  } finally {
    a.proc.kill('SIGCONT');
  }
  const after = await Promise.all(reads);
  t.same(after.map((x) => `${x.status} ${x.body?.status}`), Array(10).fill('200 failed'), 'A, resumed, shows the write B made during its stall');
});

t.test('a write made outside this process is visible at the next read (nothing is served from memory)', async (t) => {
  const s = await startTestServer(t);
  const m = await s.merchant();
  const created = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 500 } });
  const id = created.body.id;
  t.equal((await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body.status, 'pending');
  // Another writer (a second process, an operator's SQL) moves the payment under the version check.
  const upd = await s.db.query(
    `UPDATE payments SET status = 'failed', failure = '{"code":"card_declined","message":"declined"}', version = version + 1, updated_at = now()
     WHERE id = $1 AND version = 1`, [id]);
  t.equal(upd.rowCount, 1);
  const g = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(g.body.status, 'failed', 'the merchant API shows it');
  const c = await s.request('GET', `/checkout/${id}/status`);
  t.equal(c.body.payment_status, 'failed', 'the public checkout shows it');
});

t.test('another merchant, the other mode and an order_id', async (t) => {
  const s = await startTestServer(t);
  const m = await s.merchant();
  const other = await s.merchant();
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 5, order_id: 'ord' } });
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: other.key })).status, 404, "another merchant's id is 404");
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.liveKey })).status, 404, 'a test payment is 404 with a live key');
  t.equal((await s.request('GET', '/api/v2/payments/ord', { key: m.key })).body.id, p.body.id, 'by order_id');
  t.equal((await s.request('GET', '/api/v2/payments/ord', { key: other.key })).status, 404, "another merchant's order_id is 404");
  // An order_id that looks like a payment id is still found by order_id.
  const twin = await s.request('POST', '/api/v2/payments', { key: other.key, body: { amount: 6, order_id: p.body.id } });
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: other.key })).body.id, twin.body.id, 'an id-shaped order_id of the caller');
  t.equal((await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key })).body.id, p.body.id, 'the id itself for its owner');
});
