// Gateway webhooks of checkout sessions, with four local receivers: the target is resolved in the
// spec's order (the session's webhook_url, the channel's webhook, the channel-scoped settings row,
// the merchant-wide row), each signed with the secret of its source, and the data is the gateway's
// flat summary with the session's status, channel_id and channel_code.
import crypto from 'node:crypto';
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100', EXPIRY_POLL_MS: '100' });
const [rSession, rChannel, rRow, rWide] = await Promise.all([1, 2, 3, 4].map(() => startReceiver()));
t.teardown(() => Promise.all([rSession, rChannel, rRow, rWide].map((r) => r.close())));

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;
const ch = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'bot', name: 'Bot', webhook_url: rChannel.url } });
const plain = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'pos', name: 'POS' } });
const row = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: rRow.url, channel_id: ch.body.id });
const wide = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: rWide.url });
// A merchant API endpoint must never see a gateway session's events.
const merchantHook = await startReceiver();
t.teardown(() => merchantHook.close());
await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: merchantHook.url });

const signedBy = (r: Received, secret: string) => {
  const ts = Number(r.headers['x-svc-timestamp']);
  const want = crypto.createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
  return String(r.headers['x-svc-signature']).split(',').includes(`sha256=${want}`);
};

async function paidSession(body: Record<string, unknown>) {
  const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', ...body } });
  if (r.status !== 200) throw new Error(r.text);
  const pay = await s.request('POST', `/checkout/${r.body.id}/pay`, { body: card(CARDS.success) });
  if (pay.body.status !== 'succeeded') throw new Error(pay.text);
  return r.body.id as string;
}

const find = (rec: { received: Received[] }, id: string) => rec.received.filter((x) => JSON.parse(x.body).data.payment_id === id);

t.test('1. the session\'s webhook_url first, signed with its channel\'s secret', async (t) => {
  t.equal(ch.status, 200, ch.text);
  t.equal(row.status, 201, row.text);
  const id = await paidSession({ channel_id: 'bot', webhook_url: rSession.url });
  await until('the session receiver got it', () => find(rSession, id).length === 1);
  const got = find(rSession, id)[0];
  const body = JSON.parse(got.body);
  t.match(body, { type: 'payment.succeeded', livemode: false, data: { payment_id: id, amount: 4900, currency: 'RUB', status: 'succeeded', channel_id: ch.body.id, channel_code: 'bot' } });
  t.match(body.id, /^evt_/);
  t.equal(got.headers['x-svc-event'], 'payment.succeeded');
  t.ok(got.headers['x-svc-delivery'] && got.headers['x-svc-event-id'] === body.id && got.headers['x-svc-attempt'] === '1');
  t.ok(signedBy(got, ch.body.webhook_secret), 'signed with the channel\'s secret');
  t.notOk(JSON.stringify(body).includes(CARDS.success), 'no card number');
  t.same([find(rChannel, id).length, find(rRow, id).length, find(rWide, id).length], [0, 0, 0], 'nobody else');
});

t.test('2. the channel\'s webhook when the session names none', async (t) => {
  const id = await paidSession({ channel_id: 'bot' });
  await until('the channel receiver got it', () => find(rChannel, id).length === 1);
  t.ok(signedBy(find(rChannel, id)[0], ch.body.webhook_secret));
  t.same([find(rSession, id).length, find(rRow, id).length, find(rWide, id).length], [0, 0, 0]);
});

t.test('3. the channel-scoped settings row when the channel has no webhook', async (t) => {
  const cleared = await s.request('PATCH', `/v1/channels/${ch.body.id}`, { key: sk, body: { webhook_url: null } });
  t.equal(cleared.status, 200, cleared.text);
  const id = await paidSession({ channel_id: 'bot' });
  await until('the row receiver got it', () => find(rRow, id).length === 1);
  t.ok(signedBy(find(rRow, id)[0], row.body.secret));
  t.same([find(rSession, id).length, find(rChannel, id).length, find(rWide, id).length], [0, 0, 0]);
});

t.test('4. the merchant-wide row for a channel with neither', async (t) => {
  const id = await paidSession({ channel_id: plain.body.id });
  await until('the merchant-wide receiver got it', () => find(rWide, id).length === 1);
  const body = JSON.parse(find(rWide, id)[0].body);
  t.match(body.data, { channel_id: plain.body.id, channel_code: 'pos' });
  t.ok(signedBy(find(rWide, id)[0], wide.body.secret));
  t.same([find(rSession, id).length, find(rChannel, id).length, find(rRow, id).length], [0, 0, 0]);
});

t.test('failure, requires_action, cancel and expiry events reach the session\'s target', async (t) => {
  const declined = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', webhook_url: rSession.url } });
  await s.request('POST', `/checkout/${declined.body.id}/pay`, { body: card(CARDS.declined) });
  const challenged = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', webhook_url: rSession.url } });
  await s.request('POST', `/checkout/${challenged.body.id}/pay`, { body: card(CARDS.challenge) });
  const cancelled = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', webhook_url: rSession.url } });
  await s.request('POST', `/checkout/${cancelled.body.id}/cancel`, { body: {} });
  const expired = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', webhook_url: rSession.url } });
  await s.db.query("UPDATE payments SET expires_at = now() - interval '1 second', due_at = payment_due_at(status, now() - interval '1 second', pending_attempt) WHERE id = $1", [expired.body.id]);
  const typeOf = (id: string) => find(rSession, id).map((x) => JSON.parse(x.body).type);
  await until('four events', () => typeOf(declined.body.id).length + typeOf(challenged.body.id).length + typeOf(cancelled.body.id).length + typeOf(expired.body.id).length === 4);
  t.same(typeOf(declined.body.id), ['payment.failed']);
  t.match(JSON.parse(find(rSession, declined.body.id)[0].body).data, { status: 'failed', error_code: 'CARD_DECLINED' });
  t.same(typeOf(challenged.body.id), ['payment.requires_action']);
  t.match(JSON.parse(find(rSession, challenged.body.id)[0].body).data, { status: 'requires_action' });
  t.same(typeOf(cancelled.body.id), ['payment.cancelled']);
  t.same(typeOf(expired.body.id), ['payment.expired']);
  t.equal(merchantHook.received.length, 0, 'the merchant API endpoint got none of the sessions\' events');
});
