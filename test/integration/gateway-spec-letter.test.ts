// The gateway API to the letter (issue 23): what a client written from spec/gateway-api.md would
// hit. Each test is named after the spec's sentence it checks.
import t from 'tap';
import { answerChallenge, card, CARDS } from '../helpers/checkout.js';
import { PG_URL } from '../helpers/env.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { buildOpenApi } from '../../src/api/openapi.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100' });
const hook = await startReceiver();
t.teardown(() => hook.close());

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const other = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const issue = async (merchant: string, kind: string, mode: string) => {
  const r = await s.admin('POST', `/internal/merchants/${merchant}/api-keys`, { kind, mode });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.key as string;
};
const sk = await issue(m.id, 'secret', 'test');
const skLive = await issue(m.id, 'secret', 'live');
const pk = await issue(m.id, 'publishable', 'test');
const otherSk = await issue(other.id, 'secret', 'test');

async function session(body: Record<string, unknown> = {}, key = sk) {
  const r = await s.request('POST', '/v2/payments/checkout', { key, body: { amount: 4900, currency: 'RUB', ...body } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.id as string;
}
async function paid(body: Record<string, unknown> = {}) {
  const id = await session(body);
  const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  if (pay.body?.status !== 'succeeded') throw new Error(pay.text);
  return id;
}
const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((p) => p.id);

t.test('Payments rule 1: "GET /v2/payments/{id} (and the list) look a payment up by payment_id, order_id, checkout session id or upstream reference"', async (t) => {
  const a = await session({ order_id: 'letter-1' });
  const b = await paid({ order_id: 'letter-1' });
  const c = await paid({ order_id: 'letter-2' });
  const foreign = await s.request('POST', '/v2/payments/checkout', { key: otherSk, body: { amount: 100, currency: 'RUB', order_id: 'letter-1' } });
  const ref = (await s.request('GET', `/v2/payments/${b}`, { key: sk })).body.connector_transaction_id as string;
  t.match(ref, /^att_/);
  const list = (q: string, key = sk) => s.request('GET', `/v2/payments?${q}`, { key });

  t.same(ids(await list('payment_id=' + a)), [a], 'payment_id');
  t.same(ids(await list('checkout_session_id=' + c)), [c], 'checkout_session_id');
  t.same(ids(await list('order_id=letter-1')), [b, a], 'order_id: every payment with it, newest first');
  t.same(ids(await list('reference=' + ref)), [b], 'reference: the upstream reference (connector_transaction_id)');
  // They combine, with each other and with status, from and to.
  t.same(ids(await list('order_id=letter-1&status=succeeded')), [b], 'order_id and status');
  t.same(ids(await list('order_id=letter-1&status=pending')), [a], 'order_id and another status');
  t.same(ids(await list(`order_id=letter-2&reference=${ref}`)), [], 'order_id and the reference of another order: none');
  t.same(ids(await list(`order_id=letter-1&reference=${ref}`)), [b], 'order_id and reference');
  t.same(ids(await list(`payment_id=${a}&checkout_session_id=${b}`)), [], 'two different ids: none');
  t.same(ids(await list(`order_id=letter-1&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)), [], 'order_id and from');
  const page = await list('order_id=letter-1&limit=1');
  t.match(page.body, { total: 2, has_more: true }, 'the total counts the filter');
  t.same(ids(await list(`payment_id=${foreign.body.id}`)), [], 'another merchant\'s payment is not found');
  t.same(ids(await list('order_id=letter-1', otherSk)), [foreign.body.id], 'another merchant sees only its own order');
  for (const [q, param] of [[`order_id=${'x'.repeat(129)}`, 'order_id'], ['reference=a&reference=b', 'reference'], ['payment_id=', 'payment_id'], ['session_id=cs_1', 'session_id']] as const) {
    const r = await list(q);
    t.same([r.status, r.body.error.code, r.body.error.param], [400, 'VALIDATION_ERROR', param], q.slice(0, 40));
  }
  // Documented in the OpenAPI document, each on an index scoped by the merchant.
  const params = (buildOpenApi('https://pay.example.org') as any).paths['/v2/payments'].get.parameters.map((p: { name: string }) => p.name);
  for (const name of ['payment_id', 'order_id', 'checkout_session_id', 'reference']) t.ok(params.includes(name), `OpenAPI names ${name}`);
  const idx = await s.db.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'payments' AND indexname = 'payments_order'");
  t.match(idx.rows[0]?.indexdef, /\(merchant_id, livemode, order_id/, 'order_id: payments_order (merchant_id, livemode, order_id, …)');
  // A table this small is read whole by choice: with sequential scans off, the planner shows the index it can use.
  const client = await s.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    const plan = await client.query('EXPLAIN SELECT 1 FROM payments p WHERE p.merchant_id = $1 AND p.livemode = false AND p.order_id = $2', [m.id, 'letter-1']);
    t.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /payments_order/, 'the order_id filter uses payments_order');
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
});

t.test('"Resources carry a boolean `livemode`": payment, session, refund, payout, balance, channel, widget session', async (t) => {
  const id = await paid();
  const live = await session({}, skLive);
  const got: [string, unknown][] = [];
  got.push(['payment', (await s.request('GET', `/v2/payments/${id}`, { key: sk })).body.livemode]);
  got.push(['payment (live key)', (await s.request('GET', `/v2/payments/${live}`, { key: skLive })).body.livemode]);
  got.push(['session', (await s.request('GET', `/v2/payments/checkout/${id}`, { key: sk })).body.livemode]);
  got.push(['session (live key)', (await s.request('GET', `/v2/payments/checkout/${live}`, { key: skLive })).body.livemode]);
  got.push(['refund', (await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 100 } })).body.livemode]);
  const payout = await s.request('POST', '/v2/payouts', { key: sk, body: { amount: 100, currency: 'RUB', destination: { type: 'sbp', phone: '+79001234567' } } });
  t.equal(payout.status, 200, payout.text);
  got.push(['payout', payout.body.livemode]);
  got.push(['balance', (await s.request('GET', '/v2/balance', { key: sk })).body.livemode]);
  got.push(['balance (live key)', (await s.request('GET', '/v2/balance', { key: skLive })).body.livemode]);
  got.push(['channel', (await s.request('GET', '/v1/channels', { key: sk })).body.data[0].livemode]);
  got.push(['widget session', (await s.request('POST', '/widget/v1/session', { key: pk, body: { amount: 4900, currency: 'RUB' } })).body.livemode]);
  got.push(['widget session (secret key)', (await s.request('POST', '/widget/v1/session', { key: sk, body: { amount: 4900, currency: 'RUB' } })).body.livemode]);
  t.same(got, got.map(([what]) => [what, what.includes('live key')]), 'a boolean on each, true exactly with a live key');
});

t.test('payment.requires_action "fires when a 3DS challenge URL is available", with the challenge URL in the payload; SBP QR and wallet redirects send none', async (t) => {
  const tds = await session({ webhook_url: hook.url });
  const challenged = await s.request('POST', `/checkout/${tds}/pay`, { body: card(CARDS.challenge) });
  t.equal(challenged.body.status, 'requires_action', challenged.text);
  const sbp = await session({ webhook_url: hook.url });
  t.equal((await s.request('POST', `/checkout/${sbp}/submit-method`, { body: { method_code: 'sbp' } })).body.next_action?.type, 'show_qr');
  const wallet = await session({ webhook_url: hook.url });
  t.equal((await s.request('POST', `/checkout/${wallet}/submit-method`, { body: { method_code: 'yoomoney' } })).body.next_action?.type, 'redirect');
  const sent = (id: string) => hook.received.map((r) => JSON.parse(r.body)).filter((e) => e.data.payment_id === id);
  await until('the 3-D Secure event', () => sent(tds).length === 1);
  const ev = sent(tds)[0];
  t.equal(ev.type, 'payment.requires_action');
  t.match(ev.data, { status: 'requires_action', next_action: { type: 'three_ds_challenge', acs_url: /^https?:\/\//, creq: String } });
  t.equal(ev.data.next_action.acs_url, challenged.body.next_action.acs_url, 'the challenge URL the payer is sent to');
  // The other two record no payment.requires_action at all (so none is queued, now or later).
  const recorded = await s.db.query("SELECT aggregate_id FROM events WHERE type = 'payment.requires_action' AND aggregate_id = ANY($1)", [[tds, sbp, wallet]]);
  t.same(recorded.rows.map((r) => r.aggregate_id), [tds], 'only the 3-D Secure session recorded the event');
  // The delivery keeps the challenge even when sent after the payer answered it.
  t.equal(await answerChallenge(s, tds, challenged.body.next_action.creq, 'Y'), 302);
  await until('payment.succeeded', () => sent(tds).length === 2);
  t.notOk('next_action' in sent(tds)[1].data, 'payment.succeeded carries no next_action');
});

t.test('Refund "Errors 400, 404": an unpaid or fully refunded payment is 400, the message naming the payment\'s state', async (t) => {
  const open = await session();
  const r = await s.request('POST', `/v2/payments/${open}/refund`, { key: sk, body: {} });
  t.same([r.status, r.body.error.code, r.body.error.reason, r.body.error.param], [400, 'VALIDATION_ERROR', 'PAYMENT_NOT_REFUNDABLE', 'id'], r.text);
  t.match(r.body.error, { payment_status: 'pending', remaining: 0 });
  t.match(r.body.error.message, /the payment is pending, not paid/);
  const id = await paid();
  t.equal((await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} })).status, 200);
  const again = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} });
  t.same([again.status, again.body.error.reason, again.body.error.payment_status], [400, 'PAYMENT_NOT_REFUNDABLE', 'refunded'], again.text);
  t.match(again.body.error.message, /the payment is refunded: nothing is left to refund/);
  const ru = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {}, headers: { 'accept-language': 'ru' } });
  t.match(ru.body.error.message, /Вернуть можно только оплаченный платёж/, 'localised');
});

t.test('success_url / cancel_url are "string uri": http is accepted in test mode (localhost too), live mode keeps https', async (t) => {
  for (const body of [{ success_url: 'http://localhost:3000/ok' }, { cancel_url: 'http://127.0.0.1:8080/cancel' }, { success_url: 'http://shop.example/ok' },
    { settings: { success_url: 'http://localhost/ok', cancel_url: 'http://[::1]/c' } }, { success_url: 'https://shop.example/ok' }]) {
    const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', ...body } });
    t.equal(r.status, 200, `test mode: ${JSON.stringify(body)} ${r.text.slice(0, 200)}`);
  }
  const stored = await session({ success_url: 'http://localhost:3000/ok' });
  const row = await s.db.query("SELECT session->>'successUrl' AS u FROM payments WHERE id = $1", [stored]);
  t.equal(row.rows[0].u, 'http://localhost:3000/ok', 'kept as given');
  for (const [body, param] of [[{ success_url: 'http://shop.example/ok' }, 'success_url'], [{ cancel_url: 'https://localhost/c' }, 'cancel_url'],
    [{ settings: { cancel_url: 'http://shop.example/c' } }, 'settings.cancel_url']] as const) {
    const r = await s.request('POST', '/v2/payments/checkout', { key: skLive, body: { amount: 4900, currency: 'RUB', ...body } });
    t.same([r.status, r.body.error.reason, r.body.error.param], [400, 'RETURN_URL_INVALID', param], `live mode: ${JSON.stringify(body)}`);
    t.match(r.body.error.message, new RegExp(`${param}: .*public https URL.*live mode takes public https URLs only; a test key also accepts http and localhost`));
  }
  for (const url of ['http://10.0.0.5/ok', 'ftp://shop.example/ok', 'http://169.254.169.254/']) {
    const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', success_url: url } });
    t.same([r.status, r.body.error.reason], [400, 'RETURN_URL_INVALID'], `test mode still refuses ${url}`);
    t.match(r.body.error.message, /a test key accepts http or https on a public host or on localhost/);
  }
});

t.test('merchant API return_url is a "public https URL"; test mode on the embedded default also takes loopback http, as webhooks do, and says so', async (t) => {
  const mm = await s.merchant();
  const create = (key: string, url: string) => s.request('POST', '/api/v2/payments', { key, body: { amount: 100, return_url: url } });
  const loop = await create(mm.key, 'http://localhost:3000/back');
  if (PG_URL) {
    // DATABASE_URL set: not the embedded default, so loopback stays refused.
    t.same([loop.status, loop.body.error.code], [422, 'return_url_invalid'], loop.text);
    t.notMatch(loop.body.error.message, /localhost/);
  } else {
    t.equal(loop.status, 201, `embedded default, test key: ${loop.text}`);
    t.equal(loop.body.return_url, 'http://localhost:3000/back');
    const elsewhere = await create(mm.key, 'http://shop.example/back');
    t.same([elsewhere.status, elsewhere.body.error.code], [422, 'return_url_invalid']);
    t.match(elsewhere.body.error.message, /in test mode on this development server, http:\/\/localhost is accepted too/);
  }
  const liveLoop = await create(mm.liveKey, 'http://localhost:3000/back');
  t.same([liveLoop.status, liveLoop.body.error.code], [422, 'return_url_invalid'], 'a live key never');
  t.equal((await create(mm.key, 'https://shop.example/back')).status, 201);
});
