// Payouts reserve, and settle, in one statement for many (issue 25), with row isolation: payouts
// queued behind a stalled statement go as one group, on distinct balances and on one balance; the
// payouts of one balance in one group reserve one after another (smallest first), so the sum
// reserved never exceeds what is available and `payout_balances.held` stays the sum of the payouts
// that have not failed; a key another payout holds, a balance with no row and a balance too small
// fail alone; a reservation waiting on a balance row another transaction raised sees that raise;
// grouped outcomes give the failed payouts' reservations back (one update per balance) and leave a
// payout no longer pending alone.
import t from 'tap';
import type pg from 'pg';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { testPool } from '../helpers/env.js';
import { until } from '../helpers/wait.js';
import { analyzedPlan, planNodes, queryOf, rescannedCtes } from '../helpers/plan.js';
import { TEST_IBANS } from '../../src/connectors/sandbox/cards.js';
import { prefixedId } from '../../src/domain/ids.js';
import type { Payout } from '../../src/domain/payout.js';
import { beginPayouts, settlePayouts, type PayoutStart } from '../../src/store/payouts-repo.js';

// One shard: one payout group writer, so what is queued behind its statement is one group.
const s = await startTestServer(t, { WORKERS: '1' });
const pool = testPool(s.srv.databaseUrl, 4);
t.teardown(() => pool.end());

/** A merchant with a test secret key and an AZN balance funded by one settled payment of `funds`. */
async function funded(funds: number): Promise<{ id: string; sk: string }> {
  const m = await s.merchant({ currencies: ['AZN'] });
  const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: funds, currency: 'AZN' } });
  if (p.status !== 201) throw new Error(p.text);
  const done = await s.request('POST', `/api/v2/test/payments/${p.body.id}/complete`, { key: m.key, body: { outcome: 'succeeded' } });
  if (done.status !== 200) throw new Error(done.text);
  const b = await s.request('GET', '/v2/balance', { key: sk });
  if (b.body.available.find((x: { currency: string }) => x.currency === 'AZN')?.amount !== funds) throw new Error(`balance: ${b.text}`);
  return { id: m.id, sk };
}

const PAID = { type: 'iban', iban: TEST_IBANS.paid };
const DECLINED = { type: 'iban', iban: TEST_IBANS.refused };
const payout = (sk: string, amount: number, destination: Record<string, unknown> = PAID) => s.request('POST', '/v2/payouts', { key: sk, body: { amount, currency: 'AZN', destination } });

