// Signed webhooks end to end: settings, an outcome committed by an actor, delivery to a real
// receiver, the event log, secret rotation, test ping, resend.
import t from 'tap';
import { until as waitUntil } from '../helpers/wait.js';

const until = (what: string, fn: () => boolean | Promise<boolean>, ms = 10_000) => waitUntil(what, fn, ms, 25);
import { startTestServer } from '../helpers/server.js';
import { histogramCounts } from '../helpers/histogram.js';
import { signatureValid, startReceiver } from '../helpers/receiver.js';


const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', PAYMENT_WINDOW_SECONDS: '1', EXPIRY_POLL_MS: '100', WEBHOOK_POLL_MS: '100' });
const rx = await startReceiver();
t.teardown(() => rx.close());
const m = await s.merchant();

t.test('settings: created with a whsec_ secret, listed, updated in place', async (t) => {
  const put = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: rx.url });
  t.equal(put.status, 201, put.text);
  t.match(put.body, { api: 'merchant', url: rx.url, channel_id: null, secret: /^whsec_[0-9A-Za-z]{32}$/ });
  t.same(put.body.events, ['payment.succeeded', 'payment.failed', 'payment.expired', 'refund.succeeded']);
  const again = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: rx.url, events: ['payment.expired'] });
  t.equal(again.status, 200);
  t.equal(again.body.secret, put.body.secret, 'updating keeps the secret');
  t.same(again.body.events, ['payment.expired']);
  const list = await s.admin('GET', `/internal/merchants/${m.id}/webhook-settings`);
  t.equal(list.body.data.length, 1);
});

t.test('bad settings are refused with the envelope', async (t) => {
  const cases: [unknown, string, string][] = [
    [{ api: 'merchant', url: 'ftp://x.example/h' }, 'webhook_url_invalid', 'url'],
    [{ api: 'merchant', url: 'http://169.254.169.254/latest' }, 'webhook_url_invalid', 'url'],
    [{ api: 'merchant', url: 'not a url' }, 'webhook_url_invalid', 'url'],
    [{ api: 'merchant', url: rx.url, events: ['payment.exploded'] }, 'parameter_invalid', 'events'],
    [{ api: 'merchant', url: rx.url, channel_id: 'ch_1' }, 'parameter_invalid', 'channel_id'],
    [{ api: 'partner', url: rx.url }, 'parameter_invalid', 'api'],
    [{ url: rx.url }, 'parameter_missing', 'api'],
  ];
  for (const [body, code, param] of cases) {
    const r = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, body);
    t.equal(r.status, 422, JSON.stringify(body));
    t.equal(r.body.error.code, code, JSON.stringify(body));
    t.equal(r.body.error.param, param);
  }
  t.equal((await s.admin('PUT', '/internal/merchants/mer_nope/webhook-settings', { api: 'merchant', url: rx.url })).status, 404);
});

t.test('an expired payment is delivered, signed, with the payment as the API renders it', async (t) => {
  const secret = (await s.admin('GET', `/internal/merchants/${m.id}/webhook-settings`)).body.data[0].secret;
  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 2500, order_id: 'wh-1', metadata: { k: 'v' } } });
  const got = await rx.waitFor(1);
  t.equal(got.length, 1);
  const rec = got[0];
  t.ok(signatureValid(rec, secret), 'signature verifies with an independent HMAC');
  t.equal(rec.headers['x-svc-event'], 'payment.expired');
  t.equal(rec.headers['x-svc-attempt'], '1');
  t.equal(rec.headers['content-type'], 'application/json');
  const ev = JSON.parse(rec.body);
  t.equal(rec.headers['x-svc-event-id'], ev.id);
  t.match(ev, { id: /^evt_/, type: 'payment.expired', api_version: '2026-09-22', livemode: false });
  const now = await s.request('GET', `/api/v2/payments/${p.body.id}`, { key: m.key });
  t.same(ev.data.object, { ...now.body, request_id: p.body.request_id }, 'data.object is the payment as GET renders it');
  const ts = Number(/t=(\d+)/.exec(String(rec.headers['x-svc-signature']))![1]);
  t.ok(Math.abs(ts - Date.now() / 1000) < 60);

  const events = await s.admin('GET', `/internal/merchants/${m.id}/events?type=payment.expired`);
  t.equal(events.body.data[0].id, ev.id);
  await until('delivery recorded', async () => (await s.admin('GET', `/internal/merchants/${m.id}/events/${ev.id}/deliveries`)).body.data[0]?.status === 'succeeded');
  const d = await s.admin('GET', `/internal/merchants/${m.id}/events/${ev.id}/deliveries`);
  t.match(d.body.data[0], { status: 'succeeded', attempts: 1, last_status: 200 });
  t.match(d.body.data[0].attempts_log[0], { attempt: 1, status_code: 200, error: null });
  t.ok(d.body.data[0].attempts_log[0].duration_ms >= 0);
});

