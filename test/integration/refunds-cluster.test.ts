// Refunds under concurrency and faults, with real server processes on one database: 20 parallel
// partial refunds of one payment through two processes never return more than was paid; each 2xx is
// one refund row and one bank operation; a process killed after the bank's answer (or before the
// call) is recovered with exactly one refund (or none), and the client's retry with the same
// Idempotency-Key gets that outcome.
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

const cluster = await startCluster(t, 'rfd', { ATTEMPT_RECOVERY_AFTER_MS: '3000', ATTEMPT_RECOVERY_POLL_MS: '100' });
const { db } = cluster;
const a = await cluster.start();
const b = await cluster.start();
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'refunds', rate_limit_per_minute: 1000000, currencies: ['AZN'] });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;

async function paidPayment(amount: number): Promise<string> {
  const r = await call(a, 'POST', '/api/v2/payments', key, { amount });
  const pay = await call(b, 'POST', `/checkout/${r.body.id}/pay`, null, card(CARDS.success));
  if (pay.body?.status !== 'succeeded') throw new Error(JSON.stringify(pay.body));
  return r.body.id;
}
const payment = async (id: string) => (await call(a, 'GET', `/api/v2/payments/${id}`, key)).body;
const refundRows = async (id: string) => (await db.query('SELECT id, status, amount::int, attempt_id FROM refunds WHERE payment_id = $1 ORDER BY created_at', [id])).rows;
/** The sandbox bank's refund operations for a payment. */
const bankRefunds = async (id: string) => (await db.query(
  `SELECT l.idempotency_key, l.amount::int, l.moved FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
   WHERE a.aggregate_id = $1 AND l.operation = 'refund'`, [id])).rows;
const openAttempts = async (id: string) => (await db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1 AND status = 'started'", [id])).rows[0].n as number;

t.test('20 parallel partial refunds through two processes: never more than was paid, one row and one bank operation per 2xx', async (t) => {
  const id = await paidPayment(10_000);
  // 20 x 700 = 14 000 asked of 10 000 paid: 14 fit. A retryable answer is retried with the same key.
  const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await call(i % 2 ? b : a, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 700 }, { 'idempotency-key': `par-${id}-${i}` });
      const retryable = r.status === 503 || (r.status === 409 && r.body?.error?.code !== 'idempotency_conflict' && r.body?.error?.code !== 'payment_not_payable');
      if (!retryable || Date.now() > end) return r;
      await new Promise((x) => setTimeout(x, 20));
    }
  }));
  const ok = answers.filter((r) => r.status === 201);
  const summary = answers.map((r) => `${r.status}:${r.body?.error?.code ?? r.body?.refund?.status}`);
  t.equal(ok.length, 14, `14 refunds fit: ${summary.join(' ')}`);
  t.ok(answers.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.error.code === 'refund_amount_invalid'), 'the rest are refused as more than is left');
  const p = await payment(id);
  t.same([p.status, p.amount_refunded], ['partially_refunded', 9800]);
  const rows = await refundRows(id);
  t.equal(rows.length, 14, 'one refund row per 2xx, none for the refusals');
  t.same(new Set(rows.map((r) => r.id)), new Set(ok.map((r) => r.body.refund.id)), 'the rows are the answered refunds');
  t.equal(rows.reduce((s, r) => s + r.amount, 0), p.amount_refunded, 'the rows add up to amount_refunded');
  t.ok(rows.every((r) => r.status === 'succeeded'));
  const bank = await bankRefunds(id);
  t.equal(bank.length, 14, 'one bank operation per refund');
  t.ok(bank.every((l) => l.moved && l.amount === 700));
  t.same(new Set(bank.map((l) => l.idempotency_key)), new Set(rows.map((r) => r.attempt_id)), 'each keyed by its refund\'s attempt');
  t.equal(await openAttempts(id), 0);
  const last = await call(b, 'POST', `/api/v2/payments/${id}/refunds`, key, {});
  t.same([last.status, last.body.refund?.amount, last.body.payment?.status], [201, 200, 'refunded'], 'the remainder');
});

t.test('a process killed (SIGKILL) after the bank refunded: recovered with exactly one refund; the retry gets it', async (t) => {
  const c = await cluster.start({ FAILPOINTS: 'after-connector-call:kill' });
  const id = await paidPayment(5000);
  const idem = `kill-${id}`;
  await sendUntilDead(t, c, () => call(c, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 1500 }, { 'idempotency-key': idem }), 'the connection dies with the process');
  await until('recovered', async () => (await payment(id)).amount_refunded === 1500);
  const rows = await refundRows(id);
  t.same(rows.map((r) => [r.status, r.amount]), [['succeeded', 1500]], 'exactly one refund row');
  t.same((await bankRefunds(id)).map((l) => [l.amount, l.moved]), [[1500, true]], 'the bank refunded once');
  t.equal(await openAttempts(id), 0);
  t.equal((await payment(id)).status, 'partially_refunded');
  const retry = await call(a, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 1500 }, { 'idempotency-key': idem });
  t.equal(retry.status, 201);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.body.refund.id, rows[0].id, 'the recovered refund, not a new one');
  t.equal((await refundRows(id)).length, 1);
  t.equal((await bankRefunds(id)).length, 1);
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'refund.succeeded'", [id]);
  t.equal(ev.rows[0].n, 1, 'one refund.succeeded event');
});

