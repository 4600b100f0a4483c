// Gateway direct payments with two real server processes on one database: a capture racing a cancel
// of one authorized payment has exactly one winner, and 20 parallel refunds through
// POST /v2/payments/{id}/refund never return more than was captured.
import t from 'tap';
import { callChild, type Child, sendUntilDead } from '../helpers/child.js';
import { startCluster } from '../helpers/cluster.js';
import { until } from '../helpers/wait.js';
import { PG_URL } from '../helpers/env.js';
import { CARDS, card } from '../helpers/checkout.js';

if (!PG_URL) {
  t.plan(0, 'skipped: needs DATABASE_URL (several server processes share one Postgres; CI sets it)');
  process.exit(0);
}

const call = callChild;

const cluster = await startCluster(t, 'gwd');
const { db } = cluster;
// Recovery asks the bank about an attempt 3 s old (the crash test below waits for it).
const fastRecovery = { ATTEMPT_RECOVERY_AFTER_MS: '3000', ATTEMPT_RECOVERY_POLL_MS: '100' };
const a = await cluster.start(fastRecovery);
const b = await cluster.start(fastRecovery);
const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'direct', rate_limit_per_minute: 1000000, currencies: ['RUB'], default_currency: 'RUB' });
await call(a, 'PATCH', `/internal/merchants/${m.body.id}`, 'adm', { card_data_allowed: true });
const key = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;

async function direct(amount: number, capture: 'automatic' | 'manual'): Promise<string> {
  const r = await call(a, 'POST', '/v2/payments', key, { amount, currency: 'RUB', card: card(CARDS.success), capture_method: capture });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

/** Retries what may succeed later (a busy payment, a 503) so that only final answers are counted. */
async function settled(f: () => ReturnType<typeof call>) {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await f();
    const again = r.status === 503 || (r.status === 409 && r.body?.error?.code === 'PAYMENT_ATTEMPT_IN_PROGRESS');
    if (!again || Date.now() > end) return r;
    await new Promise((x) => setTimeout(x, 20));
  }
}

t.test('a capture racing a cancel through two processes: exactly one winner, ten times over', async (t) => {
  for (let round = 0; round < 10; round++) {
    const id = await direct(1000, 'manual');
    const [cap, can] = await Promise.all([
      settled(() => call(round % 2 ? a : b, 'POST', `/v2/payments/${id}/capture`, key, {})),
      settled(() => call(round % 2 ? b : a, 'POST', `/v2/payments/${id}/cancel`, key, {})),
    ]);
    const winners = [cap, can].filter((r) => r.status === 200);
    t.equal(winners.length, 1, `round ${round}: ${cap.status} ${cap.body?.error?.code ?? cap.body?.status} / ${can.status} ${can.body?.error?.code ?? can.body?.status}`);
    const loser = cap.status === 200 ? can : cap;
    t.equal(loser.status, 409);
    t.equal(loser.body.error.code, cap.status === 200 ? 'PAYMENT_NOT_CANCELLABLE' : 'PAYMENT_NOT_CAPTURABLE');
    const row = (await db.query('SELECT status FROM payments WHERE id = $1', [id])).rows[0];
    t.equal(row.status, cap.status === 200 ? 'succeeded' : 'cancelled', 'the row is the winner\'s');
    const ev = await db.query("SELECT type FROM events WHERE aggregate_id = $1 AND type IN ('payment.succeeded', 'payment.cancelled')", [id]);
    t.equal(ev.rows.length, 1, 'one outcome event');
  }
});

t.test('20 parallel refunds through two processes: never more than was captured', async (t) => {
  const id = await direct(10_000, 'automatic');
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    settled(() => call(i % 2 ? b : a, 'POST', `/v2/payments/${id}/refund`, key, { amount: 700, idempotency_key: `par-${id}-${i}` }))));
  const ok = answers.filter((r) => r.status === 200);
  t.equal(ok.length, 14, answers.map((r) => `${r.status}:${r.body?.error?.reason ?? r.body?.error?.code ?? r.body?.status}`).join(' '));
  t.ok(answers.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error.reason === 'REFUND_AMOUNT_INVALID' && typeof r.body.error.remaining === 'number'),
    'the rest are 400 stating the remaining balance');
  const rows = (await db.query("SELECT amount::int FROM refunds WHERE payment_id = $1 AND status = 'succeeded'", [id])).rows;
  t.equal(rows.length, 14);
  const p = await call(a, 'GET', `/v2/payments/${id}`, key);
  t.same([p.body.status, p.body.refunded_amount, p.body.refund_count], ['partially_refunded', 9800, 14]);
  t.equal(Math.max(...ok.map((r) => r.body.total_refunded)), 9800);
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.refunded'", [id]);
  t.equal(ev.rows[0].n, 14, 'one payment.refunded per refund');
});

t.test('killed between the commit of the payment with its attempt and the bank call: recovery releases the attempt, then the key\'s retry pays it, once', async (t) => {
  const doomed = await cluster.start({ FAILPOINTS: 'after-create-commit:kill' });
  const idem = `direct-crash-${Date.now()}`;
  const body = { amount: 4900, currency: 'RUB', card: card(CARDS.success), order_id: idem };
  await sendUntilDead(t, doomed, () => call(doomed, 'POST', '/v2/payments', key, body, { 'idempotency-key': idem }), 'the connection dies with the process');
  const rows = async () => (await db.query('SELECT id, status FROM payments WHERE idempotency_key = $1', [idem])).rows as { id: string; status: string }[];
  const committed = await rows();
  t.same(committed.map((r) => r.status), ['pending'], 'the payment committed, unpaid (the card was never kept)');
  const id = committed[0].id;
  const attempts = async () => (await db.query('SELECT status FROM connector_attempts WHERE aggregate_id = $1', [id])).rows.map((r) => r.status as string);
  t.same(await attempts(), ['started'], 'its attempt was recorded with it (docs/decisions.md: one statement before the bank)');
  const charges = async () => (await db.query(
    `SELECT count(*)::int AS n FROM sandbox_ledger l JOIN connector_attempts c ON c.id = l.idempotency_key WHERE c.aggregate_id = $1 AND l.moved`, [id])).rows[0].n as number;
  t.equal(await charges(), 0, 'nothing charged yet');
  // A retry while the attempt is open answers the payment as it is: nobody knows yet whether the
  // bank got the call, so nothing is charged again (the processes' recovery asks the bank first).
  const retry = () => Promise.all([a, b].map((c) => call(c, 'POST', '/v2/payments', key, body, { 'idempotency-key': idem })));
  for (const r of await retry()) {
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.equal(r.body.id, id, 'the committed payment, not a new one');
  }
  await until('recovery released the attempt the bank never got', async () => (await attempts()).every((st) => st !== 'started'), 60_000);
  // The retry lands on both processes at once: one attempt between them.
  const [r1, r2] = await retry();
  for (const r of [r1, r2]) t.same([r.status, r.body.id], [200, id]);
  t.ok([r1, r2].some((r) => r.body.status === 'succeeded'), 'the retry paid it');
  t.same((await rows()).map((r) => [r.id, r.status]), [[id, 'succeeded']], 'one row, paid');
  t.equal(await charges(), 1, 'the bank charged once');
  const again = await call(a, 'POST', '/v2/payments', key, body, { 'idempotency-key': idem });
  t.same([again.status, again.body.status], [200, 'succeeded'], 'a later retry replays the paid payment');
  t.equal(await charges(), 1, 'and charges nothing more');
});
