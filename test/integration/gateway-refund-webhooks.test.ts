// payment.refunded (gateway spec, Events: "enqueued on each refund call") is delivered for a
// gateway checkout session, to the target its payment.* events go to, in the gateway envelope:
// data carries payment_id, amount, currency, status (refunded or partially_refunded), channel_id
// and channel_code; signed with the target's secret. A merchant API payment's refund is recorded
// only (it has no gateway endpoint).
import crypto from 'node:crypto';
import t from 'tap';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100' });
const [rChannel, rWide, rMerchant] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
t.teardown(() => Promise.all([rChannel.close(), rWide.close(), rMerchant.close()]));

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.key(m.id, 'secret', 'test')).key;
const ch = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'bot', name: 'Bot', webhook_url: rChannel.url } });
if (ch.status !== 200) throw new Error(ch.text);
await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: rWide.url });
// A merchant API endpoint must never see a gateway session's events, refund.succeeded included.
await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: rMerchant.url });

const of = (rec: { received: Received[] }, id: string, type: string) =>
  rec.received.filter((x) => x.headers['x-svc-event'] === type && JSON.parse(x.body).data?.payment_id === id);
const signedBy = (r: Received, secret: string) => {
  const want = crypto.createHmac('sha256', secret).update(`${r.headers['x-svc-timestamp']}.${r.body}`).digest('hex');
  return String(r.headers['x-svc-signature']).split(',').includes(`sha256=${want}`);
};

t.test('each refund of a channel\'s session is delivered as payment.refunded to the channel\'s webhook', async (t) => {
  const cs = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', channel_id: 'bot' } });
  const id = cs.body.id as string;
  const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.body.status, 'succeeded', pay.text);
  const part = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 900 } });
  t.equal(part.status, 200, part.text);
  await until('the partial refund is delivered', () => of(rChannel, id, 'payment.refunded').length === 1);
  const first = of(rChannel, id, 'payment.refunded')[0];
  const body = JSON.parse(first.body);
  t.match(body, {
    id: /^evt_/, type: 'payment.refunded', livemode: false, created_at: /^\d{4}-\d{2}-\d{2}T/,
    data: { payment_id: id, amount: 4900, currency: 'RUB', status: 'partially_refunded', channel_id: ch.body.id, channel_code: 'bot',
      refunded_amount: 900, refund_id: part.body.id, refund_amount: 900 },
  });
  t.equal(body.data.session, undefined, 'no internal fields');
  t.ok(first.headers['x-svc-event-id'] === body.id && first.headers['x-svc-delivery'] && first.headers['x-svc-attempt'] === '1');
  t.ok(signedBy(first, ch.body.webhook_secret), 'signed with the channel\'s secret');
  const rest = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} });
  t.equal(rest.status, 200, rest.text);
  await until('the second refund is delivered', () => of(rChannel, id, 'payment.refunded').length === 2);
  const second = JSON.parse(of(rChannel, id, 'payment.refunded')[1].body);
  t.match(second.data, { status: 'refunded', refunded_amount: 4900, refund_id: rest.body.id, refund_amount: 4000 }, 'the refund it is about');
  t.not(second.id, body.id, 'one event per refund call');
  t.equal(of(rWide, id, 'payment.refunded').length, 0, 'only the resolved target gets it');
  const merchantSide = await s.db.query("SELECT count(*)::int AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.aggregate_id = $1 AND d.api = 'merchant'", [id]);
  t.equal(merchantSide.rows[0].n, 0, 'no merchant API delivery (refund.succeeded) for a gateway session');
  t.notOk(rMerchant.received.some((x) => x.body.includes(id)), 'the merchant API endpoint got nothing of it');
});

t.test('a merchant API payment\'s refund is recorded, never sent to a gateway endpoint', async (t) => {
  const id = await newPayment(s, m.key);
  await s.request('POST', `/api/v2/test/payments/${id}/complete`, { key: m.key, body: { outcome: 'succeeded' } });
  const r = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, body: { amount: 100 } });
  t.equal(r.status, 201, r.text);
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.refunded'", [id]);
  t.equal(ev.rows[0].n, 1, 'recorded');
  const dl = await s.db.query("SELECT count(*)::int AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.aggregate_id = $1 AND d.api = 'gateway'", [id]);
  t.equal(dl.rows[0].n, 0, 'no gateway delivery');
  await until('its refund.succeeded reached the merchant API endpoint', () => rMerchant.received.some((x) => x.headers['x-svc-event'] === 'refund.succeeded' && x.body.includes(id)));
});
