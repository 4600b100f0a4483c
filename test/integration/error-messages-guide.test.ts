// Error answers that say what to do, as a developer meets them in the first hour: an unknown or
// not enabled currency lists the account's currencies, a refund of a payment in the wrong state
// names the state, a refund over the remaining amount gives it, and a form-encoded body is told to
// be JSON. Real server; the specific detail is what is checked, not the catalogue's wording.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { card, CARDS } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'USD'], default_currency: 'AZN' });

t.test('currency: not a currency at all, or not one of the account\'s, and which ones it takes', async (t) => {
  const unknown = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, currency: 'XYZ' } });
  t.equal(unknown.status, 422);
  t.match(unknown.body.error, { code: 'currency_not_enabled', param: 'currency' }, 'the code stays');
  t.match(unknown.body.error.message, /XYZ is not an ISO 4217 currency; it takes AZN, USD/);
  const other = await s.request('POST', '/api/v2/links', { key: m.key, body: { amount: 100, currency: 'EUR' } });
  t.match(other.body.error, { code: 'currency_not_enabled' });
  t.match(other.body.error.message, /EUR is not enabled for this account; it takes AZN, USD/);
  const ru = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, currency: 'EUR' }, headers: { 'accept-language': 'ru' } });
  t.match(ru.body.error.message, /используйте одну из валют аккаунта.*AZN, USD/, 'in the caller\'s language, with the list');
});

t.test('refund: the wrong state is named; over the remaining amount gives it', async (t) => {
  const pending = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1000 } });
  const early = await s.request('POST', `/api/v2/payments/${pending.body.id}/refunds`, { key: m.key, body: {} });
  t.equal(early.status, 409);
  t.equal(early.body.error.code, 'payment_not_payable');
  t.match(early.body.error.message, /the payment is pending: only a succeeded or partially_refunded payment can be refunded/);

  const p = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1000 } });
  const pay = await s.request('POST', `/checkout/${p.body.id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.body.status, 'succeeded', pay.text);
  t.equal((await s.request('POST', `/api/v2/payments/${p.body.id}/refunds`, { key: m.key, body: { amount: 300 } })).status, 201);
  const over = await s.request('POST', `/api/v2/payments/${p.body.id}/refunds`, { key: m.key, body: { amount: 800 } });
  t.equal(over.status, 422);
  t.equal(over.body.error.code, 'refund_amount_invalid');
  t.match(over.body.error.message, /700 remaining, in minor units \(7\.00 AZN\)/, 'the remaining amount, as the gateway\'s answer gives it');
  t.equal((await s.request('POST', `/api/v2/payments/${p.body.id}/refunds`, { key: m.key, body: {} })).status, 201, 'no amount refunds the rest');
  const done = await s.request('POST', `/api/v2/payments/${p.body.id}/refunds`, { key: m.key, body: {} });
  t.match(done.body.error.message, /the payment is refunded: nothing is left to refund/);
});

t.test('a form-encoded body is told to send JSON, on both APIs', async (t) => {
  const sk = await s.key(m.id, 'secret', 'test');
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const merchant = await s.request('POST', '/api/v2/payments', { key: m.key, raw: 'amount=100&currency=AZN', headers: form });
  t.equal(merchant.status, 400);
  t.equal(merchant.body.error.code, 'json_invalid');
  t.match(merchant.body.error.message, /send a JSON object with Content-Type: application\/json.*sent as application\/x-www-form-urlencoded; this API takes only JSON/);
  const noType = await s.request('POST', '/api/v2/payments', { key: m.key, raw: 'amount=100&currency=AZN', headers: { 'content-type': 'text/plain' } });
  t.match(noType.body.error.message, /looks form-encoded \(a=1&b=2\); this API takes only JSON/, 'recognised by its shape too');
  const gateway = await s.request('POST', '/v2/payments/checkout', { key: sk.key, raw: 'amount=100', headers: form });
  t.equal(gateway.status, 400);
  t.match(gateway.body.error, { code: 'VALIDATION_ERROR', reason: 'JSON_INVALID' });
  t.match(gateway.body.error.message, /this API takes only JSON/);
  const broken = await s.request('POST', '/api/v2/payments', { key: m.key, raw: '{"amount": 100,', headers: { 'content-type': 'application/json' } });
  t.notMatch(broken.body.error.message, /form/, 'broken JSON is not called a form');
});
