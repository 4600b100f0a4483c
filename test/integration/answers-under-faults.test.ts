// What a client is told when the database stalls (issue 22, DESIGN invariant 11): with each worker
// holding one connection and the `events` table locked, refunds and payouts whose attempt (and bank
// call) had committed used to be answered 503 service_unavailable, "nothing committed", because the
// last error was a pool wait. Now no keyed request is told "nothing happened" (docs/retries.md), and
// every key converges on its retry. And every request is answered within REQUEST_DEADLINE_MS,
// whatever it waits on.
import t from 'tap';
import { TEST_IBANS } from '../../src/connectors/sandbox/cards.js';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

t.test('a stalled database: no "nothing committed" answer for a request that committed; every key converges', async (t) => {
  const s = await startTestServer(t, {
    WORKERS: '1', PG_POOL_MAX: '5', PG_CONNECT_TIMEOUT_MS: '300', PG_STATEMENT_TIMEOUT_MS: '1500', PG_QUERY_TIMEOUT_MS: '2000',
    ATTEMPT_RECOVERY_AFTER_MS: '300', ATTEMPT_RECOVERY_POLL_MS: '100',
  });
  t.teardown(() => s.close());
  // The setup is not under test: on a busy machine this server's tight pool bounds may refuse it
  // (503, nothing changed), so the merchant is asked for again, a bounded number of times.
  let m: Awaited<ReturnType<typeof s.merchant>> | null = null;
  for (let i = 0; !m; i++) { try { m = await s.merchant({ currencies: ['AZN'] }); } catch (err) { if (i >= 20) throw err; } }
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  // The setup is not under test: on a busy machine a create or pay may meet this server's tight
  // pool bounds, so each is retried (the create under its key) until the payment is paid.
  const paid = async (i: number) => {
    let id = '';
    await until(`payment ${i} created`, async () => {
      const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 5000 }, headers: { 'idempotency-key': `setup-${i}` } });
      id = p.status === 201 || p.status === 200 ? p.body.id as string : '';
      return id !== '';
    }, 60_000, 200);
    await until(`payment ${i} paid`, async () => {
      const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
      if (pay.body?.status === 'succeeded') return true;
      return (await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body?.status === 'succeeded';
    }, 60_000, 200);
    return id;
  };
  const ids = [];
  for (let i = 0; i < 6; i++) ids.push(await paid(i));
  const refund = (id: string) => s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, body: { amount: 1000 }, headers: { 'idempotency-key': `stall-${id}` } });
  const payout = (i: number) => s.request('POST', '/v2/payouts', {
    key: sk, body: { amount: 500, currency: 'AZN', destination: { type: 'iban', iban: TEST_IBANS.paid } }, headers: { 'idempotency-key': `stall-po-${i}` },
  });

  // Settling writes the outbox (`events`): the lock holds each settle, and with it the worker's one connection.
  const locker = await s.db.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
  const answers = await Promise.all([...ids.map(refund), ...[0, 1, 2, 3].map(payout)]);
  await locker.query('COMMIT');
  locker.release();

  const seen = answers.map((r) => `${r.status}:${r.body?.error?.code ?? 'ok'}`);
  t.comment(`answers under the lock: ${seen.join(' ')}`);
  // A keyed request is never told "nothing happened" (its key may hold what a try made): every 503
  // here is an unknown outcome, to be retried with the same key.
  t.same(answers.filter((r) => r.status === 503 && !/^outcome_unknown$|^deadline_exceeded$/i.test(r.body?.error?.code)).map((r) => r.text), [],
    'no 503 but outcome_unknown or deadline_exceeded');
  t.ok(answers.every((r) => r.status === 503 || r.status === 201 || r.status === 200 || r.status === 409), seen.join(' '));

  // Every key converges on a retry with the same key: one refund per payment, four payouts, nothing open.
  // An attempt left open by the stall is settled by recovery; a recovery try that itself fails (a busy
  // machine, this server's tight pool) gives its claim back after 2 s (RECOVERY_RETRY_SECONDS), so a
  // key may need more than one try to converge: the bound is a deadline for convergence, not a timing claim.
  const settle = async (send: () => Promise<{ status: number; body: any }>) => {
    let r = await send();
    await until('the key answers', async () => {
      if (r.status < 300) return true;
      r = await send();
      return r.status < 300;
    }, 100_000, 200);
    return r;
  };
  const refunds = await Promise.all(ids.map((id) => settle(() => refund(id))));
  t.ok(refunds.every((r) => r.status === 201 && r.body.refund.status === 'succeeded'));
  // A payout's key converges on paid, or on failed when recovery (300 ms here) asked the bank before
  // the call reached it and so closed the attempt (payout_interrupted, nothing paid): either way the
  // answer is the row, and the bank paid exactly the paid ones.
  const payouts = await Promise.all([0, 1, 2, 3].map((i) => settle(() => payout(i))));
  t.ok(payouts.every((r) => r.status === 200 && ['paid', 'failed'].includes(r.body.status)), payouts.map((r) => r.body?.status).join(' '));
  const rows = await s.db.query('SELECT payment_id, count(*)::int AS n, sum(amount)::int AS amount FROM refunds WHERE payment_id = ANY($1) GROUP BY payment_id', [ids]);
  t.same(rows.rows.map((r) => [r.n, r.amount]), ids.map(() => [1, 1000]), 'one refund of 1000 per payment');
  const bank = await s.db.query(`SELECT count(*)::int AS n FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
    WHERE a.aggregate_id = ANY($1) AND l.operation = 'refund' AND l.moved`, [ids]);
  t.equal(bank.rows[0].n, 6, 'one refund at the bank per payment');
  const po = await s.db.query('SELECT id, status FROM payouts WHERE merchant_id = $1', [m.id]);
  t.same(new Map(po.rows.map((r) => [r.id, r.status])), new Map(payouts.map((r) => [r.body.id, r.body.status])), 'four payouts, each as answered');
  const paidAtBank = await s.db.query(`SELECT count(*)::int AS n FROM sandbox_ledger l JOIN payouts p ON p.attempt_id = l.idempotency_key
    WHERE p.merchant_id = $1 AND l.operation = 'payout' AND l.moved`, [m.id]);
  t.equal(paidAtBank.rows[0].n, payouts.filter((r) => r.body.status === 'paid').length, 'the bank paid exactly the paid ones');
  await until('nothing open', async () => (await s.db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE status = 'started'")).rows[0].n === 0);
});

