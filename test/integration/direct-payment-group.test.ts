// The direct card payment's single statement and the grouped attempt begin (issue 25): a payment
// inserted with its first attempt names it and the attempt row exists, both committed by one
// statement; a key found taken writes no attempt; one bad row of a group fails alone (its payment
// and its attempt both absent) while the others of its statement commit. The checkout's grouped
// begin applies each row on its own version and refuses a stale row or one with an attempt in flight.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { GroupWriter } from '../../actors/group-writer.js';
import { rolledBack } from '../../src/store/db.js';
import { findPayment, insertCreates, type PaymentCreate } from '../../src/store/payments-repo.js';
import { beginPaymentAttempts, type AttemptStart, type PaymentAttemptBegin } from '../../src/store/attempts-repo.js';
import { createPayment } from '../../src/domain/payment.js';
import { paymentId, prefixedId } from '../../src/domain/ids.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const pool = testPool(s.srv.databaseUrl, 8);
t.teardown(() => pool.end());

const make = (i: number, key: string | null) => createPayment(
  { amount: 100 + i, currency: 'AZN', orderId: `dp-${i}`, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 60, requestId: `req_${i}`, idempotencyKey: key, requestHash: key ? `h-${key}` : null },
  Date.now());
const attemptOf = (amount: number, id = prefixedId('att', 24)): AttemptStart =>
  ({ id, operation: 'authorize_card', connector: 'sandbox', amount, currency: 'AZN', context: { method: 'card', card: null, callbackRef: null } });
const withAttempt = (i: number, key: string | null): PaymentCreate => {
  const payment = make(i, key);
  const attempt = attemptOf(payment.amount);
  return { payment: { ...payment, pendingAttempt: attempt.id }, attempt };
};
const attemptRows = async (ids: string[]) => (await pool.query(
  'SELECT id, aggregate_id, status, amount::int AS amount FROM connector_attempts WHERE aggregate_id = ANY($1) ORDER BY aggregate_id', [ids])).rows;

/** A writer held busy by its first write, so that the next submissions queue up and go as one group. */
function gatedWriter<I, O>(write: (xs: I[]) => Promise<(O | Error)[]>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const sizes: number[] = [];
  const w = new GroupWriter<I, O>(async (xs) => { sizes.push(xs.length); if (sizes.length === 1) await gate; return write(xs); },
    { maxInflight: 1, maxBatch: 64, ambiguous: (err) => !rolledBack(err) });
  return { w, release, sizes };
}

t.test('payments and their first attempts in one grouped statement; a taken key writes no attempt', async (t) => {
  const first = withAttempt(0, 'dp-shared');
  await insertCreates(pool, [first]);
  const g = gatedWriter((cs: PaymentCreate[]) => insertCreates(pool, cs));
  const opener = g.w.submit(withAttempt(1, null));
  const cs = Array.from({ length: 20 }, (_, i) => withAttempt(10 + i, null));
  const again = withAttempt(99, 'dp-shared'); // the same key as `first`: a replay, its attempt must not be written
  const all = [...cs, again].map((c) => g.w.submit(c));
  g.release();
  await opener;
  const outcomes = await Promise.all(all);
  t.same(g.sizes, [1, 21], 'the 21 queued creates went as one statement');
  t.ok(outcomes.slice(0, 20).every((o, i) => o.kind === 'created' && o.payment.id === cs[i].payment.id), 'each new payment created');
  t.equal(outcomes[20].kind, 'existing');
  t.equal(outcomes[20].payment.id, first.payment.id, 'the key answers with the first payment');
  const rows = await attemptRows(cs.map((c) => c.payment.id));
  t.equal(rows.length, 20, 'one attempt per new payment');
  for (const c of cs) {
    const stored = await findPayment(pool, c.payment.id);
    t.equal(stored?.pendingAttempt, c.attempt!.id, 'the row names its attempt');
    t.match(rows.find((r) => r.aggregate_id === c.payment.id), { id: c.attempt!.id, status: 'started', amount: c.payment.amount });
  }
  t.same(await attemptRows([again.payment.id]), [], 'no payment and no attempt for the replay');
  const firstRows = await attemptRows([first.payment.id]);
  t.same(firstRows.map((r) => r.id), [first.attempt!.id], 'the first payment keeps its one attempt');
});

