// Refunds of many payments begin, and settle, in one statement each (issue 25): each row on its own version check,
// its attempt and pending refund written only with its payment's move; a stale row is refused alone;
// a refund whose Idempotency-Key another refund holds breaks the statement on the unique index, and
// the group writer splits it until that row fails alone, the others recorded. Their outcomes are
// recorded in one statement too, each on its own version check. The reads before refunds and
// captures (payment, key, charge reference) go in one statement too (store/attempt-reads.ts).
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { GroupWriter } from '../../actors/group-writer.js';
import { rolledBack } from '../../src/store/db.js';
import { findPayment, insertCreates } from '../../src/store/payments-repo.js';
import { beginRefunds, settleRefunds, type RefundBegin } from '../../src/store/refunds-repo.js';
import { AttemptReads } from '../../src/store/attempt-reads.js';
import { stillStarted } from '../../src/store/attempts-repo.js';
import { createPayment, type Payment } from '../../src/domain/payment.js';
import type { Refund } from '../../src/domain/refund.js';
import { paymentId, prefixedId } from '../../src/domain/ids.js';
import { startTestServer } from '../helpers/server.js';
import { analyzedPlan, queryOf, rescannedCtes } from '../helpers/plan.js';

const s = await startTestServer(t);
const m = await s.merchant();
const pool = testPool(s.srv.databaseUrl, 4);
t.teardown(() => pool.end());

const make = (i: number) => createPayment(
  { amount: 1000 + i, currency: 'AZN', orderId: `rb-${i}`, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 60, requestId: `req_${i}`, idempotencyKey: null, requestHash: null },
  Date.now());

function beginOf(p: { id: string; version: number }, key: string | null, versionOffset = 0): RefundBegin {
  const attemptId = prefixedId('att', 24);
  const refund: Refund = {
    id: prefixedId('ref', 24), paymentId: p.id, merchantId: m.id, livemode: false, amount: 100, currency: 'AZN', status: 'pending', reason: null,
    failureCode: null, attemptId, createdAt: Date.now(), requestId: `req_${attemptId}`, idempotencyKey: key, requestHash: key ? `h-${key}` : null,
  };
  return { expectedVersion: p.version + versionOffset, attempt: { id: attemptId, operation: 'refund', connector: 'sandbox', amount: 100, currency: 'AZN', context: { refundId: refund.id } }, refund };
}

/**
 * Payments made, paid (as a refund needs; the statements check versions and attempts only) and each
 * with a pending refund begun: the paid rows and their begins.
 */
async function paidWithPendingRefunds(ps: Payment[]): Promise<{ paid: Payment[]; bs: RefundBegin[] }> {
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  await pool.query("UPDATE payments SET status = 'succeeded', version = version + 1 WHERE id = ANY($1)", [ps.map((p) => p.id)]);
  const paid = await Promise.all(ps.map(async (p) => (await findPayment(pool, p.id))!));
  const bs = paid.map((p) => beginOf(p, null));
  if ((await beginRefunds(pool, bs)).some((ok) => !ok)) throw new Error('a refund did not begin');
  return { paid, bs };
}

/** The outcome of a refund of 100 that the bank made, on the payment as paidWithPendingRefunds left it. */
const refunded = (p: Payment, b: RefundBegin, events: string[], now: number, versionOffset = 0) => ({
  next: { ...p, status: 'partially_refunded' as const, amountRefunded: 100, net: p.net - 100, pendingAttempt: null, updatedAt: now, version: p.version + 2 },
  prev: { ...p, version: p.version + 1 + versionOffset }, events,
  refund: { id: b.refund.id, status: 'succeeded' as const, failureCode: null, connectorRef: `ref-${b.refund.id}` },
  attempt: { id: b.attempt.id, status: 'succeeded' as const, result: { kind: 'succeeded' } },
});

