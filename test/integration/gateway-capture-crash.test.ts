// Capture and cancel of an authorization under faults, with real server processes on one database:
// a process killed (SIGKILL) between the bank's capture and the outcome write leaves an attempt that
// recovery settles by asking the bank (one capture, of the requested amount), and so does a worker
// thread that dies there (the client gets 503 OUTCOME_UNKNOWN); a process killed
// after recording the attempt, before the call, is released (nothing captured, the bank closes the
// key) and the payment can be captured again; the same for a void.
import t from 'tap';
import { until } from '../helpers/wait.js';
import { callChild, type Child, sendUntilDead } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const call = callChild;

const cluster = await startCluster(t, 'cap', { ATTEMPT_RECOVERY_AFTER_MS: '3000', ATTEMPT_RECOVERY_POLL_MS: '100' });
/** A recovery claim is leased for 30 s: a claim taken by the dying process (or one whose shard was restarting) is retried after it. */
const RECOVERY_WAIT_MS = 120_000; // four 30 s recovery leases: a loaded CI machine has needed more than two (attempts-crash)
const { db } = cluster;
const a = await cluster.start();
const b = await cluster.start();
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'capture', rate_limit_per_minute: 1000000, currencies: ['RUB'], default_currency: 'RUB' });
await call(a, 'PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;

async function authorized(amount: number): Promise<string> {
  const r = await call(a, 'POST', '/v2/payments', key, { amount, currency: 'RUB', card: card(CARDS.success), capture_method: 'manual' });
  if (r.body?.status !== 'authorized') throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

/** What the sandbox bank did for a payment, by operation: [amount, moved] per ledger row. */
async function bank(id: string, operation: string) {
  const { rows } = await db.query(
    `SELECT l.amount::int AS amount, l.moved FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
     WHERE a.aggregate_id = $1 AND l.operation = $2 ORDER BY l.created_at`, [id, operation]);
  return rows.map((r) => [r.amount, r.moved]);
}
const view = async (id: string) => (await call(b, 'GET', `/v2/payments/${id}`, key)).body;
const openAttempts = async (id: string) => (await db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1 AND status = 'started'", [id])).rows[0].n as number;

t.test('killed between the bank\'s capture and the outcome write: recovery records the one capture', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-connector-call:kill' });
  const id = await authorized(5000);
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', `/v2/payments/${id}/capture`, key, { amount: 3000 }), 'the connection dies with the process');
  t.same(await bank(id, 'capture'), [[3000, true]], 'the bank captured before the death');
  await until('recovered', async () => (await view(id)).status === 'succeeded', RECOVERY_WAIT_MS);
  t.match(await view(id), { status: 'succeeded', amount: 3000 }, 'the partial amount the attempt recorded');
  t.equal(await openAttempts(id), 0);
  const again = await call(a, 'POST', `/v2/payments/${id}/capture`, key, {});
  t.same([again.status, again.body.error.code], [409, 'PAYMENT_NOT_CAPTURABLE']);
  t.same(await bank(id, 'capture'), [[3000, true]], 'exactly one capture at the bank');
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.succeeded'", [id]);
  t.equal(ev.rows[0].n, 1, 'one payment.succeeded');
});

t.test('a worker thread dies between the bank\'s capture and the outcome write: 503, then recovery records the one capture', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-connector-call:exit-thread' });
  const id = await authorized(6000);
  const r = await call(doomed, 'POST', `/v2/payments/${id}/capture`, key, { amount: 5000 });
  t.equal(r.status, 503, 'the outcome is unknown to the process whose worker died');
  t.equal(r.body.error.code, 'OUTCOME_UNKNOWN');
  await until('recovered', async () => (await view(id)).status === 'succeeded', RECOVERY_WAIT_MS);
  t.match(await view(id), { status: 'succeeded', amount: 5000 });
  t.same(await bank(id, 'capture'), [[5000, true]], 'exactly one capture at the bank');
  t.equal(await openAttempts(id), 0);
});

t.test('killed after recording the capture, before the call: released, nothing captured, capturable again', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-attempt-recorded:kill' });
  const id = await authorized(4000);
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', `/v2/payments/${id}/capture`, key, {}));
  await until('released', async () => (await openAttempts(id)) === 0, RECOVERY_WAIT_MS);
  t.equal((await view(id)).status, 'authorized', 'still authorized');
  t.same(await bank(id, 'capture'), [], 'nothing was captured');
  const { rows } = await db.query("SELECT status FROM connector_attempts WHERE aggregate_id = $1 AND operation = 'capture'", [id]);
  t.same(rows.map((r) => r.status), ['abandoned']);
  const cap = await call(b, 'POST', `/v2/payments/${id}/capture`, key, {});
  t.match(cap.body, { status: 'succeeded', amount: 4000 });
  t.same(await bank(id, 'capture'), [[4000, true]], 'the new attempt captured once');
});

t.test('killed between the bank\'s void and the outcome write: recovery records the one void', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-connector-call:kill' });
  const id = await authorized(2000);
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', `/v2/payments/${id}/cancel`, key, {}));
  await until('recovered', async () => (await view(id)).status === 'cancelled', RECOVERY_WAIT_MS);
  t.same(await bank(id, 'void'), [[2000, true]], 'one void');
  t.same(await bank(id, 'capture'), []);
  t.equal(await openAttempts(id), 0);
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.cancelled'", [id]);
  t.equal(ev.rows[0].n, 1, 'one payment.cancelled');
});
