// SSRF: webhook targets that point inside are refused when saved (every spelling of a literal
// address) and again after resolution at delivery time, with the connection made to the checked
// address. Only loopback is ever contacted by this test.
import t from 'tap';
import { testPool } from '../helpers/env.js';
import { WebhookDispatcher } from '../../actors/webhook-dispatcher.js';
import { insertEventWithDelivery, upsertSettings } from '../../src/store/webhooks-repo.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

// WEBHOOK_ALLOW_PRIVATE is off, and so is the embedded default's loopback allowance for test mode.
const s = await startTestServer(t, { WEBHOOK_DISPATCH: '0', WEBHOOK_LOOPBACK_TEST: '0' });
const rx = await startReceiver();
t.teardown(() => rx.close());
const port = new URL(rx.url).port;
const m = await s.merchant();

t.test('literal internal addresses are refused at save, in every spelling', async (t) => {
  const hosts = ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]',
    '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '[fd00::1]', '[fe80::1]', '0.0.0.0', '[::]', 'localhost', 'metadata.google.internal'];
  for (const h of hosts) {
    const r = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: `http://${h}:${port}/hooks` });
    t.equal(r.status, 422, h);
    t.equal(r.body.error.code, 'webhook_url_invalid', h);
    t.match(r.body.error.message, /(address_not_allowed|host_not_allowed)/, `${h}: the rule is named`);
    if (/^(127|10\.|172|192|100|\[::1|\[fd|localhost|\[::ffff|2130|0x7f|0177)/.test(h)) t.match(r.body.error.message, /WEBHOOK_ALLOW_PRIVATE/, `${h}: names the setting that allows it`);
    else t.notMatch(r.body.error.message, /WEBHOOK_ALLOW_PRIVATE/, `${h}: refused in every mode`);
  }
  t.equal(rx.received.length, 0, 'nothing was contacted');
});

const pool = testPool(s.srv.databaseUrl, 2);
t.teardown(() => pool.end());

async function deliverVia(address: string, allowPrivate: boolean) {
  const mm = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: mm.id, api: 'merchant', channelId: null, url: `http://hooks.example:${port}/hooks`, events: null });
  const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: mm.id, livemode: false, api: 'merchant', type: 'test.ping', aggregateId: 'x', data: {}, settingsId: settings.id });
  // A resolver standing in for DNS: the name answers with the given address.
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate, timeoutMs: 1000, leaseMs: 5000, pollMs: 1000, maxInflight: 4, perEndpoint: 2,
    resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
  await d.runOnce(deliveryId);
  return (await pool.query('SELECT status, last_error FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
}

t.test('a name that resolves to loopback is refused at delivery, and nothing is sent', async (t) => {
  const r = await deliverVia('127.0.0.1', false);
  t.equal(r.status, 'pending', 'a failed attempt, retried later');
  t.match(r.last_error, /address_not_allowed/);
  t.equal(rx.received.length, 0);
});

t.test('the IPv4-mapped spelling of loopback from DNS is refused too', async (t) => {
  const r = await deliverVia('::ffff:127.0.0.1', false);
  t.match(r.last_error, /address_not_allowed/);
  t.equal(rx.received.length, 0);
});

t.test('with private targets allowed (local development) the checked address is the one contacted', async (t) => {
  const r = await deliverVia('127.0.0.1', true);
  t.equal(r.status, 'succeeded');
  t.equal(rx.received.length, 1);
  t.equal(rx.received[0].headers.host, `hooks.example:${port}`, 'the Host header keeps the name');
});

t.test('metadata and link-local stay refused even then', async (t) => {
  for (const a of ['169.254.169.254', 'fe80::1']) {
    const r = await deliverVia(a, true);
    t.match(r.last_error, /address_not_allowed/, a);
  }
  t.equal(rx.received.length, 1);
});

t.test('live events are sent only to https', async (t) => {
  const mm = await s.merchant();
  const { settings } = await upsertSettings(pool, { merchantId: mm.id, api: 'merchant', channelId: null, url: `http://hooks.example:${port}/hooks`, events: null });
  const { deliveryId } = await insertEventWithDelivery(pool, { merchantId: mm.id, livemode: true, api: 'merchant', type: 'test.ping', aggregateId: 'x', data: {}, settingsId: settings.id });
  const d = new WebhookDispatcher({ db: pool, publicBaseUrl: s.url, allowPrivate: true, timeoutMs: 1000, leaseMs: 5000, pollMs: 1000, maxInflight: 4, perEndpoint: 2,
    resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
  await d.runOnce(deliveryId);
  const r = (await pool.query('SELECT last_error FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
  t.match(r.last_error, /https_required/);
  t.equal(rx.received.length, 1, 'nothing new was sent');
});