t.test('grouped refund begins: one statement; a stale row and a taken key fail alone, the others recorded with their keys', async (t) => {
  const ps = Array.from({ length: 7 }, (_, i) => make(i));
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  const holder = make(99);
  await insertCreates(pool, [{ payment: holder }]);
  t.same(await beginRefunds(pool, [beginOf(holder, 'rk-taken')]), [true], 'a refund holds the key rk-taken');

  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const sizes: number[] = [];
  const w = new GroupWriter<RefundBegin, boolean>(async (bs) => { sizes.push(bs.length); if (sizes.length === 1) await gate; return beginRefunds(pool, bs); },
    { maxInflight: 1, maxBatch: 64, groupFirst: true, ambiguous: (err) => !rolledBack(err) });
  const opener = w.submit(beginOf(ps[0], null));
  await new Promise((r) => setImmediate(r));
  const begins = ps.slice(1).map((p, i) => beginOf(p, i === 1 ? 'rk-taken' : `rk-${i}`, i === 3 ? 5 : 0));
  const all = begins.map((b) => w.submit(b).then(String, (e: { constraint?: string }) => `failed: ${e.constraint}`));
  release();
  t.equal(await opener, true);
  const results = await Promise.all(all);
  t.same(results, ['true', 'failed: refunds_idempotency', 'true', 'false', 'true', 'true'], 'the taken key and the stale row alone are refused');
  t.equal(sizes[1], 6, 'the queued begins went as one statement first');
  const refunds = (await pool.query('SELECT payment_id, attempt_id, idempotency_key, status FROM refunds WHERE payment_id = ANY($1)', [begins.map((b) => b.refund.paymentId)])).rows;
  t.equal(refunds.length, 4, 'pending refunds for the four that applied');
  for (const [i, b] of begins.entries()) {
    const p = await findPayment(pool, b.refund.paymentId);
    const row = refunds.find((r) => r.payment_id === b.refund.paymentId);
    if (i === 1 || i === 3) {
      t.notOk(row, `begin ${i}: no refund written`);
      t.match(p, { pendingAttempt: null, version: ps[i + 1].version }, `begin ${i}: its payment as it was`);
    } else {
      t.match(row, { attempt_id: b.attempt.id, idempotency_key: b.refund.idempotencyKey, status: 'pending' }, `begin ${i}: its refund, with its key`);
      t.match(p, { pendingAttempt: b.attempt.id, version: b.expectedVersion + 1 }, `begin ${i}: its payment names the attempt`);
    }
  }
  const attempts = (await pool.query('SELECT count(*)::int AS n FROM connector_attempts WHERE id = ANY($1)', [begins.map((b) => b.attempt.id)])).rows[0].n;
  t.equal(attempts, 4, 'attempt rows only for the rows that applied');
});

t.test('grouped refund outcomes: each on its own version; a succeeded, a failed and a stale one in one statement', async (t) => {
  const ps = Array.from({ length: 3 }, (_, i) => make(200 + i));
  const { paid, bs } = await paidWithPendingRefunds(ps);
  const now = Date.now();
  const settlement = (i: number, ok: boolean, versionOffset = 0) => (ok ? refunded(paid[i], bs[i], ['refund.succeeded'], now, versionOffset) : {
    next: { ...paid[i], pendingAttempt: null, updatedAt: now, version: paid[i].version + 2 },
    prev: { ...paid[i], version: paid[i].version + 1 + versionOffset }, events: [],
    refund: { id: bs[i].refund.id, status: 'failed' as const, failureCode: 'refund_declined', connectorRef: null },
    attempt: { id: bs[i].attempt.id, status: 'failed' as const, result: { kind: 'failed' } },
  });
  const out = await settleRefunds(pool, [settlement(0, true), settlement(1, false), settlement(2, true, 3)]);
  t.same(out, [0, 0, null], 'two recorded (no webhook endpoint: no deliveries), the stale one refused');
  const refunds = (await pool.query('SELECT id, status, failure_code, connector_ref FROM refunds WHERE id = ANY($1) ORDER BY id', [bs.map((b) => b.refund.id)])).rows;
  const of = (i: number) => refunds.find((r) => r.id === bs[i].refund.id);
  t.match(of(0), { status: 'succeeded', connector_ref: `ref-${bs[0].refund.id}` });
  t.match(of(1), { status: 'failed', failure_code: 'refund_declined' });
  t.match(of(2), { status: 'pending' }, 'the stale one is still pending, for recovery or its actor to settle');
  t.match(await findPayment(pool, ps[0].id), { status: 'partially_refunded', amountRefunded: 100, pendingAttempt: null });
  t.match(await findPayment(pool, ps[1].id), { status: 'succeeded', amountRefunded: 0, pendingAttempt: null });
  t.match(await findPayment(pool, ps[2].id), { pendingAttempt: bs[2].attempt.id }, 'the stale one still names its attempt');
  const events = (await pool.query("SELECT aggregate_id, data->'refund'->>'id' AS refund FROM events WHERE type = 'refund.succeeded' AND aggregate_id = ANY($1)", [ps.map((p) => p.id)])).rows;
  t.same(events, [{ aggregate_id: ps[0].id, refund: bs[0].refund.id }], 'one refund.succeeded, for the one that succeeded, carrying its refund');
});

