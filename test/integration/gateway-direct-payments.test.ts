// Gateway direct payments over HTTP: POST /v2/payments with raw card data only for a merchant the
// operator allowed, card checks naming the field (never echoing the number), the sandbox's test cards
// deciding the outcome (3-D Secure -> requires_action with the challenge), capture_method manual with
// capture (partial) and cancel, 409 in the wrong state, and idempotency.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const s = await startTestServer(t, {});

async function issue(srv: TestServer, merchant: string, body: Record<string, unknown>) {
  const r = await srv.admin('POST', `/internal/merchants/${merchant}/api-keys`, body);
  if (r.status !== 201) throw new Error(`key: ${r.text}`);
  return r.body as { id: string; key: string };
}

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await issue(s, m.id, { kind: 'secret', mode: 'test' })).key;
const pay = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.request('POST', '/v2/payments', { key: sk, body: { amount: 5000, currency: 'RUB', ...body }, headers });
const cardOf = (n: string, extra: Record<string, unknown> = {}) => ({ ...card(n), ...extra });

t.test('raw card data only for a merchant the operator marked', async (t) => {
  const r = await pay({ card: cardOf(CARDS.success) });
  t.equal(r.status, 403, r.text);
  t.equal(r.body.error.code, 'CARD_DATA_NOT_ALLOWED');
  t.notOk(r.text.includes(CARDS.success));
  const n = await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id]);
  t.equal(n.rows[0].n, 0, 'nothing created');
  const patched = await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
  t.equal(patched.status, 200, patched.text);
  t.equal(patched.body.card_data_allowed, true);
});

t.test('automatic capture: the sandbox card decides; the answer is the Payment', async (t) => {
  const ok = await pay({ card: cardOf(CARDS.success), order_id: 'd-1', customer: { email: 'c@example.com' }, metadata: { k: 'v' } });
  t.equal(ok.status, 200, ok.text);
  t.match(ok.body, { status: 'succeeded', amount: 5000, currency: 'RUB', payment_method: 'card', source: 'api', card_last4: '4242', card_brand: 'visa',
    customer_email: 'c@example.com', order_id: 'd-1', metadata: { k: 'v' }, refunded_amount: 0, refund_count: 0, error_code: null });
  t.match(ok.body.id, /^cs_/);
  t.equal(ok.body.payment_id, ok.body.id);
  t.equal(ok.body.checkout_session_id, ok.body.id);
  t.match(ok.body.connector_transaction_id, /^att_/);
  t.notOk(ok.text.includes(CARDS.success), 'the number is never echoed');
  const stored = await s.db.query('SELECT row_to_json(p)::text AS j FROM payments p WHERE id = $1', [ok.body.id]);
  t.notOk(stored.rows[0].j.includes(CARDS.success) || stored.rows[0].j.includes('"731"'), 'neither number nor CVC stored');
  const declined = await pay({ card: cardOf(CARDS.insufficient) });
  t.equal(declined.status, 200);
  t.match(declined.body, { status: 'failed', error_code: 'insufficient_funds', card_last4: '9995' });
  t.equal((await s.request('GET', `/v2/payments/${ok.body.id}`, { key: sk })).body.status, 'succeeded');
});

t.test('a 3-D Secure card answers requires_action with the challenge, and payment.requires_action is recorded', async (t) => {
  const r = await pay({ card: cardOf(CARDS.challenge) });
  t.equal(r.status, 200, r.text);
  t.equal(r.body.status, 'requires_action');
  t.equal(r.body.next_action.type, 'three_ds_challenge');
  t.match(r.body.next_action.acs_url, /^http/);
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.requires_action'", [r.body.id]);
  t.equal(ev.rows[0].n, 1);
});

t.test('card checks name the field and never echo the number', async (t) => {
  const bad = '4242424242424241';
  for (const [c, param, reason] of [
    [cardOf(bad), 'card.number', 'CARD_NUMBER_INVALID'],
    [cardOf(CARDS.success, { exp_year: '2034' }), 'card.exp_year', null],
    [cardOf(CARDS.success, { exp_year: '20' }), 'card.exp_year', 'CARD_EXPIRY_INVALID'],
    [cardOf(CARDS.success, { exp_month: '13' }), 'card.exp_month', 'CARD_EXPIRY_INVALID'],
    [cardOf(CARDS.success, { cvc: '1' }), 'card.cvc', null],
    [cardOf(CARDS.success, { cvc: 'abc' }), 'card.cvc', null],
    [{ ...cardOf(CARDS.success), pin: '1' }, 'card.pin', null],
  ] as const) {
    const r = await pay({ card: c });
    t.equal(r.status, 400, `${param}: ${r.text}`);
    t.equal(r.body.error.code, 'VALIDATION_ERROR');
    t.equal(r.body.error.param, param);
    if (reason) t.equal(r.body.error.reason, reason);
    t.notOk(r.text.includes(bad) || r.text.includes(CARDS.success), 'no card number in the answer');
  }
  for (const [body, param] of [[{ payment_method: 'token' }, 'token'], [{ payment_method: 'wallet' }, 'wallet'], [{}, 'card'],
    [{ payment_method: 'cash', card: cardOf(CARDS.success) }, 'payment_method'], [{ capture_method: 'later', card: cardOf(CARDS.success) }, 'capture_method'],
    [{ amount: 0, card: cardOf(CARDS.success) }, 'amount']] as const) {
    const r = await pay(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.param, param, JSON.stringify(body));
  }
});

