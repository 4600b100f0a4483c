// Payouts under concurrency and faults, with real server processes on one database: 20 parallel
// payouts through two processes never overdraw the balance (each 2xx is one row and one bank
// operation, the rest INSUFFICIENT_BALANCE); a process killed (SIGKILL) after the bank paid, or
// after the payout was recorded but before the bank call, is resolved by the recovery sweep of
// another process: exactly one payout, paid once or not at all, and the client's retry with the
// same Idempotency-Key gets that payout.
import t from 'tap';
import { TEST_IBANS } from '../../src/connectors/sandbox/cards.js';
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

const cluster = await startCluster(t, 'po', { ATTEMPT_RECOVERY_AFTER_MS: '3000', ATTEMPT_RECOVERY_POLL_MS: '100' });
const { db } = cluster;
const a = await cluster.start();
const b = await cluster.start();

/** Pays a payment of `amount` into the merchant's balance (a card payment paid by the hosted checkout). */
async function payIn(svc: string, amount: number): Promise<void> {
  const p = await call(a, 'POST', '/api/v2/payments', svc, { amount });
  const pay = await call(b, 'POST', `/checkout/${p.body.id}/pay`, null, card(CARDS.success));
  // On a busy machine the bank call can outlast this file's 300 ms recovery threshold: recovery
  // then settles it and the page answers 'processing' first. The funds are there once it succeeded.
  if (pay.body?.status !== 'succeeded') {
    if (pay.body?.status !== 'processing') throw new Error(JSON.stringify(pay.body));
    await until('the funding payment succeeded', async () => (await call(a, 'GET', `/api/v2/payments/${p.body.id}`, svc)).body.status === 'succeeded');
  }
}

/** A merchant of its own per test (its own balance), funded with one paid card payment of `funds`. */
async function fundedMerchant(funds: number): Promise<{ id: string; sk: string; svc: string }> {
  const m = await call(a, 'POST', '/internal/merchants', 'adm', { name: 'payouts', rate_limit_per_minute: 1000000, currencies: ['AZN'] });
  const svc = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'merchant', mode: 'test' })).body.key as string;
  const sk = (await call(a, 'POST', `/internal/merchants/${m.body.id}/api-keys`, 'adm', { kind: 'secret', mode: 'test' })).body.key as string;
  await payIn(svc, funds);
  return { id: m.body.id as string, sk, svc };
}

const available = async (c: Child, sk: string) => (await call(c, 'GET', '/v2/balance', sk)).body.available.find((x: any) => x.currency === 'AZN').amount as number;
const payoutRows = async (merchant: string) => (await db.query('SELECT id, status, amount::int, attempt_id, failure FROM payouts WHERE merchant_id = $1 ORDER BY created_at', [merchant])).rows;
/** The sandbox bank's payout operations for a merchant's payouts. */
const bankPayouts = async (merchant: string) => (await db.query(
  `SELECT l.idempotency_key, l.operation, l.amount::int, l.moved FROM sandbox_ledger l JOIN payouts p ON p.attempt_id = l.idempotency_key
   WHERE p.merchant_id = $1`, [merchant])).rows;
const openAttempts = async (merchant: string) => (await db.query(
  "SELECT count(*)::int AS n FROM connector_attempts a JOIN payouts p ON p.attempt_id = a.id WHERE p.merchant_id = $1 AND a.status = 'started'", [merchant])).rows[0].n as number;
const DEST = { type: 'iban', iban: TEST_IBANS.paid };

t.test('20 parallel payouts through two processes never overdraw the balance', async (t) => {
  const m = await fundedMerchant(10_000);
  // 20 x 700 = 14 000 asked of 10 000: 14 fit. A retryable answer is retried with the same key.
  const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await call(i % 2 ? b : a, 'POST', '/v2/payouts', m.sk, { amount: 700, currency: 'AZN', destination: DEST }, { 'idempotency-key': `par-${i}` });
      const retryable = r.status === 503 || (r.status === 409 && r.body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!retryable || Date.now() > end) return r;
      await new Promise((x) => setTimeout(x, 20));
    }
  }));
  const ok = answers.filter((r) => r.status === 200);
  const summary = answers.map((r) => `${r.status}:${r.body?.error?.code ?? r.body?.status}`);
  t.equal(ok.length, 14, `14 payouts fit: ${summary.join(' ')}`);
  t.ok(ok.every((r) => r.body.status === 'paid'));
  t.ok(answers.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error.code === 'INSUFFICIENT_BALANCE'), 'the rest are refused for the balance');
  const rows = await payoutRows(m.id);
  t.equal(rows.length, 14, 'one payout row per 2xx, none for the refusals');
  t.same(new Set(rows.map((r) => r.id)), new Set(ok.map((r) => r.body.id)));
  t.ok(rows.reduce((s, r) => s + r.amount, 0) <= 10_000, 'never more than the balance');
  const bank = await bankPayouts(m.id);
  t.equal(bank.length, 14, 'one bank operation per payout');
  t.ok(bank.every((l) => l.operation === 'payout' && l.moved && l.amount === 700));
  t.equal(await available(a, m.sk), 200);
  t.equal(await available(b, m.sk), 200, 'both processes see one balance');
});