t.test('the reads before refunds and captures: one statement for all that arrive together, each with its payment, key and charge', async (t) => {
  const ps = Array.from({ length: 4 }, (_, i) => make(300 + i));
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  // p0: a charge's succeeded attempt (its reference) and a refund holding key rk-read.
  await pool.query(`INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context, result)
    VALUES ($1, $2, 'pay', 'sandbox', 1300, 'AZN', 'succeeded', '{}', '{"kind":"succeeded","ref":"bank-ref-0"}')`, [prefixedId('att', 24), ps[0].id]);
  const keyed = beginOf(ps[0], 'rk-read');
  t.same(await beginRefunds(pool, [keyed]), [true]);
  // p1: a capture attempt holding an Idempotency-Key scope.
  const scope = `test-scope-${ps[1].id}`;
  const capId = prefixedId('att', 24);
  await pool.query(`INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context, idempotency_scope, request_hash)
    VALUES ($1, $2, 'capture', 'sandbox', 1301, 'AZN', 'started', '{"amount":1301}', $3, 'h-cap')`, [capId, ps[1].id, scope]);
  const statements: string[] = [];
  const counting = { query: (q: { name?: string }) => { statements.push(q.name ?? '?'); return pool.query(q as never); } } as unknown as typeof pool;
  const reads = new AttemptReads(counting, { onError: (err) => t.fail(String(err)) });
  const [r0, r1, r2, missing] = await Promise.all([
    reads.read({ paymentId: ps[0].id, chargeRef: true, refundTermsOf: 'sandbox', refundKey: { merchantId: m.id, livemode: false, key: 'rk-read' } }),
    reads.read({ paymentId: ps[1].id, chargeRef: true, attemptScope: scope }),
    reads.read({ paymentId: ps[2].id, chargeRef: true, attemptScope: 'nobody-holds-this', refundKey: { merchantId: m.id, livemode: false, key: 'rk-free' } }),
    reads.read({ paymentId: paymentId(Date.now()), chargeRef: true }),
  ]);
  t.same(statements, ['before_attempts'], 'four reads, one statement');
  t.match(r0, { payment: { id: ps[0].id, pendingAttempt: keyed.attempt.id, version: ps[0].version + 1 }, chargeRef: 'bank-ref-0', refundSupported: true,
    priorRefund: { id: keyed.refund.id, attemptId: keyed.attempt.id, status: 'pending', amount: 100, idempotencyKey: 'rk-read' }, priorAttempt: null });
  t.match(r1, { payment: { id: ps[1].id }, chargeRef: null, priorRefund: null, priorAttempt: { id: capId, status: 'started', requestHash: 'h-cap', aggregateId: ps[1].id } });
  t.match(r2, { payment: { id: ps[2].id }, chargeRef: null, priorRefund: null, priorAttempt: null });
  t.equal(missing, null, 'a payment that does not exist is null');
  t.equal(await reads.read({ paymentId: "pay_'\u0000", chargeRef: true }), null, 'a malformed id is null, without a statement');
  t.same(statements, ['before_attempts'], 'still one statement');
  const again = await reads.read({ paymentId: ps[0].id, chargeRef: false });
  t.match(again, { payment: { id: ps[0].id }, chargeRef: null, priorRefund: null }, 'only what is asked is read');
});

t.test("grouped refund outcomes of gateway sessions: each session's payment.refunded is queued only when it has a webhook target", async (t) => {
  const session = (webhookUrl: string | null) => ({ webhookUrl, successUrl: null, cancelUrl: null, paymentMethods: null, buttonText: null, autoReturn: null, initialMethod: null });
  const urls = ['https://shop.example/hooks/a', null, 'https://shop.example/hooks/c', null];
  const ps = urls.map((u, i) => ({ ...make(400 + i), session: session(u) }));
  const { paid, bs } = await paidWithPendingRefunds(ps);
  const now = Date.now();
  const out = await settleRefunds(pool, paid.map((p, i) => refunded(p, bs[i], ['payment.refunded'], now)));
  t.same(out, [1, 0, 1, 0], 'one delivery for each session with a webhook URL, none for the others');
  const queued = (await pool.query(`SELECT e.aggregate_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE e.aggregate_id = ANY($1) AND d.api = 'gateway' ORDER BY e.aggregate_id`, [ps.map((p) => p.id)])).rows.map((r) => r.aggregate_id);
  t.same(queued, [ps[0].id, ps[2].id].sort(), 'the deliveries are those of the sessions with a target');
});

