// Authorization expiry: an authorized, uncaptured direct payment (capture_method manual) is voided
// by the expiry sweep once AUTHORIZATION_WINDOW_SECONDS have passed, through the void attempt path
// (one `void` at the sandbox bank), with the same payment.cancelled event as a merchant's cancel and
// error_code expired. Two servers on one database void each lapsed authorization exactly once; an
// authorization whose hold has not lapsed (made by a server with the default 7-day window) is left
// alone and can still be captured.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const env = { AUTHORIZATION_WINDOW_SECONDS: '2', EXPIRY_POLL_MS: '50' };
const a = await startTestServer(t, env);
const b = await startTestServer(t, env, { databaseUrl: a.srv.databaseUrl });
const week = await startTestServer(t, { WORKERS: '1' }, { databaseUrl: a.srv.databaseUrl });
const m = await a.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await a.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
const sk = (await a.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

t.test('lapsed authorizations are voided once each, across two servers; one still held is left alone', async (t) => {
  const authorize = async (s: typeof a, amount: number) => {
    const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount, currency: 'RUB', card: card(CARDS.success), capture_method: 'manual' } });
    if (r.body?.status !== 'authorized') throw new Error(r.text);
    return r.body.id as string;
  };
  const held7d = await authorize(week, 999);
  const ids = await Promise.all(Array.from({ length: 9 }, (_, i) => authorize(i % 2 ? b : a, 1000 + i)));
  const held = await a.db.query('SELECT id, expires_at, updated_at FROM payments WHERE id = ANY($1)', [ids]);
  t.ok(held.rows.every((r) => Date.parse(r.expires_at) - Date.parse(r.updated_at) === 2000), 'the hold ends AUTHORIZATION_WINDOW_SECONDS after the authorization');
  const statuses = async () => (await a.db.query('SELECT status FROM payments WHERE id = ANY($1)', [ids])).rows.map((r) => r.status as string);
  await until('every lapsed authorization voided', async () => (await statuses()).every((x) => x === 'cancelled'));
  const got = await b.request('GET', `/v2/payments/${ids[0]}`, { key: sk });
  t.match(got.body, { status: 'cancelled', error_code: 'expired', error_message: /lapsed/ });
  const voids = await a.db.query(
    `SELECT a.aggregate_id, count(*)::int AS n FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
     WHERE a.aggregate_id = ANY($1) AND l.operation = 'void' AND l.moved GROUP BY a.aggregate_id`, [ids]);
  t.equal(voids.rows.length, ids.length, 'every one voided at the bank');
  t.ok(voids.rows.every((r) => r.n === 1), 'exactly once each');
  const ev = await a.db.query(
    "SELECT aggregate_id, count(*)::int AS n FROM events WHERE aggregate_id = ANY($1) AND type = 'payment.cancelled' GROUP BY aggregate_id", [ids]);
  t.equal(ev.rows.length, ids.length);
  t.ok(ev.rows.every((r) => r.n === 1), 'one payment.cancelled each, as for a cancel');
  const kept = await a.db.query('SELECT status, expires_at, updated_at FROM payments WHERE id = $1', [held7d]);
  t.equal(kept.rows[0].status, 'authorized', 'an authorization still held is not touched');
  t.equal(Date.parse(kept.rows[0].expires_at) - Date.parse(kept.rows[0].updated_at), 7 * 24 * 3600 * 1000, 'the default hold is 7 days');
  const cap = await a.request('POST', `/v2/payments/${held7d}/capture`, { key: sk, body: {} });
  t.equal(cap.body.status, 'succeeded', 'and it can be captured');
  const late = await a.request('POST', `/v2/payments/${ids[1]}/capture`, { key: sk, body: {} });
  t.same([late.status, late.body.error.code], [409, 'PAYMENT_NOT_CAPTURABLE'], 'a lapsed authorization cannot be captured');
});
