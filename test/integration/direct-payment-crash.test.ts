// A direct card payment (POST /v2/payments) under faults, with real server processes on one
// database. Its row and its first attempt commit in one statement before the bank call (issue 25):
// a process killed right after that commit leaves an attempt that recovery releases (the bank never
// saw it: nothing charged), and a retry with the same Idempotency-Key then pays once; a process killed
// after the bank's answer leaves an attempt that recovery settles by asking the bank, so the card is
// charged exactly once and a retry with the key shows the payment paid without charging again.
import t from 'tap';
import { until } from '../helpers/wait.js';
import { callChild, sendUntilDead } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const call = callChild;
/** A recovery claim is leased for 30 s: a claim taken by a dying process is retried after it. */
const RECOVERY_WAIT_MS = 120_000; // four 30 s recovery leases: a loaded CI machine has needed more than two (attempts-crash)
const cluster = await startCluster(t, 'dpc', { ATTEMPT_RECOVERY_AFTER_MS: '3000', ATTEMPT_RECOVERY_POLL_MS: '100' });
const { db } = cluster;
const a = await cluster.start();
const b = await cluster.start();
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'direct-crash', rate_limit_per_minute: 1000000, currencies: ['RUB'], default_currency: 'RUB' });
await call(a, 'PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;

const body = (order: string) => ({ amount: 4200, currency: 'RUB', order_id: order, card: card(CARDS.success) });
const idOf = async (idemKey: string) => (await db.query('SELECT id FROM payments WHERE idempotency_key = $1', [idemKey])).rows[0]?.id as string | undefined;
const attempts = async (id: string) => (await db.query('SELECT status FROM connector_attempts WHERE aggregate_id = $1 ORDER BY created_at', [id])).rows.map((r) => r.status as string);
/** Money the sandbox bank moved for a payment, by operation. */
async function charges(id: string): Promise<Record<string, number>> {
  const { rows } = await db.query(
    `SELECT l.operation, count(*)::int AS n FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
     WHERE a.aggregate_id = $1 AND l.moved GROUP BY l.operation`, [id]);
  return Object.fromEntries(rows.map((r) => [r.operation, r.n]));
}
const view = async (id: string) => (await call(a, 'GET', `/v2/payments/${id}`, key)).body;

t.test('killed between the combined commit and the bank call: recovery releases the attempt, the key\'s retry pays once', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-attempt-recorded:kill' });
  const idem = 'dpc-before-bank';
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/v2/payments', key, body('dpc-1'), { 'Idempotency-Key': idem }), 'the connection dies with the process');
  const id = await idOf(idem);
  t.ok(id, 'the payment committed');
  const started = await db.query('SELECT p.pending_attempt, a.status FROM payments p JOIN connector_attempts a ON a.id = p.pending_attempt WHERE p.id = $1', [id]);
  t.equal(started.rows.length, 1, 'its row names its attempt, committed with it');
  await until('released', async () => (await attempts(id!)).every((s) => s !== 'started'), RECOVERY_WAIT_MS);
  t.same(await attempts(id!), ['abandoned'], 'the bank never saw the attempt: released');
  t.equal((await view(id!)).status, 'pending', 'the payment is still open');
  t.same(await charges(id!), {}, 'nothing was charged');
  const retry = await call(b, 'POST', '/v2/payments', key, body('dpc-1'), { 'Idempotency-Key': idem });
  t.equal(retry.status, 200);
  t.match(retry.body, { id, status: 'succeeded' }, 'the retry paid the same payment');
  t.same(await charges(id!), { authorize_card: 1 }, 'charged once');
  t.same(await attempts(id!), ['abandoned', 'succeeded']);
});

t.test('killed after the bank\'s answer: recovery records the one charge, the key\'s retry charges nothing', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-connector-call:kill' });
  const idem = 'dpc-after-bank';
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/v2/payments', key, body('dpc-2'), { 'Idempotency-Key': idem }), 'the connection dies with the process');
  const id = (await idOf(idem))!;
  t.same(await charges(id), { authorize_card: 1 }, 'the bank charged before the death');
  await until('recovered', async () => (await view(id)).status === 'succeeded', RECOVERY_WAIT_MS);
  t.same(await attempts(id), ['succeeded'], 'the one attempt settled by recovery');
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.succeeded'", [id]);
  t.equal(ev.rows[0].n, 1, 'one payment.succeeded');
  const retry = await call(b, 'POST', '/v2/payments', key, body('dpc-2'), { 'Idempotency-Key': idem });
  t.equal(retry.status, 200);
  t.match(retry.body, { id, status: 'succeeded' });
  t.same(await charges(id), { authorize_card: 1 }, 'exactly one charge at the bank');
});

t.test('a direct payment with no fault: one statement wrote the payment and its attempt, the outcome one more', async (t) => {
  const r = await call(a, 'POST', '/v2/payments', key, body('dpc-3'));
  t.equal(r.status, 200);
  t.equal(r.body.status, 'succeeded');
  const { rows } = await db.query(
    `SELECT p.version, p.pending_attempt, a.status
     FROM payments p JOIN connector_attempts a ON a.aggregate_id = p.id WHERE p.id = $1`, [r.body.id]);
  t.equal(rows.length, 1, 'one attempt');
  t.match(rows[0], { version: 2, pending_attempt: null, status: 'succeeded' }, 'created at version 1 with its attempt, settled at 2');
  t.same(await charges(r.body.id), { authorize_card: 1 });
});