t.test('a grouped settlement records the outcome only on an attempt still started (found by its id, not by a scan of the started ones)', async (t) => {
  const ps = Array.from({ length: 2 }, (_, i) => make(500 + i));
  const { paid, bs } = await paidWithPendingRefunds(ps);
  // Something closed the second attempt behind the payment's back (a bug elsewhere): its row keeps what it says.
  await pool.query("UPDATE connector_attempts SET status = 'abandoned', result = '{\"reason\":\"test\"}' WHERE id = $1", [bs[1].attempt.id]);
  const now = Date.now();
  await settleRefunds(pool, paid.map((p, i) => refunded(p, bs[i], [], now)));
  const rows = (await pool.query('SELECT id, status FROM connector_attempts WHERE id = ANY($1)', [bs.map((b) => b.attempt.id)])).rows;
  t.same(rows.find((r) => r.id === bs[0].attempt.id)?.status, 'succeeded', 'the started attempt records its outcome');
  t.same(rows.find((r) => r.id === bs[1].attempt.id)?.status, 'abandoned', 'the closed one is left as it was');
  const plan = (await pool.query(`EXPLAIN UPDATE connector_attempts a SET updated_at = now() FROM unnest($1::text[]) AS v(att_id)
    WHERE a.id = v.att_id AND ${stillStarted('a')}`, [bs.map((b) => b.attempt.id)])).rows.map((r) => r['QUERY PLAN']).join('\n');
  t.notMatch(plan, /connector_attempts_started/, 'the started-attempts index is never the way to an attempt by its id');
});

t.test('grouped refund outcomes answer each payment alone: its merchant deliveries, and an Error for a refund no longer pending', async (t) => {
  // A second merchant with a merchant API endpoint: its refund.succeeded events are queued for it.
  const m2 = await s.merchant();
  await s.admin('PUT', `/internal/merchants/${m2.id}/webhook-settings`, { api: 'merchant', url: 'https://shop.example/hooks/m2' });
  const of2 = (p: Payment): Payment => ({ ...p, merchantId: m2.id });
  const ps = [of2(make(500)), of2(make(501)), make(502), make(503)];
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  await pool.query("UPDATE payments SET status = 'succeeded', version = version + 1 WHERE id = ANY($1)", [ps.map((p) => p.id)]);
  const paid = await Promise.all(ps.map(async (p) => (await findPayment(pool, p.id))!));
  const bs = paid.map((p) => { const b = beginOf(p, null); return { ...b, refund: { ...b.refund, merchantId: p.merchantId } }; });
  t.same(await beginRefunds(pool, bs), bs.map(() => true), 'four refunds begun');
  // The last one's refund is finished behind the statement's back (the "bug" its Error reports).
  await pool.query("UPDATE refunds SET status = 'succeeded' WHERE id = $1", [bs[3].refund.id]);
  const now = Date.now();
  const out = await settleRefunds(pool, paid.map((p, i) => refunded(p, bs[i], ['refund.succeeded', 'payment.refunded'], now)));
  t.same(out.slice(0, 3), [1, 1, 0], 'one delivery for each payment of the merchant with an endpoint, none for the other');
  t.ok(out[3] instanceof Error && /was not pending/.test(out[3].message), 'the refund that was not pending is an Error of its own');
  const queued = (await pool.query(`SELECT e.aggregate_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE e.aggregate_id = ANY($1) ORDER BY e.aggregate_id`, [ps.map((p) => p.id)])).rows.map((r) => r.aggregate_id);
  t.same(queued, [ps[0].id, ps[1].id].sort(), 'the deliveries in the table are those counted');
});

t.test('a grouped refund settlement with webhook targets reads each of its CTEs once (no step costs the square of the group)', async (t) => {
  const m3 = await s.merchant();
  await s.admin('PUT', `/internal/merchants/${m3.id}/webhook-settings`, { api: 'merchant', url: 'https://shop.example/hooks/m3' });
  const session = { webhookUrl: 'https://shop.example/hooks/s', successUrl: null, cancelUrl: null, paymentMethods: null, buttonText: null, autoReturn: null, initialMethod: null };
  // Ten payments of a merchant with an endpoint (refund.succeeded, payment.refunded) and ten gateway sessions with a webhook URL.
  const ps = [...Array.from({ length: 10 }, (_, i) => ({ ...make(600 + i), merchantId: m3.id })), ...Array.from({ length: 10 }, (_, i) => ({ ...make(700 + i), session }))];
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  await pool.query("UPDATE payments SET status = 'succeeded', version = version + 1 WHERE id = ANY($1)", [ps.map((p) => p.id)]);
  const paid = await Promise.all(ps.map(async (p) => (await findPayment(pool, p.id))!));
  const bs = paid.map((p) => { const b = beginOf(p, null); return { ...b, refund: { ...b.refund, merchantId: p.merchantId } }; });
  t.same(await beginRefunds(pool, bs), bs.map(() => true));
  const now = Date.now();
  const ss = paid.map((p, i) => refunded(p, bs[i], p.session ? ['payment.refunded'] : ['refund.succeeded', 'payment.refunded'], now));
  const plan = await analyzedPlan(pool, await queryOf((db) => settleRefunds(db, ss)));
  t.same(rescannedCtes(plan), [], 'no CTE is scanned once per row of another');
  // The same group, executed: a delivery for each merchant refund.succeeded and each session's payment.refunded.
  t.same(await settleRefunds(pool, ss), ps.map(() => 1));
});
