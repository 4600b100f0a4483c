// Every rule of the create-payment request: a bad value gets its own stable code and param, in
// the API's envelope, and stores nothing.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB', 'USD'] });

// The sixth element: sent with the live key (a test key on the embedded default also takes a loopback return_url).
const BAD: [string, Record<string, unknown>, number, string, string | null, 'live'?][] = [
  ['decimal amount', { amount: 49.5 }, 422, 'amount_invalid', 'amount'],
  ['string amount', { amount: '4900' }, 422, 'amount_invalid', 'amount'],
  ['zero amount', { amount: 0 }, 422, 'amount_invalid', 'amount'],
  ['negative amount', { amount: -5 }, 422, 'amount_invalid', 'amount'],
  ['huge amount', { amount: 1e16 }, 422, 'amount_invalid', 'amount'],
  ['missing amount', { currency: 'AZN' }, 422, 'parameter_missing', 'amount'],
  ['bad currency format', { amount: 100, currency: 'AZNX' }, 422, 'currency_invalid', 'currency'],
  ['currency not enabled', { amount: 100, currency: 'EUR' }, 422, 'currency_not_enabled', 'currency'],
  ['long description', { amount: 100, description: 'x'.repeat(201) }, 422, 'description_invalid', 'description'],
  ['description not string', { amount: 100, description: 5 }, 422, 'description_invalid', 'description'],
  ['empty order_id', { amount: 100, order_id: '' }, 422, 'order_id_invalid', 'order_id'],
  ['metadata number value', { amount: 100, metadata: { a: 1 } }, 422, 'metadata_invalid', 'metadata.a'],
  ['metadata 21 keys', { amount: 100, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 422, 'metadata_invalid', 'metadata'],
  ['metadata over 4 KB', { amount: 100, metadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v'.repeat(450)])) }, 422, 'metadata_invalid', 'metadata'],
  ['metadata array', { amount: 100, metadata: ['a'] }, 422, 'metadata_invalid', 'metadata'],
  ['bad locale', { amount: 100, locale: 'de' }, 422, 'locale_invalid', 'locale'],
  ['bad method', { amount: 100, method: 'cash' }, 422, 'method_invalid', 'method'],
  ['sbp without RUB', { amount: 100, currency: 'AZN', method: 'sbp' }, 422, 'method_not_available', 'method'],
  ['http return_url', { amount: 100, return_url: 'http://shop.example/back' }, 422, 'return_url_invalid', 'return_url'],
  ['private return_url', { amount: 100, return_url: 'https://10.0.0.5/back' }, 422, 'return_url_invalid', 'return_url'],
  ['localhost return_url, live key', { amount: 100, return_url: 'https://localhost/back' }, 422, 'return_url_invalid', 'return_url', 'live'],
  ['not a URL', { amount: 100, return_url: 'not a url' }, 422, 'return_url_invalid', 'return_url'],
  ['country 3 letters', { amount: 100, customer: { country: 'AZE' } }, 422, 'customer_invalid', 'customer.country'],
  ['bad email', { amount: 100, customer: { email: 'nope' } }, 422, 'customer_invalid', 'customer.email'],
  ['bad ip', { amount: 100, customer: { ip: '999.1.1.1' } }, 422, 'customer_invalid', 'customer.ip'],
  ['unknown customer field', { amount: 100, customer: { shoe: '42' } }, 422, 'parameter_unknown', 'customer.shoe'],
  ['unknown top-level field', { amount: 100, amout: 5 }, 422, 'parameter_unknown', 'amout'],
];

for (const [name, body, status, code, param, mode] of BAD) {
  t.test(name, async (t) => {
    const r = await s.request('POST', '/api/v2/payments', { key: mode === 'live' ? m.liveKey : m.key, body });
    t.equal(r.status, status, r.text);
    t.equal(r.body.error.code, code);
    t.equal(r.body.error.param, param);
    t.equal(r.body.error.type, 'invalid_request_error');
    t.match(r.body.request_id, /^req_/);
    t.equal(r.headers.get('x-request-id'), r.body.request_id);
  });
}

t.test('malformed JSON is 400 json_invalid, with or without a content type', async (t) => {
  for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
    const r = await s.request('POST', '/api/v2/payments', { key: m.key, raw: '{"amount": ', headers });
    t.equal(r.status, 400);
    t.equal(r.body.error.code, 'json_invalid');
  }
  const arr = await s.request('POST', '/api/v2/payments', { key: m.key, raw: '[1,2]' });
  t.equal(arr.status, 400);
  t.equal(arr.body.error.code, 'body_invalid');
});

t.test('a body over the limit is 413 in the envelope', async (t) => {
  const r = await s.request('POST', '/api/v2/payments', { key: m.key, raw: JSON.stringify({ amount: 1, description: 'x'.repeat(1_100_000) }) });
  t.equal(r.status, 413);
  t.equal(r.body.error.code, 'body_too_large');
});

t.test('nothing was stored by any bad request', async (t) => {
  const { rows } = await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1', [m.id]);
  t.equal(rows[0].n, 0);
});

t.test('messages in en, ru and az by Accept-Language', async (t) => {
  const msgs = new Set<string>();
  for (const lang of ['en', 'ru-RU,ru;q=0.9', 'az']) {
    const r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1.5 }, headers: { 'accept-language': lang } });
    t.equal(r.body.error.code, 'amount_invalid');
    msgs.add(r.body.error.message);
  }
  t.equal(msgs.size, 3, 'three different languages');
  const ru = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1.5 }, headers: { 'accept-language': 'ru' } });
  t.match(ru.body.error.message, /Сумма/);
  const az = await s.request('GET', '/api/v2/payments/nope', { key: m.key, headers: { 'accept-language': 'az' } });
  t.match(az.body.error.message, /ödəniş/i);
  const fallback = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1.5 }, headers: { 'accept-language': 'de' } });
  t.match(fallback.body.error.message, /positive integer/);
});

