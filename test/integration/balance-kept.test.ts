// The balance a payout draws on is kept as payments settle (balance_settled, migration 028), not
// summed from the merchant's history: after concurrent card payments (hosted checkout, gateway
// direct, manual capture in part, cancelled, declined) and refunds (partial, full, refused), the
// kept net equals the net summed over the payments, GET /v2/balance shows it, a payout of exactly
// it is paid and one minor unit more is refused; and neither the reservation nor the balance's
// read ever visits the payments table, nor the payouts that settled.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { CARDS, card } from '../helpers/checkout.js';
import { balanceDrift } from '../../src/store/balance-settled.js';
import { BALANCE_OF_SQL, RESERVE_SQL } from '../../src/store/payouts-repo.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

const ok = (r: { status: number; text: string }, what: string, status = 200) => { if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text}`); };
/** Runs the tasks `width` at a time. */
async function inParallel<T>(tasks: (() => Promise<T>)[], width = 12): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < tasks.length) { const i = next++; out[i] = await tasks[i](); } }));
  return out;
}

interface Made { id: string; api: 'merchant' | 'gateway'; paid: boolean; status: string }
const hosted = async (amount: number): Promise<Made> => {
  const r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount, currency: 'RUB' } });
  ok(r, 'create', 201);
  const pay = await s.request('POST', `/checkout/${r.body.id}/pay`, { body: card(amount % 7 === 0 ? CARDS.declined : CARDS.success) });
  ok(pay, 'pay');
  return { id: r.body.id as string, api: 'merchant', paid: pay.body.status === 'succeeded', status: pay.body.status as string };
};
const direct = async (amount: number, manual: boolean): Promise<Made> => {
  const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount, currency: 'RUB', card: card(CARDS.success), ...(manual ? { capture_method: 'manual' } : {}) } });
  ok(r, 'direct payment');
  return { id: r.body.id as string, api: 'gateway', paid: r.body.status === 'succeeded', status: r.body.status as string };
};

t.test('after concurrent payments and refunds the kept balance is the payments\' net, to the minor unit', async (t) => {
  const made = await inParallel<Made>([
    ...Array.from({ length: 24 }, (_, i) => () => hosted(1_000 + i * 37)),
    ...Array.from({ length: 16 }, (_, i) => () => direct(2_000 + i * 53, false)),
    ...Array.from({ length: 12 }, (_, i) => () => direct(3_000 + i * 11, true)),
  ]);
  const held = made.filter((p) => p.api === 'gateway' && p.status === 'authorized');
  t.equal(held.length, 12, 'the manual ones are authorized');
  // Captures in part or whole, and cancels: captured amounts count, a void counts nothing.
  await inParallel(held.map((p, i) => async () => {
    const r = await s.request('POST', `/v2/payments/${p.id}/${i % 4 === 3 ? 'cancel' : 'capture'}`, { key: sk, body: i % 4 === 0 ? { amount: 1_500 + i } : {} });
    ok(r, 'capture or cancel');
    p.paid = r.body.status === 'succeeded';
  }));
  const paid = made.filter((p) => p.paid);
  t.ok(paid.length >= 40, `${paid.length} payments paid`);
  // Partial refunds, full refunds, and refunds the bank refuses (amounts ending in 666).
  await inParallel(paid.slice(0, 30).map((p, i) => async () => {
    const amount = i % 5 === 4 ? 666 : i % 5 === 3 ? undefined : 100 + i;
    const r = p.api === 'merchant'
      ? await s.request('POST', `/api/v2/payments/${p.id}/refunds`, { key: m.key, body: amount === undefined ? {} : { amount } })
      : await s.request('POST', `/v2/payments/${p.id}/refund`, { key: sk, body: amount === undefined ? {} : { amount } });
    if (amount === 666) t.ok(r.status >= 400, `the refused refund of ${p.id} answers ${r.status}`);
    else ok(r, 'refund', p.api === 'merchant' ? 201 : 200);
  }));
  t.same(await balanceDrift(s.db, m.id), [], 'the kept net equals the net summed over the payments');
  const summed = Number((await s.db.query(
    "SELECT COALESCE(sum(net), 0)::bigint AS n FROM payments WHERE merchant_id = $1 AND NOT livemode AND currency = 'RUB' AND status IN ('succeeded', 'partially_refunded', 'refunded')", [m.id])).rows[0].n);
  t.ok(summed > 0, `the settled net is ${summed}`);
  const balance = await s.request('GET', '/v2/balance', { key: sk });
  ok(balance, 'balance');
  t.equal(balance.body.available.find((x: { currency: string }) => x.currency === 'RUB')?.amount, summed, 'GET /v2/balance shows it');

  const destination = { type: 'card', card: '5555 5555 5555 4444' };
  const over = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: summed + 1, currency: 'RUB', destination } });
  t.same([over.status, over.body.error?.code, over.body.error?.available], [400, 'INSUFFICIENT_BALANCE', summed], 'one minor unit more is refused, naming what is available');
  const exact = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: summed, currency: 'RUB', destination } });
  t.same([exact.status, exact.body.status], [200, 'paid'], exact.text);
  const after = await s.request('GET', '/v2/balance', { key: sk });
  t.equal(after.body.available.find((x: { currency: string }) => x.currency === 'RUB')?.amount, 0, 'nothing is left');
});

t.test('the reservation and the balance read the kept figures, never the payments', async (t) => {
  const plan = async (sql: string, values: unknown[]) => (await s.db.query(`EXPLAIN ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
  const empty = Array.from({ length: 15 }, () => []);
  for (const [what, text] of [['reservation', await plan(RESERVE_SQL, empty)], ['balance', await plan(BALANCE_OF_SQL, [m.id, false])]] as const) {
    t.match(text, /balance_settled/, `${what}: reads balance_settled`);
    t.notMatch(text, / on payments\b/, `${what}: visits no payment`);
  }
  // The pending payouts through their own index, which a paid or failed payout leaves (migration 029).
  const c = await s.db.connect();
  try {
    await c.query('BEGIN');
    await c.query('SET LOCAL enable_seqscan = off'); // small tables: make the planner say which index serves
    t.match((await c.query(`EXPLAIN ${BALANCE_OF_SQL}`, [m.id, false])).rows.map((r) => r['QUERY PLAN']).join('\n'), /payouts_pending/, 'the pending payouts by payouts_pending');
  } finally { await c.query('ROLLBACK'); c.release(); }
});
