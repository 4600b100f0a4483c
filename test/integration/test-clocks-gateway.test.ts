// Test clocks (issue 26), gateway API: an authorization (capture_method manual) on a clock is voided
// once the clock passes its 7-day hold, and a checkout session on it expires after its lifetime,
// each with the gateway webhook a real wait gives; objects not on the clock stay as they are; the
// gateway's own envelope for refusals.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100', EXPIRY_POLL_MS: '100' });
const hooks = await startReceiver();
t.teardown(() => hooks.close());
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: hooks.url });
const sk = (await s.key(m.id, 'secret', 'test')).key;
const skLive = (await s.key(m.id, 'secret', 'live')).key;
const DAY = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const G = '/v2/test_helpers/test_clocks';

t.test('advance 7 days: the clocked authorization is voided and the clocked session expired, with their webhooks', async (t) => {
  const start = Date.parse('2026-03-01T12:00:00.000Z');
  const c = await s.request('POST', G, { key: sk, body: { frozen_time: iso(start) } });
  t.equal(c.status, 200, c.text);
  t.match(c.body, { object: 'test_clock', status: 'ready', livemode: false, frozen_time: iso(start) });
  const clock = c.body.id as string;
  const authorize = async (extra: Record<string, unknown>) => {
    const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount: 1000, currency: 'RUB', card: card(CARDS.success), capture_method: 'manual', ...extra } });
    if (r.body?.status !== 'authorized') throw new Error(r.text);
    return r.body.id as string;
  };
  const held = await authorize({ test_clock: clock });
  const wall = await authorize({});
  const row = await s.db.query('SELECT created_at, expires_at FROM payments WHERE id = $1', [held]);
  t.equal(new Date(row.rows[0].created_at).getTime(), start, "the payment's created_at is the clock's");
  t.equal(new Date(row.rows[0].expires_at).getTime(), start + 7 * DAY, 'the hold ends 7 days after, on the clock');
  const session = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 2000, currency: 'RUB', test_clock: clock } });
  t.equal(session.status, 200, session.text);
  const sid = session.body.id as string;
  t.equal(Date.parse(session.body.expires_at), start + DAY, 'the session lives 24 hours on the clock');
  const plain = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 2001, currency: 'RUB' } });

  const adv = await s.request('POST', `${G}/${clock}/advance`, { key: sk, body: { frozen_time: iso(start + 7 * DAY + 60_000) } });
  t.equal(adv.status, 200, adv.text);
  await until('clock ready', async () => (await s.request('GET', `${G}/${clock}`, { key: sk })).body.status === 'ready');
  const voided = await s.request('GET', `/v2/payments/${held}`, { key: sk });
  t.match(voided.body, { status: 'cancelled', error_code: 'expired' });
  const voids = await s.db.query(
    `SELECT count(*)::int AS n FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
     WHERE a.aggregate_id = $1 AND l.operation = 'void' AND l.moved`, [held]);
  t.equal(voids.rows[0].n, 1, 'voided at the bank once, through the attempt protocol');
  const statusOf = async (id: string) => (await s.db.query('SELECT status FROM payments WHERE id = $1', [id])).rows[0].status;
  t.equal(await statusOf(sid), 'expired');
  t.equal(await statusOf(wall), 'authorized', 'an authorization not on the clock is untouched');
  t.equal(await statusOf(plain.body.id), 'pending', 'a session not on the clock is untouched');
  const types = (id: string) => hooks.received.filter((r) => JSON.parse(r.body).data?.payment_id === id).map((r) => r.headers['x-svc-event']);
  t.same(types(held), ['payment.cancelled'], 'payment.cancelled delivered once');
  t.same(types(sid), ['payment.expired'], 'payment.expired delivered once');
  t.same(types(wall), [], 'nothing for the payment not on the clock');
});

t.test('gateway refusals in its own envelope', async (t) => {
  const live = await s.request('POST', G, { key: skLive, body: {} });
  t.same([live.status, live.body.error.code], [403, 'TEST_CLOCK_LIVE_MODE']);
  const missing = await s.request('GET', `${G}/clock_00000000000000000000`, { key: sk });
  t.same([missing.status, missing.body.error.code], [404, 'TEST_CLOCK_NOT_FOUND']);
  const clock = (await s.request('POST', G, { key: sk, body: { name: 'g' } })).body;
  const back = await s.request('POST', `${G}/${clock.id}/advance`, { key: sk, body: { frozen_time: iso(Date.parse(clock.frozen_time) - 1) } });
  t.same([back.status, back.body.error.code, back.body.error.reason, back.body.error.param], [400, 'VALIDATION_ERROR', 'TEST_CLOCK_TIME_INVALID', 'frozen_time']);
  const onLive = await s.request('POST', '/v2/payments/checkout', { key: skLive, body: { amount: 100, currency: 'RUB', test_clock: clock.id } });
  t.same([onLive.status, onLive.body.error?.code], [403, 'TEST_CLOCK_LIVE_MODE']);
  const list = await s.request('GET', G, { key: sk });
  t.ok(list.body.data.some((c: { id: string }) => c.id === clock.id), 'listed');
  const del = await s.request('DELETE', `${G}/${clock.id}`, { key: sk });
  t.match(del.body, { id: clock.id, deleted: true });
});