const scrape = async () => (await s.request('GET', '/metrics', { key: ADMIN })).text;
const sumOf = (text: string, series: RegExp): number => [...text.matchAll(new RegExp(`^${series.source} (\\S+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
const beginStats = async () => {
  const text = await scrape();
  return { statements: sumOf(text, /payment_write_statements_total\{shard="\d+",writer="payout_begin"\}/), rows: sumOf(text, /payment_write_rows_total\{shard="\d+",writer="payout_begin"\}/) };
};
const depth = async () => sumOf(await scrape(), /actor_mailbox_depth\{shard="\d+"\}/);

const reservation = async (merchant: string) => (await pool.query(
  `SELECT COALESCE((SELECT held FROM payout_balances WHERE merchant_id = $1 AND currency = 'AZN'), 0)::int AS held,
          COALESCE((SELECT sum(amount) FROM payouts WHERE merchant_id = $1 AND currency = 'AZN' AND status <> 'failed'), 0)::int AS owed`, [merchant])).rows[0] as { held: number; owed: number };

/**
 * Holds the balance row of `merchant` locked (as another process's reservation would), sends the
 * blocking payout, waits until its statement waits for that lock, then sends `more` and waits until
 * every one of them is in the shard (each one's reservation queued behind the stalled statement);
 * then lets go. The answers of the blocking payout and of the others.
 */
async function queuedBehindStall<R>(merchant: string, blocker: () => Promise<R>, more: (() => Promise<R>)[]): Promise<{ first: R; rest: R[] }> {
  const lock: pg.PoolClient = await pool.connect();
  try {
    await lock.query('BEGIN');
    await lock.query("SELECT held FROM payout_balances WHERE merchant_id = $1 AND livemode = false AND currency = 'AZN' FOR UPDATE", [merchant]);
    const base = await depth();
    const first = blocker();
    await until('the first reservation waits for the balance lock', async () => (await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%payout_balances%' AND pid <> pg_backend_pid()")).rows[0].n === 1);
    const rest = more.map((f) => f());
    await until('every payout is queued in the shard', async () => (await depth()) === base + 1 + more.length);
    await lock.query('COMMIT');
    return { first: await first, rest: await Promise.all(rest) };
  } finally {
    lock.release();
  }
}

t.test('payouts of distinct balances queued behind one statement reserve in one statement, each on its own balance', async (t) => {
  const blocker = await funded(1_000);
  const others = await Promise.all(Array.from({ length: 12 }, () => funded(1_000)));
  // Every balance has its row already (a first payout creates it: the row is what the statement locks).
  t.same((await payout(blocker.sk, 1)).body.status, 'paid');
  for (const m of others) t.same((await payout(m.sk, 1)).body.status, 'paid');
  const before = await beginStats();
  const { first, rest } = await queuedBehindStall(blocker.id, () => payout(blocker.sk, 100), others.map((m, i) => () => payout(m.sk, 100 + i)));
  t.same([first.status, first.body.status], [200, 'paid']);
  t.same(rest.map((r) => [r.status, r.body.status]), others.map(() => [200, 'paid']), 'every payout paid');
  const after = await beginStats();
  t.equal(after.rows - before.rows, 13, 'thirteen reservations');
  t.equal(after.statements - before.statements, 2, 'in two statements: the stalled one and the twelve queued behind it');
  for (const [i, m] of others.entries()) t.same(await reservation(m.id), { held: 1 + 100 + i, owed: 1 + 100 + i }, `balance ${i}: its own payouts held`);
});

t.test('payouts of ONE balance in one statement reserve one after another: never more than available, held = the payouts not failed', async (t) => {
  const m = await funded(5_000);
  t.same((await payout(m.sk, 1_000)).body.status, 'paid', 'the balance row exists');
  // 4 000 left. Twenty payouts asking 21 000 in all, every third to an IBAN the bank declines.
  const amounts = [900, 150, 700, 1_300, 250, 2_000, 400, 1_100, 600, 1_800, 350, 500, 1_200, 800, 1_000, 1_500, 450, 950, 1_700, 1_350];
  const before = await beginStats();
  const { first, rest } = await queuedBehindStall(m.id, () => payout(m.sk, 100), amounts.map((a, i) => () => payout(m.sk, a, i % 3 === 0 ? DECLINED : PAID)));
  t.same([first.status, first.body.status], [200, 'paid'], 'the stalled payout');
  const after = await beginStats();
  t.equal(after.statements - before.statements, 2, 'the twenty went as one statement');
  // 3 900 left for the group: reserved smallest first while they fit, as one by one in that order.
  let left = 3_900;
  const fits = new Set<number>();
  for (const a of [...amounts].sort((x, y) => x - y)) { if (a > left) break; left -= a; fits.add(a); }
  for (const [i, r] of rest.entries()) {
    if (fits.has(amounts[i])) t.same([r.status, r.body.status], [200, i % 3 === 0 ? 'failed' : 'paid'], `${amounts[i]}: reserved, then ${i % 3 === 0 ? 'declined' : 'paid'}`);
    else t.same([r.status, r.body.error?.code, r.body.error?.available], [400, 'INSUFFICIENT_BALANCE', left], `${amounts[i]}: refused, ${left} available at its turn`);
  }
  const rows = (await pool.query("SELECT amount::int, status FROM payouts WHERE merchant_id = $1", [m.id])).rows as { amount: number; status: string }[];
  t.equal(rows.filter((r) => r.status === 'pending').length, 0, 'none left pending');
  const kept = rows.filter((r) => r.status !== 'failed').reduce((n, r) => n + r.amount, 0);
  t.ok(kept <= 5_000, `never more than the balance (${kept})`);
  t.same(await reservation(m.id), { held: kept, owed: kept }, 'held is the sum of the payouts not failed: declines gave theirs back');
  const b = await s.request('GET', '/v2/balance', { key: m.sk });
  t.equal(b.body.available.find((x: { currency: string }) => x.currency === 'AZN').amount, 5_000 - kept);
});

/** A payout to begin at the repo level. */
function start(merchantId: string, amount: number, key: string | null = null): PayoutStart {
  const now = Date.now();
  const id = prefixedId('po', 24);
  const attemptId = prefixedId('att', 24);
  const payout: Payout = {
    id, merchantId, livemode: false, status: 'pending', amount, currency: 'AZN', destination: { type: 'iban', country: 'DE', last4: '3000', bic: null },
    failure: null, metadata: {}, attemptId, connectorRef: null, requestId: `req_${id}`, idempotencyKey: key, requestHash: key ? `h-${key}` : null, createdAt: now, updatedAt: now,
  };
  return { payout, attempt: { id: attemptId, operation: 'payout', connector: 'sandbox', amount, currency: 'AZN', context: { payoutId: id, destination: 'iban' } } };
}

t.test('one statement, row isolation: a taken key, a balance with no row and a balance too small fail alone', async (t) => {
  const a = await funded(1_000);
  const b = await funded(1_000);
  const fresh = await funded(1_000);
  await pool.query("INSERT INTO payout_balances (merchant_id, livemode, currency, held) VALUES ($1, false, 'AZN', 0), ($2, false, 'AZN', 0)", [a.id, b.id]);
  t.same(await beginPayouts(pool, [start(a.id, 100, 'held-key')]), [{ kind: 'started' }], 'a payout holds the key held-key');
  const group = [start(a.id, 500), start(a.id, 100, 'held-key'), start(fresh.id, 10), start(b.id, 1_001), start(a.id, 400), start(b.id, 999), start(a.id, 1)];
  // Balance a (100 held): 1, 400 and 500 asked, smallest first: 1 and 400 fit, 500 does not (499 left).
  // Balance b (nothing held): 999 fits, 1 001 does not (1 left).
  t.same(await beginPayouts(pool, group), [
    { kind: 'insufficient', available: 499 }, { kind: 'key_taken' }, { kind: 'no_balance' }, { kind: 'insufficient', available: 1 }, { kind: 'started' }, { kind: 'started' },
    { kind: 'started' },
  ], 'each row its own outcome, in the order given');
  const written = (await pool.query('SELECT id FROM payouts WHERE id = ANY($1)', [group.map((x) => x.payout.id)])).rows.map((r) => r.id).sort();
  t.same(written, [group[4], group[5], group[6]].map((x) => x.payout.id).sort(), 'pending payouts for the three reserved only');
  const attempts = (await pool.query('SELECT count(*)::int AS n FROM connector_attempts WHERE id = ANY($1)', [group.map((x) => x.attempt.id)])).rows[0].n;
  t.equal(attempts, 3, 'attempts for the three reserved only');
  t.same(await reservation(a.id), { held: 501, owed: 501 });
  t.same(await reservation(b.id), { held: 999, owed: 999 });
  t.same(await reservation(fresh.id), { held: 0, owed: 0 }, 'no row was made for the fresh balance by the statement');
  // Two payouts with one key in one statement: the unique index breaks it (the group writer then splits it).
  const broken = await beginPayouts(pool, [start(a.id, 1, 'twice'), start(a.id, 1, 'twice')]).then(() => null, (err: { constraint?: string }) => err);
  t.equal(broken?.constraint, 'payout_keys_pkey');
  t.same(await reservation(a.id), { held: 501, owed: 501 }, 'nothing of the broken statement stays');
});

t.test('a reservation that waited for a balance row another transaction raised counts that raise', async (t) => {
  const m = await funded(1_000);
  await pool.query("INSERT INTO payout_balances (merchant_id, livemode, currency, held) VALUES ($1, false, 'AZN', 0)", [m.id]);
  const holder = start(m.id, 500);
  const other: pg.PoolClient = await pool.connect();
  try {
    await other.query('BEGIN');
    // Another process's reservation of 500, committed while the group waits for the row.
    await other.query("UPDATE payout_balances SET held = held + 500 WHERE merchant_id = $1 AND currency = 'AZN'", [m.id]);
    const group = beginPayouts(pool, [start(m.id, 300), start(m.id, 300)]);
    await until('the group waits for the balance row', async () => (await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%payout_balances%' AND pid <> pg_backend_pid()")).rows[0].n === 1);
    await other.query(`INSERT INTO payouts (id, merchant_id, livemode, amount, currency, status, destination, metadata, attempt_id, request_id, created_at, updated_at)
      VALUES ($1, $2, false, 500, 'AZN', 'pending', '{}', '{}', $3, 'req', now(), now())`, [holder.payout.id, m.id, holder.attempt.id]);
    await other.query('COMMIT');
    t.same(await group, [{ kind: 'started' }, { kind: 'insufficient', available: 200 }], 'one of the two fits beside the 500 committed meanwhile');
  } finally {
    other.release();
  }
  t.same(await reservation(m.id), { held: 800, owed: 800 });
});

t.test('grouped outcomes: paid, failed (reservations back, two of one balance) and one no longer pending, in one statement', async (t) => {
  const m = await funded(1_000);
  await pool.query("INSERT INTO payout_balances (merchant_id, livemode, currency, held) VALUES ($1, false, 'AZN', 0)", [m.id]);
  const xs = [start(m.id, 100), start(m.id, 200), start(m.id, 300), start(m.id, 50)];
  t.same((await beginPayouts(pool, xs)).map((x) => x.kind), ['started', 'started', 'started', 'started']);
  t.same(await reservation(m.id), { held: 650, owed: 650 });
  await pool.query("UPDATE payouts SET status = 'failed' WHERE id = $1", [xs[3].payout.id]); // settled by someone else meanwhile (recovery)
  const now = Date.now();
  const outcome = (x: PayoutStart, paid: boolean) => ({
    next: { ...x.payout, status: paid ? 'paid' as const : 'failed' as const, failure: paid ? null : { code: 'payout_declined', message: 'declined' }, connectorRef: `ref-${x.payout.id}`, updatedAt: now },
    attempt: { id: x.attempt.id, status: paid ? 'succeeded' as const : 'failed' as const, result: { kind: paid ? 'succeeded' : 'failed' } },
    event: paid ? 'payout.paid' as const : 'payout.failed' as const, data: { id: x.payout.id },
  });
  t.same(await settlePayouts(pool, [outcome(xs[0], true), outcome(xs[1], false), outcome(xs[2], false), outcome(xs[3], true)]), [0, 0, 0, null],
    'three recorded (no webhook endpoint: no deliveries), the one no longer pending refused');
  const st = (await pool.query('SELECT id, status FROM payouts WHERE id = ANY($1)', [xs.map((x) => x.payout.id)])).rows;
  t.same(xs.map((x) => st.find((r) => r.id === x.payout.id)?.status), ['paid', 'failed', 'failed', 'failed']);
  t.same(await reservation(m.id), { held: 100 + 50, owed: 100 }, 'both failures of the balance gave back (500); the outside change is not this statement\'s');
  const events = (await pool.query('SELECT aggregate_id, type FROM events WHERE aggregate_id = ANY($1) ORDER BY type', [xs.map((x) => x.payout.id)])).rows;
  t.same(events.map((e) => e.type), ['payout.failed', 'payout.failed', 'payout.paid'], 'one event per recorded outcome');
  const open = (await pool.query("SELECT count(*)::int AS n FROM connector_attempts WHERE id = ANY($1) AND status = 'started'", [xs.map((x) => x.attempt.id)])).rows[0].n;
  t.equal(open, 1, 'the attempt of the payout no longer pending is left to whoever settled it');
});

t.test('the reservation reads each of its CTEs once: no step costs the square of the group', async (t) => {
  // 8 balances, 3 payouts each, one of them keyed twice over (taken), and 3 payouts of a balance with no row.
  const ms = await Promise.all(Array.from({ length: 8 }, () => funded(1_000)));
  const fresh = await funded(1_000);
  await pool.query("INSERT INTO payout_balances (merchant_id, livemode, currency, held) SELECT unnest($1::text[]), false, 'AZN', 0", [ms.map((m) => m.id)]);
  t.same(await beginPayouts(pool, [start(ms[0].id, 1, 'plan-taken')]), [{ kind: 'started' }]);
  const group = [...ms.flatMap((m, i) => [start(m.id, 400), start(m.id, 300 + i), start(m.id, 500, i === 0 ? 'plan-taken' : null)]),
    start(fresh.id, 1), start(fresh.id, 2), start(fresh.id, 3)];
  const plan = await analyzedPlan(pool, await queryOf((db) => beginPayouts(db, group)));
  t.same(rescannedCtes(plan), [], 'no CTE is scanned once per row of another');
  t.ok(planNodes(plan).some((n) => n['Node Type'] === 'LockRows'), 'the plan locks the balance rows');
  // The same group, executed: each row's outcome is what reserving one by one, smallest first, gives.
  const out = await beginPayouts(pool, group);
  t.same(out.slice(0, 3), [{ kind: 'started' }, { kind: 'started' }, { kind: 'key_taken' }], 'balance 0: 1 held, 300 and 400 fit (299 left), the taken key reserves nothing');
  t.same(out.slice(3, 6), [{ kind: 'started' }, { kind: 'started' }, { kind: 'insufficient', available: 299 }], 'balance 1: 301 and 400 fit, 500 does not');
  t.same(out.slice(-3).map((x) => x.kind), ['no_balance', 'no_balance', 'no_balance']);
  t.same(await reservation(ms[7].id), { held: 707, owed: 707 });
});
