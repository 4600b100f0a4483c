// payout.paid and payout.failed delivered for real: the gateway envelope with the payout as `data`,
// the X-Svc headers and the sha256= signature under the merchant-wide gateway row's secret; a
// channel's own row gets nothing (a payout belongs to no channel); a row that does not want the
// type gets nothing.
import t from 'tap';
import { createHmac } from 'node:crypto';
import { startTestServer } from '../helpers/server.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import { CARDS, card } from '../helpers/checkout.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100' });
const rx = await startReceiver();
t.teardown(() => rx.close());
const m = await s.merchant({ currencies: ['AZN'] });
const sk = (await s.key(m.id, 'secret', 'test')).key;

const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 5_000 } });
const pay = await s.request('POST', `/checkout/${p.body.id}/pay`, { body: card(CARDS.success) });
if (pay.body?.status !== 'succeeded') throw new Error(pay.text);

const verify = (r: Received, secret: string) => {
  const ts = String(r.headers['x-svc-timestamp']);
  const want = createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
  return String(r.headers['x-svc-signature']).split(',').includes(`sha256=${want}`);
};

t.test('merchant-wide gateway row: one signed delivery per payout, the payout as data; the channel row gets none', async (t) => {
  const wide = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: `${rx.url}/wide` });
  t.ok(wide.status === 200 || wide.status === 201, wide.text);
  t.ok(wide.body.events.includes('payout.paid') && wide.body.events.includes('payout.failed'), 'the gateway event list names the payout events');
  const ch = (await s.request('GET', '/v1/channels', { key: sk })).body.data[0];
  const chRow = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: `${rx.url}/channel`, channel_id: ch.id });
  t.ok(chRow.status === 200 || chRow.status === 201, chRow.text);
  const ok = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: 1_000, currency: 'AZN', destination: { type: 'card', card: CARDS.success } } });
  const ko = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: 700, currency: 'AZN', destination: { type: 'card', card: CARDS.declined } } });
  t.same([ok.body.status, ko.body.status], ['paid', 'failed']);
  const got = await rx.waitFor(2);
  t.same(got.map((r) => r.path).sort(), ['/hooks/wide', '/hooks/wide'], 'both to the merchant-wide row, none to the channel row');
  for (const [payout, type] of [[ok.body, 'payout.paid'], [ko.body, 'payout.failed']] as const) {
    const r = got.find((x) => JSON.parse(x.body).type === type)!;
    t.ok(r, `${type} received`);
    const body = JSON.parse(r.body);
    t.match(body, { id: /^evt_/, type, livemode: false, data: payout }, `${type}: the envelope, data is the payout as the API shows it`);
    t.same(body.data, payout);
    t.equal(r.headers['x-svc-event'], type);
    t.ok(verify(r, wide.body.secret), `${type}: sha256= signature under the row's secret`);
  }
});

t.test('a row that does not want payout events gets none', async (t) => {
  const before = rx.received.length;
  await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: `${rx.url}/wide`, events: ['payment.succeeded'] });
  const r = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: 100, currency: 'AZN', destination: { type: 'card', card: CARDS.success } } });
  t.equal(r.body.status, 'paid');
  const ev = await s.db.query("SELECT id FROM events WHERE aggregate_id = $1 AND type = 'payout.paid'", [r.body.id]);
  t.equal(ev.rowCount, 1, 'the event is recorded');
  const dl = await s.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1', [ev.rows[0].id]);
  t.equal(dl.rows[0].n, 0, 'no delivery queued');
  t.equal(rx.received.length, before);
});