t.test('a process killed after recording the refund, before the bank call: dropped, nothing returned, the retry refunds once', async (t) => {
  // The dead process's in-flight idempotency marker holds the key for its life (then Postgres decides).
  const c = await cluster.start({ FAILPOINTS: 'after-attempt-recorded:kill' });
  const id = await paidPayment(5000);
  const idem = `early-${id}`;
  await sendUntilDead(t, c, () => call(c, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 1000 }, { 'idempotency-key': idem }));
  await until('released', async () => (await openAttempts(id)) === 0);
  t.same(await refundRows(id), [], 'the pending refund is gone');
  t.same(await bankRefunds(id), [], 'nothing was refunded');
  t.match(await payment(id), { status: 'succeeded', amount_refunded: 0 });
  let retry = await call(b, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 1000 }, { 'idempotency-key': idem });
  await until('the key is free', async () => {
    if (retry.status !== 409 || retry.body.error.code !== 'idempotency_key_in_use') return true;
    retry = await call(b, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 1000 }, { 'idempotency-key': idem });
    return false;
  });
  t.equal(retry.status, 201);
  t.match(retry.body, { refund: { amount: 1000, status: 'succeeded' }, payment: { amount_refunded: 1000 } });
  t.same((await bankRefunds(id)).map((l) => l.moved), [true]);
});

t.test('one key sent six times at once through two processes: one refund, every other answer a replay or retryable', async (t) => {
  const id = await paidPayment(5000);
  const idem = `same-${id}`;
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) =>
    call(i % 2 ? b : a, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 800 }, { 'idempotency-key': idem })));
  const ok = answers.filter((r) => r.status === 201);
  t.ok(ok.length >= 1, answers.map((r) => `${r.status}:${r.body?.error?.code ?? ''}`).join(' '));
  t.equal(new Set(ok.map((r) => r.body.refund.id)).size, 1, 'every 2xx names the same refund');
  t.ok(answers.every((r) => r.status === 201 || (r.status === 409 && ['idempotency_key_in_use', 'refund_in_progress'].includes(r.body.error.code))));
  t.equal((await refundRows(id)).length, 1);
  t.same((await bankRefunds(id)).map((l) => [l.amount, l.moved]), [[800, true]]);
  t.equal((await payment(id)).amount_refunded, 800);
});

t.test('one key and body at both processes at once, for more than half of what is left: both answers are the key\'s refund, never refund_amount_invalid (issue 22)', async (t) => {
  // The second request of a pair used to read its key before the payment, and then be refused on
  // the first one's committed refund. 30 pairs; an answer that says "in progress" is retried with the key.
  const ids = await Promise.all(Array.from({ length: 30 }, () => paidPayment(1000)));
  const bad: string[] = [];
  await Promise.all(ids.map(async (id) => {
    const send = async (c: Child) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const r = await call(c, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 600 }, { 'idempotency-key': `pair-${id}` });
        const retry = (r.status === 409 && ['idempotency_key_in_use', 'refund_in_progress'].includes(r.body.error.code)) || r.body?.error?.code === 'outcome_unknown';
        if (!retry || Date.now() > end) return r;
        await new Promise((x) => setTimeout(x, 20));
      }
    };
    const [x, y] = await Promise.all([send(a), send(b)]);
    if (x.status !== 201 || y.status !== 201 || x.body.refund.id !== y.body.refund.id) bad.push(`${id}: ${x.status} ${x.text.slice(0, 120)} | ${y.status} ${y.text.slice(0, 120)}`);
  }));
  t.same(bad, [], 'every pair answered with its one refund');
  const rows = await db.query('SELECT payment_id, count(*)::int AS n FROM refunds WHERE payment_id = ANY($1) GROUP BY payment_id', [ids]);
  t.ok(rows.rows.length === ids.length && rows.rows.every((r) => r.n === 1), 'one refund per payment');
});

t.test('the bank answers after the connector deadline: 503 outcome_unknown, recovery records the refund, the retry gets it', async (t) => {
  const slow = await cluster.start({ CONNECTOR_TIMEOUT_MS: '1' });
  const id = await paidPayment(5000);
  const idem = `slow-${id}`;
  const r = await call(slow, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 2000 }, { 'idempotency-key': idem });
  t.same([r.status, r.body.error?.code], [503, 'outcome_unknown']);
  await until('settled', async () => (await openAttempts(id)) === 0);
  const rows = await refundRows(id);
  const bank = await bankRefunds(id);
  // Whichever reached the bank first, the late call or recovery's status query, the record matches it.
  if (bank.some((l) => l.moved)) {
    t.same(rows.map((x) => [x.status, x.amount]), [['succeeded', 2000]]);
    t.equal((await payment(id)).amount_refunded, 2000);
  } else {
    t.same(rows, [], 'the bank never got it: no refund');
    t.equal((await payment(id)).amount_refunded, 0);
  }
  const retry = await call(a, 'POST', `/api/v2/payments/${id}/refunds`, key, { amount: 2000 }, { 'idempotency-key': idem });
  t.equal(retry.status, 201, 'the retry with the same key gets the one refund');
  t.equal((await refundRows(id)).length, 1);
  t.equal((await payment(id)).amount_refunded, 2000);
});
