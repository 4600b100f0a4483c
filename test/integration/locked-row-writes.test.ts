// A payment row locked by another transaction (an operator's session, a long-running statement)
// holds back only its own payment (session 22): the grouped writes of the other payments on its
// shard go in statements of their own once the locked one has been out STALLED_STATEMENT_MS,
// instead of waiting for Postgres to cancel it. One worker, so that every payment is on one shard;
// the server's statement timeout is long, so that before the change the others waited for the lock.
import t from 'tap';
import pg from 'pg';
import { ADMIN, startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { until } from '../helpers/wait.js';

// No lock timeout either: the locked payment waits for its row (lock-timeout-writes.test.ts has the other case).
const s = await startTestServer(t, { WORKERS: '1', PG_STATEMENT_TIMEOUT_MS: '120000', PG_LOCK_TIMEOUT_MS: '0', PG_QUERY_TIMEOUT_MS: '125000', ACTOR_DEADLINE_MS: '130000' });
const m = await s.merchant();

t.test('other payments of the shard are paid while one payment row is locked; the locked one is paid once the lock ends', async (t) => {
  // Its own connection, ended in this test (before the server's teardown drops the database).
  const locker = new pg.Client({ connectionString: s.srv.databaseUrl });
  await locker.connect();
  t.teardown(() => locker.end());
  const locked = await newPayment(s, m.key);
  const others = await Promise.all([1, 2, 3].map(() => newPayment(s, m.key)));
  await locker.query('BEGIN');
  await locker.query('SELECT 1 FROM payments WHERE id = $1 FOR UPDATE', [locked]);
  const pay = (id: string) => s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  const first = pay(locked);
  // The locked payment's statement is out (waiting on the lock) before the others arrive.
  await until('the locked payment waiting on its row', async () => (await s.db.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n > 0, 60_000, 20);
  const answers: { id: string; status: number; body: unknown }[] = [];
  const paid = Promise.all(others.map(async (id) => { const r = await pay(id); answers.push({ id, status: r.status, body: r.body }); }));
  try {
    await until('the other payments answered while the row is still locked', () => answers.length === others.length, 60_000);
  } finally {
    await locker.query('ROLLBACK');
  }
  await paid;
  t.same(answers.map((a) => [a.status, (a.body as { status?: string }).status]), others.map(() => [200, 'succeeded']), 'each paid');
  const r = await first;
  t.same([r.status, r.body.status], [200, 'succeeded'], 'the locked payment is paid once the lock ends');
  const metrics = (await s.request('GET', '/metrics', { key: ADMIN })).text;
  const stalls = [...metrics.matchAll(/^payment_write_stalls_total\{shard="0",writer="attempt"\} (\d+)$/gm)].map((m) => Number(m[1]));
  t.ok(stalls.length === 1 && stalls[0] >= 1, `the stall is counted in /metrics (${stalls.join(',') || 'none'})`);
});
