// The payment window: a pending payment expires soon after its window ends, with failure
// code expired, once, and its event is written with the change.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('a pending payment moves to expired after a short window', async (t) => {
  const s = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100' });
  const m = await s.merchant();
  const ids = (await Promise.all(Array.from({ length: 5 }, () => s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 300 } }))))
    .map((r) => r.body.id as string);
  const early = await s.request('GET', `/api/v2/payments/${ids[0]}`, { key: m.key });
  t.equal(early.body.status, 'pending');
  const deadline = Date.now() + 8000;
  let statuses: string[] = [];
  while (Date.now() < deadline) {
    statuses = await Promise.all(ids.map(async (id) => (await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body.status));
    if (statuses.every((x) => x === 'expired')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.same(statuses, ids.map(() => 'expired'));
  const p = await s.request('GET', `/api/v2/payments/${ids[0]}`, { key: m.key });
  t.same(p.body.failure, { code: 'expired', message: 'The payment window ended before the customer paid.' });
  const lag = Date.now() - Date.parse(p.body.created_at) - 1000;
  t.ok(lag < 5000, `expired within a few seconds of the window's end (${lag} ms)`);
  const { rows } = await s.db.query("SELECT aggregate_id, count(*)::int AS n FROM events WHERE type = 'payment.expired' GROUP BY aggregate_id");
  t.equal(rows.length, 5);
  t.ok(rows.every((r: { n: number }) => r.n === 1), 'one expiry event per payment');
});

t.test('two servers on one database expire each payment exactly once', async (t) => {
  const a = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '50' });
  const b = await startTestServer(t, { PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '50' }, { databaseUrl: a.srv.databaseUrl });
  const m = await a.merchant();
  await Promise.all(Array.from({ length: 40 }, () => a.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 10 } })));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await a.db.query("SELECT count(*)::int AS n FROM payments WHERE status = 'pending'");
    if (rows[0].n === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const { rows } = await b.db.query("SELECT count(*)::int AS n, count(DISTINCT aggregate_id)::int AS d FROM events WHERE type = 'payment.expired'");
  t.equal(rows[0].d, 40);
  t.equal(rows[0].n, 40, 'no payment expired twice');
});
