// Group insert: concurrent creates share statements, yet each gets exactly its own outcome, one
// row per idempotency key, and one payment.created event per row.
import t from 'tap';
import pg from 'pg';
import { CreateBatcher } from '../../actors/create-batcher.js';
import { createPayment } from '../../src/domain/payment.js';
import { paymentId } from '../../src/domain/ids.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const pool = new pg.Pool({ connectionString: s.srv.databaseUrl, max: 8 });
t.teardown(() => pool.end());

const make = (i: number, key: string | null, amount = 100 + i) => createPayment(
  { amount, currency: 'AZN', orderId: `b-${i}`, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 60, requestId: `req_${i}`, idempotencyKey: key, requestHash: key ? `h-${key}` : null },
  Date.now());

t.test('300 concurrent inserts, 30 of them sharing 3 keys', async (t) => {
  const b = new CreateBatcher(pool, 2, 64);
  const ps = Array.from({ length: 300 }, (_, i) => make(i, i < 30 ? `shared-${i % 3}` : `own-${i}`));
  const outcomes = await Promise.all(ps.map((p) => b.insert(p)));
  const created = outcomes.filter((o) => o.kind === 'created');
  t.equal(created.length, 273, '270 own keys and one winner per shared key');
  for (let i = 30; i < 300; i++) t.same(outcomes[i], { kind: 'created', payment: ps[i] }, `own ${i}`);
  for (const k of [0, 1, 2]) {
    const ids = new Set(outcomes.filter((_, i) => i < 30 && i % 3 === k).map((o) => o.payment.id));
    t.equal(ids.size, 1, `shared-${k}: every caller sees the one payment`);
  }
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM payments WHERE order_id LIKE 'b-%'");
  t.equal(rows[0].n, 273);
  const ev = await pool.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE type = 'payment.created' AND data->>'order_id' LIKE 'b-%'");
  t.same(ev.rows[0], { n: 273, d: 273 });
});

t.test('a failing statement fails only its own batch, and the batcher keeps working', async (t) => {
  const b = new CreateBatcher(pool, 1, 10);
  const bad = make(1000, null);
  (bad as { amount: number }).amount = -1; // violates CHECK (amount > 0)
  const r = await b.insert(bad).then(() => 'ok', () => 'failed');
  t.equal(r, 'failed');
  const good = await b.insert(make(1001, null));
  t.equal(good.kind, 'created');
});