t.test('one key and body sent at once, to both processes and twice to one, when the balance covers one payout: every answer is that payout (issue 22)', async (t) => {
  // The balance used to be checked before the key: the later same-key request read the balance its
  // own first request had reserved and answered 400 INSUFFICIENT_BALANCE "nothing was paid".
  const rounds = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
    const m = await fundedMerchant(2_000);
    const amount = await available(a, m.sk);
    const body = { amount, currency: 'AZN', destination: DEST };
    const send = async (c: Child) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const r = await call(c, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': `once-${i}` });
        const retry = (r.status === 409 && r.body.error.code === 'IDEMPOTENCY_KEY_IN_USE') || r.body?.error?.code === 'OUTCOME_UNKNOWN';
        if (!retry || Date.now() > end) return r;
        await new Promise((x) => setTimeout(x, 20));
      }
    };
    const answers = await Promise.all([send(a), send(b), send(a)]);
    return { m, answers };
  }));
  const bad = rounds.filter(({ answers }) => !answers.every((r) => r.status === 200 && r.body.id === answers[0].body.id && r.body.status === 'paid'))
    .map(({ answers }) => answers.map((r) => `${r.status}:${r.body?.error?.code ?? r.body?.status}`).join(' '));
  t.same(bad, [], 'every answer names the one paid payout');
  for (const { m } of rounds) {
    t.equal((await payoutRows(m.id)).length, 1, 'one payout');
    t.equal((await bankPayouts(m.id)).length, 1, 'paid once');
  }
});

