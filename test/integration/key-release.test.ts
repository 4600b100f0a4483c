// Idempotency keys older than 24 hours are released in batches until none is left (within a run's
// budget), not one batch a minute: a backlog larger than a batch drains in one run, a run whose
// budget is spent leaves the rest for the next, and young keys stay.
import t from 'tap';
import { releaseAgedKeys } from '../../actors/key-release.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const first = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, currency: 'AZN' }, headers: { 'Idempotency-Key': 'kr-young' } });
t.equal(first.status, 201, 'a keyed payment to copy');

/** `n` copies of the young payment, keyed `${tag}-i`, created 25 hours ago. */
async function agedCopies(tag: string, n: number): Promise<void> {
  await s.db.query(
    `INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object(
       'id', p.id || $2 || '_' || g, 'idempotency_key', $2 || '-' || g, 'order_id', NULL, 'created_at', now() - interval '25 hours'))).*
     FROM payments p, generate_series(1, $3::int) g WHERE p.id = $1`, [first.body.id, tag, n]);
}
const aged = async () => Number((await s.db.query(
  `SELECT count(*) AS n FROM payments WHERE merchant_id = $1 AND idempotency_key IS NOT NULL AND created_at < now() - interval '24 hours'`, [m.id])).rows[0].n);

t.test('a backlog of several batches drains in one run; a young key stays', async (t) => {
  await agedCopies('a', 2_500);
  t.equal(await aged(), 2_500);
  const run = await releaseAgedKeys(s.db, { batch: 1_000 });
  t.same(run.left, [], 'nothing left');
  t.ok((run.released.payments ?? 0) >= 1, 'payments\' keys released');
  t.equal(await aged(), 0, 'every aged key is released (with one batch a run, 1,500 would be left)');
  const young = await s.db.query('SELECT idempotency_key FROM payments WHERE id = $1', [first.body.id]);
  t.equal(young.rows[0].idempotency_key, 'kr-young', 'the young key is kept');
  const again = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, currency: 'AZN' }, headers: { 'Idempotency-Key': 'a-7' } });
  t.equal(again.status, 201, 'a released key makes a new payment');
  t.not(again.body.id, `${first.body.id}a_7`);
});

t.test('a run whose budget is spent leaves the rest to the next run', async (t) => {
  await agedCopies('b', 2_500);
  const run = await releaseAgedKeys(s.db, { batch: 1_000, budgetMs: 0 });
  t.equal(run.released.payments, 1_000, 'one batch of each kind, whatever the budget');
  t.same(run.left, ['payments'], 'the kind with keys left is named');
  t.equal(await aged(), 1_500);
  const next = await releaseAgedKeys(s.db, { batch: 1_000 });
  t.same(next.left, []);
  t.equal(await aged(), 0);
});

t.test('two processes\' runs at once share the backlog: every key released once, none left', async (t) => {
  await agedCopies('c', 2_500);
  const [a, b] = await Promise.all([releaseAgedKeys(s.db, { batch: 500 }), releaseAgedKeys(s.db, { batch: 500 })]);
  t.equal((a.released.payments ?? 0) + (b.released.payments ?? 0), 2_500, 'the batches skip the rows the other run holds');
  t.same([a.left, b.left], [[], []]);
  t.equal(await aged(), 0);
});
