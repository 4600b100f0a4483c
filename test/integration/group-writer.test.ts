// Group insert: concurrent creates share statements, yet each gets exactly its own outcome, one
// row per idempotency key, and one payment.created event per row.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { GroupWriter } from '../../actors/group-writer.js';
import { rolledBack } from '../../src/store/db.js';
import { findPayment, insertPayments } from '../../src/store/payments-repo.js';
import { createPayment, type Payment } from '../../src/domain/payment.js';
import { paymentId } from '../../src/domain/ids.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const pool = testPool(s.srv.databaseUrl, 8);
t.teardown(() => pool.end());

const make = (i: number, key: string | null, amount = 100 + i) => createPayment(
  { amount, currency: 'AZN', orderId: `b-${i}`, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 60, requestId: `req_${i}`, idempotencyKey: key, requestHash: key ? `h-${key}` : null },
  Date.now());

t.test('300 concurrent inserts, 30 of them sharing 3 keys', async (t) => {
  const b = new GroupWriter((ps: ReturnType<typeof make>[]) => insertPayments(pool, ps), { maxInflight: 2, maxBatch: 64 });
  const ps = Array.from({ length: 300 }, (_, i) => make(i, i < 30 ? `shared-${i % 3}` : `own-${i}`));
  const outcomes = await Promise.all(ps.map((p) => b.submit(p)));
  const created = outcomes.filter((o) => o.kind === 'created');
  t.equal(created.length, 273, '270 own keys and one winner per shared key');
  for (let i = 30; i < 300; i++) t.same(outcomes[i], { kind: 'created', payment: ps[i] }, `own ${i}`);
  for (const k of [0, 1, 2]) {
    const ids = new Set(outcomes.filter((_, i) => i < 30 && i % 3 === k).map((o) => o.payment.id));
    t.equal(ids.size, 1, `shared-${k}: every caller sees the one payment`);
  }
  // This merchant's rows only: the database is shared with other files (auth-isolation's 'b-order').
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1 AND order_id LIKE 'b-%'", [m.id]);
  t.equal(rows[0].n, 273);
  const ev = await pool.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE merchant_id = $1 AND type = 'payment.created' AND data->>'order_id' LIKE 'b-%'", [m.id]);
  t.same(ev.rows[0], { n: 273, d: 273 });
});

t.test('a failing statement fails only its own batch, and the batcher keeps working', async (t) => {
  const b = new GroupWriter((ps: ReturnType<typeof make>[]) => insertPayments(pool, ps), { maxInflight: 1, maxBatch: 10 });
  const bad = make(1000, null);
  (bad as { amount: number }).amount = -1; // violates CHECK (amount > 0)
  const r = await b.submit(bad).then(() => 'ok', () => 'failed');
  t.equal(r, 'failed');
  const good = await b.submit(make(1001, null));
  t.equal(good.kind, 'created');
});

t.test('one bad row in a group fails alone: the 63 others of its statement are created', async (t) => {
  // The writer is held busy by a first write, so the next 64 submissions queue up and go as one group.
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let statements = 0;
  const b = new GroupWriter(async (ps: ReturnType<typeof make>[]) => { statements++; if (statements === 1) await gate; return insertPayments(pool, ps); },
    { maxInflight: 1, maxBatch: 64, ambiguous: (err) => !rolledBack(err) });
  const first = b.submit(make(3000, null));
  const ps = Array.from({ length: 64 }, (_, i) => make(3001 + i, null));
  (ps[40] as { amount: number }).amount = -1; // violates CHECK (amount > 0)
  const all = ps.map((p) => b.submit(p).then((o) => o.kind, (e: Error) => `failed: ${e.message}`));
  release();
  await first;
  const outcomes = await Promise.all(all);
  t.match(outcomes[40], /^failed: .*check constraint/);
  t.same(outcomes.filter((o, i) => i !== 40 && o === 'created').length, 63, 'every other row of the group was created');
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM payments WHERE id = ANY($1)', [ps.map((p) => p.id)]);
  t.equal(rows[0].n, 63);
  t.ok(statements > 2, 'the failed group was split and retried');
});

t.test('grouped updates: each applies on its own version; a stale one alone is refused', async (t) => {
  const { transition } = await import('../../src/domain/payment.js');
  const { updatePayments } = await import('../../src/store/payments-repo.js');
  const ps = Array.from({ length: 60 }, (_, i) => make(2000 + i, null));
  const creates = new GroupWriter((xs: typeof ps) => insertPayments(pool, xs), { maxInflight: 2, maxBatch: 64 });
  await Promise.all(ps.map((p) => creates.submit(p)));
  const updates = new GroupWriter((us: Parameters<typeof updatePayments>[1]) => updatePayments(pool, us), { maxInflight: 2, maxBatch: 16 });
  const results = await Promise.all(ps.map((p, i) => {
    const r = transition(p, { type: 'expire' }, Date.now());
    if (!r.ok) throw new Error(r.code);
    return updates.submit({ next: r.state, prev: i === 7 ? { ...p, version: p.version + 1 } : p, events: r.events });
  }));
  t.equal(results[7], null, 'the stale update is refused');
  t.ok(results.every((r, i) => (i === 7 ? r === null : r === 0)), 'the others applied (no endpoint: 0 deliveries)');
  const { rows } = await pool.query("SELECT count(*) FILTER (WHERE status = 'expired')::int AS expired, count(*)::int AS n FROM payments WHERE id = ANY($1)", [ps.map((p) => p.id)]);
  t.same(rows[0], { expired: 59, n: 60 });
  const ev = await pool.query("SELECT count(*)::int AS n FROM events WHERE type = 'payment.expired' AND aggregate_id = ANY($1)", [ps.map((p) => p.id)]);
  t.equal(ev.rows[0].n, 59, 'one event per applied update, none for the refused one');
});

t.test('the rows travel as JSON: text, numbers, jsonb values and instants come back as they went', async (t) => {
  const base = make(9001, 'json-roundtrip');
  const p: Payment = {
    ...base, description: 'a "quoted"\nline \\ back\u00e9\u4e2d\ud83d\ude00', orderId: null,
    metadata: { note: 'x"y\\z', empty: '', uni: '\u00e9\u4e2d' }, customer: { email: 'a@example.com', name: 'Ann "A" Smith' },
    returnUrl: 'https://shop.example/return?a=1&b=%22', locale: 'ru' as const,
  };
  const [out] = await insertPayments(pool, [p]);
  t.same(out, { kind: 'created', payment: p });
  const back = await findPayment(pool, p.id);
  const pick = (x: Payment | null) => x && ({
    id: x.id, merchantId: x.merchantId, livemode: x.livemode, status: x.status, amount: x.amount, currency: x.currency,
    description: x.description, orderId: x.orderId, metadata: x.metadata, customer: x.customer, returnUrl: x.returnUrl, locale: x.locale,
    createdAt: x.createdAt, expiresAt: x.expiresAt, updatedAt: x.updatedAt, paidAt: x.paidAt, version: x.version,
    requestId: x.requestId, idempotencyKey: x.idempotencyKey, requestHash: x.requestHash, fee: x.fee, net: x.net,
  });
  t.same(pick(back), pick(p));
  const ev = await pool.query("SELECT data->>'description' AS d, data->'metadata' AS m FROM events WHERE aggregate_id = $1 AND type = 'payment.created'", [p.id]);
  t.same(ev.rows, [{ d: p.description, m: p.metadata }], 'the outbox row copies the inserted row');
});