t.test('a request is answered within REQUEST_DEADLINE_MS whatever it waits on: 503 deadline_exceeded, and the server goes on', async (t) => {
  // Without the deadline, the locked reads below would wait for the 60 s statement bounds.
  const s = await startTestServer(t, { REQUEST_DEADLINE_MS: '8000', ACTOR_DEADLINE_MS: '60000', PG_QUERY_TIMEOUT_MS: '60000', PG_STATEMENT_TIMEOUT_MS: '60000' });
  t.teardown(() => s.close());
  const m = await s.merchant();
  // A busy machine may answer even this late: retried with its key (as a client would) until it is made.
  const make = () => s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 700 }, headers: { 'idempotency-key': 'first' } });
  let p = await make();
  await until('the payment is made', async () => p.status === 201 || (p = await make()).status === 201);
  const locker = await s.db.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE payments IN ACCESS EXCLUSIVE MODE');
  const [read, create] = await Promise.all([
    s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key }),
    s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 800 }, headers: { 'idempotency-key': 'late-create' } }),
  ]);
  await locker.query('COMMIT');
  locker.release();
  t.same([read.status, read.body.error.code], [503, 'deadline_exceeded'], 'the read waited on a lock longer than the deadline');
  t.equal(read.headers.get('retry-after'), '1');
  t.same([create.status, create.body.error.code], [503, 'deadline_exceeded'], 'so did the create');
  // The create went on after its answer: the retry with its key finds it (or makes it), once.
  let again = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 800 }, headers: { 'idempotency-key': 'late-create' } });
  await until('the key answers', async () => again.status === 201 || ((again = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 800 }, headers: { 'idempotency-key': 'late-create' } })).status === 201));
  const rows = await s.db.query("SELECT count(*)::int AS n FROM payments WHERE idempotency_key = 'late-create'");
  t.equal(rows.rows[0].n, 1, 'one payment under the key');
  const fine = await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key });
  t.equal(fine.status, 200, 'answers normally once nothing waits');
});
