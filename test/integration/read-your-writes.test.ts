// Invariant 7: a read never shows a state older than the last acknowledged write, whichever process
// made it. Alone, a process serves reads from memory; once another process joins, it reads Postgres
// before the newcomer may write anything.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

const FAST = { HEARTBEAT_MS: '50', LEASE_MS: '400' };
const until = async (what: string, fn: () => boolean | Promise<boolean>, ms = 8000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return; await new Promise((r) => setTimeout(r, 20)); }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('memory reads while alone, Postgres reads as soon as another process joins', async (t) => {
  const a = await startTestServer(t, { ...FAST, EXPIRY_POLL_MS: '3600000', PAYMENT_WINDOW_SECONDS: '2' });
  const m = await a.merchant();
  const reads = a.srv.services.reads;
  await until('A alone', () => a.srv.services.membership.alone());
  const created = await a.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 500 } });
  const id = created.body.id;
  const hits = reads.hits;
  const g1 = await a.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(g1.body.status, 'pending');
  t.ok(reads.hits > hits, 'served from memory while alone');
  t.same(g1.body, { ...created.body, request_id: g1.body.request_id }, 'memory and the create answer agree');

  let b: TestServer | null = await startTestServer(t, { ...FAST, EXPIRY_POLL_MS: '50', PAYMENT_WINDOW_SECONDS: '2' }, { databaseUrl: a.srv.databaseUrl });
  t.equal(a.srv.services.membership.alone(), false, 'A stopped trusting memory before B started serving');

  await until('B expired the payment', async () => (await a.db.query('SELECT status FROM payments WHERE id = $1', [id])).rows[0].status === 'expired');
  const g2 = await a.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(g2.body.status, 'expired', 'A shows the write B made');
  t.equal(g2.body.failure.code, 'expired');

  await b.close();
  b = null;
  await until('A alone again', () => a.srv.services.membership.alone());
  const g3 = await a.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(g3.body.status, 'expired', 'no stale entry survives the time A was not alone');
});

t.test('an order_id read and another merchant never come from the cache', async (t) => {
  const a = await startTestServer(t, FAST);
  const m = await a.merchant();
  const other = await a.merchant();
  await until('alone', () => a.srv.services.membership.alone());
  const p = await a.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 5, order_id: 'ord' } });
  t.equal((await a.request('GET', `/api/v2/payments/${p.body.id}`, { key: other.key })).status, 404);
  t.equal((await a.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.liveKey })).status, 404);
  t.equal((await a.request('GET', '/api/v2/payments/ord', { key: m.key })).body.id, p.body.id);
});