t.test('a process killed (SIGKILL) after the bank paid: recovered as paid, paid once; the retry gets it', async (t) => {
  const m = await fundedMerchant(5_000);
  const c = await cluster.start({ FAILPOINTS: 'after-connector-call:kill' });
  const idem = 'kill-after-bank';
  const body = { amount: 1_500, currency: 'AZN', destination: DEST };
  await sendUntilDead(t, c, () => call(c, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': idem }), 'the connection dies with the process');
  await until('recovered', async () => (await payoutRows(m.id))[0]?.status === 'paid');
  const rows = await payoutRows(m.id);
  t.same(rows.map((r) => [r.status, r.amount]), [['paid', 1_500]], 'exactly one payout');
  t.same((await bankPayouts(m.id)).map((l) => [l.operation, l.amount, l.moved]), [['payout', 1_500, true]], 'the bank paid once');
  t.equal(await openAttempts(m.id), 0);
  t.equal(await available(a, m.sk), 3_500);
  const retry = await call(a, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': idem });
  t.same([retry.status, retry.body.id, retry.body.status], [200, rows[0].id, 'paid'], 'the recovered payout, not a new one');
  t.equal((await payoutRows(m.id)).length, 1);
  t.equal((await bankPayouts(m.id)).length, 1);
  const ev = await db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payout.paid'", [rows[0].id]);
  t.equal(ev.rows[0].n, 1, 'one payout.paid event');
});

t.test('a process killed after recording the payout, before the bank call: failed as interrupted, nothing paid, the money is back', async (t) => {
  const m = await fundedMerchant(5_000);
  // The dead process's in-flight idempotency marker holds the key for its life (then Postgres decides).
  const c = await cluster.start({ FAILPOINTS: 'after-attempt-recorded:kill', IDEMPOTENCY_INFLIGHT_MS: '1000' });
  const idem = 'kill-before-bank';
  const body = { amount: 2_000, currency: 'AZN', destination: DEST };
  await sendUntilDead(t, c, () => call(c, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': idem }));
  await until('resolved', async () => (await openAttempts(m.id)) === 0 && (await payoutRows(m.id))[0]?.status === 'failed');
  const rows = await payoutRows(m.id);
  t.same(rows.map((r) => [r.status, r.amount, r.failure?.code]), [['failed', 2_000, 'payout_interrupted']], 'one payout, failed');
  t.same(await bankPayouts(m.id), [{ idempotency_key: rows[0].attempt_id, operation: 'closed', amount: 0, moved: false }], 'the bank paid nothing and refuses the key from now on');
  t.equal(await available(b, m.sk), 5_000, 'the reserved money is available again');
  let retry = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': idem });
  await until('the key is free', async () => {
    if (retry.status !== 409 || retry.body.error.code !== 'IDEMPOTENCY_KEY_IN_USE') return true;
    retry = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': idem });
    return false;
  });
  t.same([retry.status, retry.body.id, retry.body.status], [200, rows[0].id, 'failed'], 'the same key answers the interrupted payout');
  const fresh = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': `${idem}-2` });
  t.same([fresh.status, fresh.body.status], [200, 'paid'], 'a new key pays');
  t.equal((await bankPayouts(m.id)).filter((l) => l.moved).length, 1, 'paid once in all');
  t.equal(await available(a, m.sk), 3_000);
});

/** What the balance row has reserved, and what its payouts that have not failed add up to: always equal. */
const reservation = async (merchant: string) => (await db.query(
  `SELECT COALESCE((SELECT held FROM payout_balances WHERE merchant_id = $1 AND currency = 'AZN'), 0)::int AS held,
          COALESCE((SELECT sum(amount) FROM payouts WHERE merchant_id = $1 AND currency = 'AZN' AND status <> 'failed'), 0)::int AS owed`, [merchant])).rows[0] as { held: number; owed: number };

t.test('parallel payouts on one balance, some declined by the bank, through two processes: never overdrawn, declines give their reservation back (issue 25)', async (t) => {
  const m = await fundedMerchant(6_000);
  // 24 x 500 = 12 000 asked of 6 000; every third goes to an IBAN the bank declines (money back).
  const DECLINED = { type: 'iban', iban: TEST_IBANS.refused };
  const answers = await Promise.all(Array.from({ length: 24 }, async (_, i) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await call(i % 2 ? b : a, 'POST', '/v2/payouts', m.sk, { amount: 500, currency: 'AZN', destination: i % 3 ? DEST : DECLINED }, { 'idempotency-key': `mix-${i}` });
      const retryable = r.status === 503 || (r.status === 409 && r.body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!retryable || Date.now() > end) return r;
      await new Promise((x) => setTimeout(x, 20));
    }
  }));
  const summary = answers.map((r) => `${r.status}:${r.body?.error?.code ?? r.body?.status}`).join(' ');
  t.ok(answers.every((r) => (r.status === 200 && ['paid', 'failed'].includes(r.body.status)) || (r.status === 400 && r.body.error.code === 'INSUFFICIENT_BALANCE')), summary);
  const rows = await payoutRows(m.id);
  const paid = rows.filter((r) => r.status === 'paid');
  t.ok(paid.length * 500 <= 6_000, `never more than the balance (${paid.length} paid)`);
  t.equal(rows.filter((r) => r.status === 'pending').length, 0, 'none left pending');
  t.same(await reservation(m.id), { held: paid.length * 500, owed: paid.length * 500 }, 'the reservation is what was paid');
  t.equal((await bankPayouts(m.id)).filter((l) => l.moved).length, paid.length, 'the bank paid each once');
  // Whatever is left can be paid out to the last unit, and not one unit more.
  const left = await available(a, m.sk);
  t.equal(left, 6_000 - paid.length * 500);
  if (left > 0) {
    const last = await call(b, 'POST', '/v2/payouts', m.sk, { amount: left, currency: 'AZN', destination: DEST }, { 'idempotency-key': 'mix-last' });
    t.same([last.status, last.body.status], [200, 'paid'], 'the rest fits');
  }
  const over = await call(a, 'POST', '/v2/payouts', m.sk, { amount: 1, currency: 'AZN', destination: DEST }, { 'idempotency-key': 'mix-over' });
  t.same([over.status, over.body.error?.code, over.body.error?.available], [400, 'INSUFFICIENT_BALANCE', 0], 'one unit more is refused');
  t.same(await reservation(m.id), { held: 6_000, owed: 6_000 });
});

t.test('a process killed between the reservation and the bank call: recovery gives the whole reservation back (issue 25)', async (t) => {
  const m = await fundedMerchant(3_000);
  const c = await cluster.start({ FAILPOINTS: 'after-attempt-recorded:kill', IDEMPOTENCY_INFLIGHT_MS: '1000' });
  const body = { amount: 3_000, currency: 'AZN', destination: DEST };
  await sendUntilDead(t, c, () => call(c, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'reserve-then-die' }));
  t.same(await reservation(m.id), { held: 3_000, owed: 3_000 }, 'reserved while the attempt is open');
  const refused = await call(a, 'POST', '/v2/payouts', m.sk, { ...body, amount: 1 }, { 'idempotency-key': 'while-open' });
  t.same([refused.status, refused.body.error?.code], [400, 'INSUFFICIENT_BALANCE'], 'nothing else fits meanwhile');
  await until('resolved', async () => (await openAttempts(m.id)) === 0 && (await payoutRows(m.id))[0]?.status === 'failed');
  t.same(await reservation(m.id), { held: 0, owed: 0 }, 'the interrupted payout holds nothing');
  const fresh = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'after-recovery' });
  t.same([fresh.status, fresh.body.status], [200, 'paid'], 'the whole balance can be paid out again');
  t.same(await reservation(m.id), { held: 3_000, owed: 3_000 });
  t.equal((await bankPayouts(m.id)).filter((l) => l.moved).length, 1, 'paid once in all');
});