t.test('manual capture: authorized, then a partial capture (the rest released) or a cancel; the wrong state is 409', async (t) => {
  const a = await pay({ card: cardOf(CARDS.success), capture_method: 'manual' });
  t.equal(a.status, 200, a.text);
  t.equal(a.body.status, 'authorized');
  const over = await s.request('POST', `/v2/payments/${a.body.id}/capture`, { key: sk, body: { amount: 5001 } });
  t.equal(over.status, 400, over.text);
  t.equal(over.body.error.reason, 'CAPTURE_AMOUNT_INVALID');
  const cap = await s.request('POST', `/v2/payments/${a.body.id}/capture`, { key: sk, body: { amount: 3000 } });
  t.equal(cap.status, 200, cap.text);
  t.match(cap.body, { status: 'succeeded', amount: 3000 });
  const again = await s.request('POST', `/v2/payments/${a.body.id}/capture`, { key: sk, body: {} });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'PAYMENT_NOT_CAPTURABLE');
  const lateCancel = await s.request('POST', `/v2/payments/${a.body.id}/cancel`, { key: sk, body: {} });
  t.equal(lateCancel.status, 409);
  t.equal(lateCancel.body.error.code, 'PAYMENT_NOT_CANCELLABLE');
  const refund = await s.request('POST', `/v2/payments/${a.body.id}/refund`, { key: sk, body: {} });
  t.match(refund.body, { status: 'refunded', amount_refunded: 3000, remaining: 0 }, 'a refund returns what was captured');

  const b = await pay({ card: cardOf(CARDS.success), capture_method: 'manual' });
  const cancel = await s.request('POST', `/v2/payments/${b.body.id}/cancel`, { key: sk, body: {} });
  t.equal(cancel.status, 200, cancel.text);
  t.equal(cancel.body.status, 'cancelled');
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.cancelled'", [b.body.id]);
  t.equal(ev.rows[0].n, 1);
  t.equal((await s.request('POST', `/v2/payments/${b.body.id}/capture`, { key: sk, body: {} })).status, 409);
  const auto = await pay({ card: cardOf(CARDS.success) });
  t.equal((await s.request('POST', `/v2/payments/${auto.body.id}/capture`, { key: sk, body: {} })).body.error.code, 'PAYMENT_NOT_CAPTURABLE');
});

t.test('Idempotency-Key: the same request once, replayed; another body is 409', async (t) => {
  const key = `direct-${Date.now()}`;
  const first = await pay({ card: cardOf(CARDS.success) }, { 'idempotency-key': key });
  t.equal(first.status, 200, first.text);
  const second = await pay({ card: cardOf(CARDS.success) }, { 'idempotency-key': key });
  t.equal(second.status, 200);
  t.equal(second.body.id, first.body.id);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
  const other = await pay({ card: cardOf(CARDS.success), amount: 5001 }, { 'idempotency-key': key });
  t.equal(other.status, 409);
  const rows = await s.db.query('SELECT count(*)::int AS n FROM payments WHERE idempotency_key = $1', [key]);
  t.equal(rows.rows[0].n, 1);
  const attempts = await s.db.query('SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1', [first.body.id]);
  t.equal(attempts.rows[0].n, 1, 'the bank was asked once');
});

t.test('payment_method token (a saved card of this customer) and wallet; neither needs card_data_allowed', async (t) => {
  const mm = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const key = (await issue(s, mm.id, { kind: 'secret', mode: 'test' })).key;
  const first = await s.request('POST', '/v2/payments/checkout', { key, body: { amount: 100, currency: 'RUB', customer: { email: 'eve@shop.example' } } });
  await s.request('POST', `/checkout/${first.body.id}/pay`, { body: card(CARDS.mastercard) });
  const pm = (await s.db.query('SELECT id FROM saved_cards WHERE payment_id = $1', [first.body.id])).rows[0]?.id as string;
  t.match(pm, /^pm_/, 'the hosted payment saved the card');
  const byToken = await s.request('POST', '/v2/payments', { key, body: { amount: 700, currency: 'RUB', payment_method: 'token', token: pm, customer: { email: 'eve@shop.example' } } });
  t.equal(byToken.status, 200, byToken.text);
  t.match(byToken.body, { status: 'succeeded', card_last4: '4444', amount: 700 });
  const stranger = await s.request('POST', '/v2/payments', { key, body: { amount: 700, currency: 'RUB', payment_method: 'token', token: pm, customer: { email: 'mallory@shop.example' } } });
  t.equal(stranger.status, 404, 'another customer\'s saved card is not found');
  const wallet = await s.request('POST', '/v2/payments', { key, body: { amount: 700, currency: 'RUB', payment_method: 'wallet', wallet: { type: 'google_pay', token: 'tok_ok' } } });
  t.equal(wallet.status, 200, wallet.text);
  t.equal(wallet.body.status, 'succeeded');
  const refused = await s.request('POST', '/v2/payments', { key, body: { amount: 700, currency: 'RUB', payment_method: 'wallet', wallet: { type: 'apple_pay', token: 'sandbox_decline' } } });
  t.equal(refused.body.status, 'failed');
});
