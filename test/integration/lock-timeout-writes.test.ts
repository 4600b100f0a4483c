// A grouped write that waits past lock_timeout (PG_LOCK_TIMEOUT_MS) on a row another transaction
// holds answers the other rows of its statement at once, and the held row with a known outcome
// (session 23). Before, the statement waited for the statement timeout, and every row grouped with
// the held one failed with it, its outcome unknown. On a real database: a second connection holds a
// payment's row (FOR UPDATE, as an operator's session would) or a whole table, and the shard's
// writer for payment updates, with its lock probe (heldPayments), sends a group that needs it.
import t from 'tap';
import pg from 'pg';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { until } from '../helpers/wait.js';
import { testPool } from '../helpers/env.js';
import { GroupWriter } from '../../actors/group-writer.js';
import { lockTimedOut, rolledBack } from '../../src/store/db.js';
import { heldPayments, insertPayments, updatePayments, type PaymentUpdate } from '../../src/store/payments-repo.js';
import { createPayment, transition } from '../../src/domain/payment.js';
import { paymentId } from '../../src/domain/ids.js';

// No key cache: each request reads its API key, so that a lock on api_keys reaches the gate.
const s = await startTestServer(t, { WORKERS: '1', PG_LOCK_TIMEOUT_MS: '500', AUTH_CACHE_MS: '0' });
const m = await s.merchant();
// The writer's connections wait at most 300 ms for a lock, as the shard's wait PG_LOCK_TIMEOUT_MS.
const pool = testPool(s.srv.databaseUrl, 4, '-c lock_timeout=300');
t.teardown(() => pool.end());

/** A connection of its own that holds locks until the test lets go. */
async function holder(t: { teardown(f: () => unknown): void }) {
  const c = new pg.Client({ connectionString: s.srv.databaseUrl });
  await c.connect();
  t.teardown(() => c.end());
  await c.query('BEGIN');
  return { c, release: () => c.query('ROLLBACK') };
}

const fresh = (i: number) => createPayment(
  { amount: 100 + i, currency: 'AZN', orderId: null, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
  { id: paymentId(Date.now()), merchantId: m.id, livemode: false, fees: { feeBps: 0, feeFixed: 0 }, windowSeconds: 600, requestId: `req_lt_${i}`, idempotencyKey: null, requestHash: null },
  Date.now());

async function expiries(n: number): Promise<PaymentUpdate[]> {
  const ps = Array.from({ length: n }, (_, i) => fresh(i));
  await insertPayments(pool, ps);
  return ps.map((p) => {
    const r = transition(p, { type: 'expire' }, Date.now());
    if (!r.ok) throw new Error(r.code);
    return { next: r.state, prev: p, events: r.events };
  });
}

const writer = () => new GroupWriter((us: PaymentUpdate[]) => updatePayments(pool, us), {
  groupFirst: true, stalledMs: 0, ambiguous: (err) => !rolledBack(err),
  lockWait: { timedOut: lockTimedOut, held: (us) => heldPayments(pool, us.map((u) => u.next.id)) },
});

t.test('one row held: the other seven of its statement are written while the lock is still held; the held one fails, rolled back', async (t) => {
  const us = await expiries(8);
  const h = await holder(t);
  await h.c.query('SELECT 1 FROM payments WHERE id = $1 FOR UPDATE', [us[5].next.id]);
  const w = writer();
  const settled: (number | string)[] = new Array(us.length).fill('waiting');
  const all = us.map((u, i) => w.submit(u).then((d) => { settled[i] = d ?? 'conflict'; }, (err: { code?: string }) => { settled[i] = `error ${err.code}`; }));
  try {
    await until('every write answered while the row is held', () => settled.every((x) => x !== 'waiting'), 60_000);
  } finally {
    await h.release();
  }
  await Promise.all(all);
  t.same(settled, [0, 0, 0, 0, 0, 'error 55P03', 0, 0], 'seven written (no endpoint: 0 deliveries), the held one refused by the lock timeout');
  t.equal(w.stats.statements, 3, 'the group, its free rows again, the held row alone');
  const rows = await pool.query<{ id: string; status: string }>('SELECT id, status FROM payments WHERE id = ANY($1)', [us.map((u) => u.next.id)]);
  const status = new Map(rows.rows.map((r) => [r.id, r.status]));
  t.same(us.map((u) => status.get(u.next.id)), us.map((_, i) => (i === 5 ? 'pending' : 'expired')), 'nothing of the held row was written');
  t.same(await heldPayments(pool, us.map((u) => u.next.id)), us.map(() => false), 'once let go, no row is held');
});

t.test('a lock on something every row needs (the events table): each write fails at once with the lock timeout, sent once', async (t) => {
  const us = await expiries(4);
  const h = await holder(t);
  await h.c.query('LOCK TABLE events IN EXCLUSIVE MODE');
  const w = writer();
  let out: PromiseSettledResult<number | null>[];
  try {
    out = await Promise.allSettled(us.map((u) => w.submit(u)));
  } finally {
    await h.release();
  }
  t.ok(out.every((o) => o.status === 'rejected' && lockTimedOut(o.reason) && rolledBack(o.reason)), 'every write: 55P03, rolled back');
  t.equal(w.stats.statements, 1, 'not halved, not sent again: the same lock would hold each half');
  const rows = await pool.query("SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND status = 'pending'", [us.map((u) => u.next.id)]);
  t.equal(rows.rows[0].n, us.length, 'nothing written');
});

t.test('over HTTP: a pay whose payment row is held answers 503 SERVICE_UNAVAILABLE (nothing done), and pays once the lock ends', async (t) => {
  const id = await newPayment(s, m.key);
  const h = await holder(t);
  await h.c.query('SELECT 1 FROM payments WHERE id = $1 FOR UPDATE', [id]);
  let r;
  try {
    r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  } finally {
    await h.release();
  }
  t.same([r.status, r.body.error?.code], [503, 'SERVICE_UNAVAILABLE'], 'nothing was recorded or charged: the client may simply try again');
  const attempts = await s.db.query('SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1', [id]);
  t.equal(attempts.rows[0].n, 0, 'no attempt was recorded, so the bank was never asked');
  const again = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.same([again.status, again.body.status], [200, 'succeeded']);
  const metrics = (await s.request('GET', '/metrics', { key: ADMIN })).text;
  const n = [...metrics.matchAll(/^payment_write_lock_timeouts_total\{shard="0",writer="attempt"\} (\d+)$/gm)].map((x) => Number(x[1]));
  t.ok(n.length === 1 && n[0] >= 1, `the lock timeout is counted in /metrics (${n.join(',') || 'none'})`);
});

t.test('a gateway refund whose key is in its body is never told "nothing happened", even when its API key cannot be read', async (t) => {
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  const h = await holder(t);
  await h.c.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
  let keyed, bare;
  try {
    // The gate's read of the API key times out on the lock (55P03) before the body is parsed.
    [keyed, bare] = await Promise.all([
      s.request('POST', '/v2/payments/cs_nobody/refund', { key: sk, body: { amount: 100, idempotency_key: 'body-key-1' } }),
      s.request('POST', '/v2/payments/cs_nobody/refund', { key: sk, body: { amount: 100 } }),
    ]);
  } finally {
    await h.release();
  }
  t.same([keyed.status, keyed.body.error?.code], [503, 'OUTCOME_UNKNOWN'], 'keyed in the body: retry with the same key (an earlier try may have refunded)');
  t.same([bare.status, bare.body.error?.code], [503, 'SERVICE_UNAVAILABLE'], 'without a key, nothing happened is true and said');
});