t.test('a same-key twin reaching a balance that grew after its first request was refused answers that refusal: nothing paid (the simulator\'s seed-2 lie)', async (t) => {
  const m = await fundedMerchant(1_000);
  const first = await call(a, 'POST', '/v2/payouts', m.sk, { amount: 100, currency: 'AZN', destination: DEST }, { 'idempotency-key': 'grow-warm' });
  t.equal(first.status, 200, 'the balance has its row');
  const avail = await available(a, m.sk);
  const body = { amount: avail + 1, currency: 'AZN', destination: DEST };
  const waiting = async () => (await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%payout_balances%'`)).rows[0].n as number;
  // The balance's row is held, so each request's reservation waits for it with the snapshot it
  // started with: the first one's before the balance grows, its twin's after. Row locks are granted
  // in the order they were asked for, so the first is evaluated (and refused) first.
  const lock = await db.connect();
  let answers: Awaited<ReturnType<typeof call>>[];
  try {
    await lock.query('BEGIN');
    await lock.query("SELECT held FROM payout_balances WHERE merchant_id = $1 AND currency = 'AZN' FOR UPDATE", [m.id]);
    const r1 = call(a, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'grow-twin' });
    await until('the first request waits for the balance row', async () => (await waiting()) === 1);
    await payIn(m.svc, 5_000);
    const r2 = call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'grow-twin' });
    await until('its twin waits too', async () => (await waiting()) === 2);
    await lock.query('COMMIT');
    answers = await Promise.all([r1, r2]);
  } finally {
    lock.release();
  }
  t.same(answers.map((r) => [r.status, r.body.error?.code, r.body.error?.available]), [[400, 'INSUFFICIENT_BALANCE', avail], [400, 'INSUFFICIENT_BALANCE', avail]],
    'both answers are the refusal, for the balance the first was evaluated against');
  t.equal(answers[1].headers.get('idempotent-replayed'), 'true', 'the twin\'s is a replay');
  t.ok(await available(a, m.sk) > body.amount, 'the balance covers the payout now');
  t.same((await payoutRows(m.id)).map((r) => r.amount), [100], 'no payout under the refused key');
  t.equal((await bankPayouts(m.id)).length, 1, 'the bank paid only the first payout');
  const again = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'grow-twin' });
  t.same([again.status, again.body.error?.code], [400, 'INSUFFICIENT_BALANCE'], 'the key keeps its answer');
  const fresh = await call(a, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'grow-new' });
  t.same([fresh.status, fresh.body.status], [200, 'paid'], 'a new key pays from the grown balance');
});

t.test('a process killed right after a refusal was bound to its key: the retry elsewhere gets that refusal, even with the balance grown', async (t) => {
  const m = await fundedMerchant(1_000);
  const warm = await call(a, 'POST', '/v2/payouts', m.sk, { amount: 100, currency: 'AZN', destination: DEST }, { 'idempotency-key': 'die-warm' });
  t.equal(warm.status, 200);
  const avail = await available(a, m.sk);
  const body = { amount: avail + 1, currency: 'AZN', destination: DEST };
  const c = await cluster.start({ FAILPOINTS: 'after-refusal-recorded:kill' });
  await sendUntilDead(t, c, () => call(c, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'die-after-refusal' }));
  await payIn(m.svc, 5_000);
  t.ok(await available(a, m.sk) > body.amount, 'the balance covers the payout now');
  const retry = await call(b, 'POST', '/v2/payouts', m.sk, body, { 'idempotency-key': 'die-after-refusal' });
  t.same([retry.status, retry.body.error?.code, retry.body.error?.available, retry.headers.get('idempotent-replayed')], [400, 'INSUFFICIENT_BALANCE', avail, 'true'],
    'the refusal the dead process committed is the answer');
  t.same((await payoutRows(m.id)).map((r) => r.amount), [100], 'nothing paid under the key');
});