t.test('a valid request stores every field and renders the full resource', async (t) => {
  const r = await s.request('POST', '/api/v2/payments', {
    key: m.key,
    body: {
      amount: 12345, currency: 'rub', order_id: 'A-1', description: 'Tea', method: 'sbp', locale: 'ru',
      return_url: 'https://shop.example/back?x=1', metadata: { cart: '7' },
      customer: { email: 'a@b.example', name: 'Ann', phone: '+994501234567', ip: '203.0.113.9', country: 'az', city: 'Baku', address: 'x', zip: 'AZ1000' },
    },
  });
  t.equal(r.status, 201, r.text);
  const p = r.body;
  t.match(p.id, /^EXZ-\d{8}-[0-9A-Z]{10}$/);
  t.same({ object: p.object, livemode: p.livemode, status: p.status, amount: p.amount, currency: p.currency, method: p.method, source: p.source },
    { object: 'payment', livemode: false, status: 'pending', amount: 12345, currency: 'RUB', method: 'sbp', source: 'api' });
  t.same(p.customer, { email: 'a@b.example', name: 'Ann', phone: '+994501234567' });
  t.equal(p.checkout_url, `${s.srv.services.config.publicBaseUrl}/pay/${p.id}`);
  t.equal(p.paid_at, null);
  t.equal(p.amount_refunded, 0);
  t.equal(p.request_id, r.headers.get('x-request-id'));
  const page = await fetch(`${s.url}/pay/${p.id}`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.match(await page.text(), /123,45\s₽/, "the amount in the page's language (ru)");
  const { rows } = await s.db.query('SELECT customer, locale FROM payments WHERE id = $1', [p.id]);
  t.equal(rows[0].customer.country, 'AZ');
  t.equal(rows[0].locale, 'ru');
});

t.test('null means not given', async (t) => {
  const r = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, description: null, order_id: null } });
  t.equal(r.status, 201, r.text);
  t.equal(r.body.description, null);
  t.equal(r.body.currency, 'AZN');
});
