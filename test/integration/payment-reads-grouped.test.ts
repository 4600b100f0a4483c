// Grouped reads by id (src/store/payment-reads.ts over src/store/batcher.ts), against real Postgres:
// lookups of one event-loop turn travel in one statement, lookups that arrive while statements are
// in flight go together in the next one, each caller gets its own row or null, and a failing
// statement fails only the lookups it carried. Statements are counted by wrapping the pool's query.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { PaymentReads } from '../../src/store/payment-reads.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant();
const ids: string[] = [];
for (let i = 0; i < 6; i++) ids.push((await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100 + i, order_id: `g-${i}` } })).body.id);
const MISSING = 'EXZ-20260101-0000000000';

/** A real pool whose grouped-read statements are recorded, and can be held back or made to fail. */
function countedPool() {
  const pool = testPool(s.srv.databaseUrl, 4);
  const real = pool.query.bind(pool) as (c: unknown) => Promise<unknown>;
  const ctl = {
    pool,
    statements: [] as string[][],
    gate: null as Promise<void> | null,
    failWhen: null as ((ids: string[]) => boolean) | null,
  };
  (pool as unknown as { query: (c: unknown) => Promise<unknown> }).query = async (c: unknown) => {
    const q = c as { name?: string; values?: unknown[] };
    if (q.name === 'payments_by_ids') {
      const batch = q.values![0] as string[];
      ctl.statements.push(batch);
      if (ctl.gate) await ctl.gate;
      if (ctl.failWhen?.(batch)) throw new Error('injected failure of this statement');
    }
    return real(c);
  };
  t.teardown(() => pool.end());
  return ctl;
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

t.test('lookups of one turn: one statement, each caller its own row, a missing id null', async (t) => {
  const c = countedPool();
  const errors: Error[] = [];
  const reads = new PaymentReads(c.pool, { onError: (e) => errors.push(e) });
  const asked = [ids[0], ids[3], MISSING, ids[1], ids[3], ids[5]];
  const got = await Promise.all(asked.map((id) => reads.payment(id)));
  t.equal(c.statements.length, 1, 'one statement');
  t.same(c.statements[0].sort(), [ids[0], ids[1], ids[3], ids[5], MISSING].sort(), 'each id once');
  t.same(got.map((p) => p?.id ?? null), [ids[0], ids[3], null, ids[1], ids[3], ids[5]]);
  t.same(got.map((p) => p?.amount ?? null), [100, 103, null, 101, 103, 105], 'the rows themselves');
  t.same(reads.stats, { loads: 1, lookups: 6, failedLoads: 0, largest: 6 });
  const co = await reads.checkout(ids[2]);
  t.equal(co?.payment.id, ids[2]);
  t.equal(co?.checkout.method, null, 'an untouched checkout is open, no method chosen');
  t.same(errors, []);
});

t.test('a malformed id never joins a shared statement: it is not found, the others are', async (t) => {
  const c = countedPool();
  const reads = new PaymentReads(c.pool, { onError: () => {} });
  const asked = [ids[0], 'a\u0000b', `${ids[1]}\u0000`, 'x'.repeat(10_000), ids[1]];
  const got = await Promise.all(asked.map((id) => reads.payment(id)));
  t.same(got.map((p) => p?.id ?? null), [ids[0], null, null, null, ids[1]]);
  t.same(c.statements, [[ids[0], ids[1]]], 'one statement with the two real ids only');
  t.equal(reads.stats.failedLoads, 0);
});

t.test('batches are capped', async (t) => {
  const c = countedPool();
  const reads = new PaymentReads(c.pool, { maxBatch: 2, maxInflight: 8, onError: () => {} });
  const got = await Promise.all(ids.slice(0, 5).map((id) => reads.payment(id)));
  t.same(c.statements.map((b) => b.length), [2, 2, 1]);
  t.same(got.map((p) => p!.id), ids.slice(0, 5));
});

t.test('lookups arriving while a statement is in flight go together in the next one', async (t) => {
  const c = countedPool();
  const reads = new PaymentReads(c.pool, { maxInflight: 1, onError: () => {} });
  let open!: () => void;
  c.gate = new Promise((r) => { open = r; });
  const first = reads.payment(ids[0]);
  await nextTurn();
  t.equal(c.statements.length, 1, 'the first lookup went alone');
  const later: Promise<unknown>[] = [];
  for (const id of ids.slice(1, 4)) { later.push(reads.payment(id)); await nextTurn(); }
  t.equal(c.statements.length, 1, 'nothing else sent while the first statement runs');
  c.gate = null;
  open();
  const [p0, ...rest] = await Promise.all([first, ...later]) as { id: string }[];
  t.equal(p0.id, ids[0]);
  t.same(rest.map((p) => p.id), ids.slice(1, 4));
  t.same(c.statements.map((b) => b.length), [1, 3], 'three lookups from three turns in one statement');
});

t.test('a failing statement fails only its own lookups; the next statement works', async (t) => {
  const c = countedPool();
  const failures: { err: Error; lookups: number }[] = [];
  const reads = new PaymentReads(c.pool, { maxInflight: 4, onError: (err, lookups) => failures.push({ err, lookups }) });
  c.failWhen = (batch) => batch.includes(ids[0]);
  const doomed = Promise.allSettled([reads.payment(ids[0]), reads.payment(ids[1])]);
  await nextTurn();
  const fine = Promise.allSettled([reads.payment(ids[2])]);
  const settled = [...(await doomed), ...(await fine)];
  t.same(settled.map((x) => x.status), ['rejected', 'rejected', 'fulfilled']);
  t.match((settled[0] as PromiseRejectedResult).reason.message, /injected failure/);
  t.equal((settled[2] as PromiseFulfilledResult<{ id: string }>).value.id, ids[2]);
  t.equal(failures.length, 1, 'reported once');
  t.equal(failures[0].lookups, 2);
  t.equal(reads.stats.failedLoads, 1);
  c.failWhen = null;
  t.equal((await reads.payment(ids[0]))?.id, ids[0], 'the same id reads fine afterwards');
});

t.test('the server groups GET /api/v2/payments/{id} through one reader (metrics count statements)', async (t) => {
  const before = s.srv.services.reads.stats.lookups;
  const answers = await Promise.all(ids.map((id) => s.request('GET', `/api/v2/payments/${id}`, { key: m.key })));
  t.same(answers.map((a) => a.body.id), ids);
  t.equal(s.srv.services.reads.stats.lookups - before, ids.length, 'every id read went through the grouped reader');
  const text = (await s.admin('GET', '/metrics')).text;
  t.match(text, /^read_batch_lookups \d+$/m);
  t.match(text, /^read_batches \d+$/m);
});