t.test('one bad row in a group of direct payments fails alone: its payment and its attempt are both absent', async (t) => {
  const taken = withAttempt(200, null);
  await insertCreates(pool, [taken]);
  const g = gatedWriter((cs: PaymentCreate[]) => insertCreates(pool, cs));
  const opener = g.w.submit(withAttempt(201, null));
  const cs = Array.from({ length: 30 }, (_, i) => withAttempt(210 + i, null));
  // Row 17 reuses an attempt id that exists already: its attempt insert violates the primary key,
  // which fails the whole statement; the writer splits the group until that row fails alone.
  const bad = cs[17];
  cs[17] = { payment: { ...bad.payment, pendingAttempt: taken.attempt!.id }, attempt: { ...bad.attempt!, id: taken.attempt!.id } };
  const all = cs.map((c) => g.w.submit(c).then((o) => o.kind, (e: Error) => `failed: ${e.message}`));
  g.release();
  await opener;
  const outcomes = await Promise.all(all);
  t.match(outcomes[17], /^failed: .*duplicate key/);
  t.equal(outcomes.filter((o, i) => i !== 17 && o === 'created').length, 29, 'every other row of the group was created');
  t.ok(g.sizes.length > 2, `the failed group was split and retried: ${JSON.stringify(g.sizes)}`);
  t.equal(await findPayment(pool, cs[17].payment.id), null, 'the bad row\'s payment rolled back with its attempt');
  const ids = cs.map((c) => c.payment.id);
  t.equal((await attemptRows(ids)).length, 29, 'the others\' attempts committed');
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND pending_attempt IS NOT NULL', [ids]);
  t.equal(rows[0].n, 29);
});

t.test('grouped attempt begin: each row on its own version; a stale row and one with an attempt in flight are refused', async (t) => {
  const ps = Array.from({ length: 12 }, (_, i) => make(300 + i, null));
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  const busy = withAttempt(399, null);
  await insertCreates(pool, [busy]);
  const g = gatedWriter((bs: PaymentAttemptBegin[]) => beginPaymentAttempts(pool, bs).then((r) => r as (boolean | Error)[]));
  const opener = g.w.submit({ paymentId: ps[0].id, expectedVersion: ps[0].version, attempt: attemptOf(ps[0].amount) });
  const begins = ps.slice(1).map((p, i) => ({ paymentId: p.id, expectedVersion: i === 4 ? p.version + 7 : p.version, attempt: attemptOf(p.amount) }));
  begins.push({ paymentId: busy.payment.id, expectedVersion: busy.payment.version, attempt: attemptOf(busy.payment.amount) });
  const all = begins.map((b) => g.w.submit(b));
  g.release();
  t.equal(await opener, true);
  const results = await Promise.all(all);
  t.same(g.sizes, [1, 12], 'the queued begins went as one statement');
  t.same(results, begins.map((_, i) => i !== 4 && i !== 11), 'the stale row and the busy payment alone are refused');
  for (const [i, b] of begins.entries()) {
    const p = await findPayment(pool, b.paymentId);
    if (i === 4) t.match(p, { pendingAttempt: null, version: ps[5].version }, 'the stale row wrote nothing');
    else if (i === 11) t.equal(p?.pendingAttempt, busy.attempt!.id, 'the busy payment keeps its attempt');
    else t.match(p, { pendingAttempt: b.attempt.id, version: b.expectedVersion + 1 }, `begin ${i} recorded`);
  }
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM connector_attempts WHERE id = ANY($1)', [begins.map((b) => b.attempt.id)]);
  t.equal(rows[0].n, 10, 'attempt rows only for the rows that applied');
});