t.test('events not subscribed to are not sent; payment.created is never sent', async (t) => {
  const before = rx.received.length;
  await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 10 } });
  await rx.waitFor(before + 1);
  t.ok(rx.received.slice(before).every((r) => r.headers['x-svc-event'] === 'payment.expired'));
  // Deliveries are written with their event (outbox): no row, nothing will ever be sent. No wait needed.
  const events = (await s.admin('GET', `/internal/merchants/${m.id}/events?limit=100`)).body.data as { type: string; deliveries: number }[];
  t.ok(events.some((e) => e.type === 'payment.created'), 'payment.created is recorded');
  t.same(events.filter((e) => e.deliveries > 0 && e.type !== 'payment.expired'), [], 'only payment.expired has deliveries');
});

t.test('test ping: a real signature, answered with the attempt', async (t) => {
  const secret = (await s.admin('GET', `/internal/merchants/${m.id}/webhook-settings`)).body.data[0].secret;
  const r = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api: 'merchant' });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { event_id: /^evt_/, delivery: { status: 'succeeded', last_status: 200 } });
  const rec = rx.received.find((x) => x.headers['x-svc-event-id'] === r.body.event_id)!;
  t.ok(rec);
  t.equal(rec.headers['x-svc-event'], 'test.ping');
  t.ok(signatureValid(rec, secret));
  t.equal(JSON.parse(rec.body).data.object.object, 'test');
  t.equal((await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api: 'gateway' })).status, 404, 'no gateway settings yet');
});

t.test('rotation: both secrets sign during the window', async (t) => {
  const old = (await s.admin('GET', `/internal/merchants/${m.id}/webhook-settings`)).body.data[0].secret;
  const rot = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/rotate-secret`, { api: 'merchant', grace_seconds: 3600 });
  t.equal(rot.status, 200);
  t.not(rot.body.secret, old);
  t.ok(rot.body.previous_secret_expires_at);
  const ping = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api: 'merchant' });
  const rec = rx.received.find((x) => x.headers['x-svc-event-id'] === ping.body.event_id)!;
  t.ok(signatureValid(rec, rot.body.secret), 'new secret');
  t.ok(signatureValid(rec, old), 'old secret');
  const now = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/rotate-secret`, { api: 'merchant', grace_seconds: 0 });
  const ping2 = await s.admin('POST', `/internal/merchants/${m.id}/webhook-settings/test`, { api: 'merchant' });
  const rec2 = rx.received.find((x) => x.headers['x-svc-event-id'] === ping2.body.event_id)!;
  t.ok(signatureValid(rec2, now.body.secret));
  t.notOk(signatureValid(rec2, rot.body.secret), 'with no grace the old secret stops at once');
});

t.test('resend: the same event id again', async (t) => {
  const events = await s.admin('GET', `/internal/merchants/${m.id}/events?type=payment.expired&limit=1`);
  const evt = events.body.data[0].id;
  const before = rx.received.filter((x) => x.headers['x-svc-event-id'] === evt).length;
  const r = await s.admin('POST', `/internal/merchants/${m.id}/events/${evt}/resend`);
  t.equal(r.status, 202);
  await until('resent', () => rx.received.filter((x) => x.headers['x-svc-event-id'] === evt).length === before + 1);
  t.equal((await s.admin('POST', `/internal/merchants/${m.id}/events/evt_nope/resend`)).status, 404);
  t.equal((await s.admin('GET', `/internal/merchants/${m.id}/events/evt_nope/deliveries`)).body.error.code, 'event_not_found');
});

t.test('a resent event\'s latency counts from the resend, not from the event', async (t) => {
  // An event two days old, resent now: its new delivery waited milliseconds, not two days. Before,
  // the histograms counted from the event's created_at and put 172,800 s into them.
  const events = await s.admin('GET', `/internal/merchants/${m.id}/events?type=payment.expired&limit=1`);
  const evt = events.body.data[0].id;
  await s.db.query(`UPDATE events SET created_at = created_at - interval '2 days' WHERE id = $1`, [evt]);
  const histogram = async (name: string) => histogramCounts((await s.admin('GET', '/metrics')).text, name, '7200');
  const before = { wait: await histogram('webhook_dispatch_wait_seconds'), latency: await histogram('webhook_delivery_latency_seconds') };
  const received = rx.received.filter((x) => x.headers['x-svc-event-id'] === evt).length;
  t.equal((await s.admin('POST', `/internal/merchants/${m.id}/events/${evt}/resend`)).status, 202);
  await until('resent', () => rx.received.filter((x) => x.headers['x-svc-event-id'] === evt).length === received + 1);
  let after = before;
  await until('observed', async () => {
    after = { wait: await histogram('webhook_dispatch_wait_seconds'), latency: await histogram('webhook_delivery_latency_seconds') };
    return after.wait.count > before.wait.count && after.latency.count > before.latency.count;
  });
  for (const k of ['wait', 'latency'] as const) {
    t.equal(after[k].count - before[k].count, after[k].upTo - before[k].upTo, `${k}: the new samples are all under two hours`);
  }
});
