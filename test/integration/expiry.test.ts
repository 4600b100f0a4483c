// The payment window: a pending payment expires soon after its window ends, with failure
// code expired, once, and its event is written with the change.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

t.test('a pending payment moves to expired after a short window', async (t) => {
  const s = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100' });
  const m = await s.merchant();
  const ids = (await Promise.all(Array.from({ length: 5 }, () => s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 300 } }))))
    .map((r) => r.body.id as string);
  // Before its window ends (Postgres decides, in the same statement) a payment is pending: no test
  // depends on how fast this machine answers, only on what the database says of its own clock.
  const early = await s.db.query('SELECT status, now() < expires_at AS open FROM payments WHERE id = $1', [ids[0]]);
  if (early.rows[0].open) t.equal(early.rows[0].status, 'pending', 'pending while its window is open');
  let statuses: string[] = [];
  await until('every payment expired', async () => {
    statuses = await Promise.all(ids.map(async (id) => (await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body.status));
    return statuses.every((x) => x === 'expired');
  }, 60_000, 100);
  t.same(statuses, ids.map(() => 'expired'));
  const p = await s.request('GET', `/api/v2/payments/${ids[0]}`, { key: m.key });
  t.same(p.body.failure, { code: 'expired', message: 'The payment window ended before the customer paid.' });
  const { rows: never } = await s.db.query("SELECT count(*)::int AS n FROM payments WHERE status = 'expired' AND updated_at < expires_at");
  t.equal(never[0].n, 0, 'none expired before its window ended');
  const { rows } = await s.db.query("SELECT aggregate_id, count(*)::int AS n FROM events WHERE type = 'payment.expired' GROUP BY aggregate_id");
  t.equal(rows.length, 5);
  t.ok(rows.every((r: { n: number }) => r.n === 1), 'one expiry event per payment');
});

t.test('two servers on one database expire each payment exactly once', async (t) => {
  const a = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '50' });
  const b = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '50' }, { databaseUrl: a.srv.databaseUrl });
  const m = await a.merchant();
  await Promise.all(Array.from({ length: 40 }, () => a.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 10 } })));
  await until('no payment pending', async () => (await a.db.query("SELECT count(*)::int AS n FROM payments WHERE status = 'pending'")).rows[0].n === 0, 60_000, 100);
  const { rows } = await b.db.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE type = 'payment.expired'");
  t.equal(rows[0].d, 40);
  t.equal(rows[0].n, 40, 'no payment expired twice');
});