t.test('grouped attempt begin: a row that breaks its statement fails alone', async (t) => {
  const ps = Array.from({ length: 10 }, (_, i) => make(400 + i, null));
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  const used = withAttempt(499, null);
  await insertCreates(pool, [used]);
  const g = gatedWriter((bs: PaymentAttemptBegin[]) => beginPaymentAttempts(pool, bs).then((r) => r as (boolean | Error)[]));
  const opener = g.w.submit({ paymentId: ps[0].id, expectedVersion: ps[0].version, attempt: attemptOf(ps[0].amount) });
  const begins = ps.slice(1).map((p, i) => ({ paymentId: p.id, expectedVersion: p.version, attempt: attemptOf(p.amount, i === 3 ? used.attempt!.id : undefined) }));
  const all = begins.map((b) => g.w.submit(b).then(String, (e: Error) => `failed: ${e.message}`));
  g.release();
  await opener;
  const results = await Promise.all(all);
  t.match(results[3], /^failed: .*duplicate key/);
  t.same(results.filter((r, i) => i !== 3), Array(8).fill('true'), 'the others recorded their attempts');
  t.match(await findPayment(pool, begins[3].paymentId), { pendingAttempt: null, version: ps[4].version }, 'the failed row left its payment as it was');
});

t.test('grouped attempt begin with Idempotency-Keys (captures, cancels): keys stored; a key another attempt holds fails its row alone', async (t) => {
  const ps = Array.from({ length: 6 }, (_, i) => make(500 + i, null));
  await insertCreates(pool, ps.map((payment) => ({ payment })));
  const held = make(599, null);
  await insertCreates(pool, [{ payment: held }]);
  const holder = attemptOf(held.amount);
  t.equal((await beginPaymentAttempts(pool, [{ paymentId: held.id, expectedVersion: held.version, attempt: holder, key: { scope: 'cap:taken', hash: 'h0', requestId: 'req_h0' } }]))[0], true);
  const g = gatedWriter((bs: PaymentAttemptBegin[]) => beginPaymentAttempts(pool, bs).then((r) => r as (boolean | Error)[]));
  const opener = g.w.submit({ paymentId: ps[0].id, expectedVersion: ps[0].version, attempt: attemptOf(ps[0].amount) });
  const begins: PaymentAttemptBegin[] = ps.slice(1).map((p, i) => ({
    paymentId: p.id, expectedVersion: p.version, attempt: attemptOf(p.amount),
    key: i === 2 ? { scope: 'cap:taken', hash: 'h2', requestId: 'req_2' } : i === 4 ? null : { scope: `cap:${p.id}`, hash: `h${i}`, requestId: `req_${i}` },
  }));
  const all = begins.map((b) => g.w.submit(b).then(String, (e: { constraint?: string }) => `failed: ${e.constraint}`));
  g.release();
  await opener;
  const results = await Promise.all(all);
  t.same(results, ['true', 'true', 'failed: connector_attempts_idempotency', 'true', 'true'], 'the taken key alone is refused, by its unique index');
  const rows = (await pool.query('SELECT aggregate_id, idempotency_scope, request_hash, request_id FROM connector_attempts WHERE id = ANY($1)', [begins.map((b) => b.attempt.id)])).rows;
  t.equal(rows.length, 4, 'attempt rows for the four that applied');
  for (const [i, b] of begins.entries()) {
    const row = rows.find((r) => r.aggregate_id === b.paymentId);
    if (i === 2) { t.notOk(row, 'nothing written for the taken key'); continue; }
    t.same(row && [row.idempotency_scope, row.request_hash, row.request_id], b.key ? [b.key.scope, b.key.hash, b.key.requestId] : [null, null, null], `begin ${i}: its key stored`);
  }
  t.match(await findPayment(pool, begins[2].paymentId), { pendingAttempt: null, version: ps[3].version }, 'the refused row left its payment as it was');
});
