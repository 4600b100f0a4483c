// Error messages state the limit of the API that answers: the gateway's description limit is 500
// characters (spec: gateway Limits), not the merchant API's 200, and the gateway list's from/to
// take RFC 3339 date-times (spec: "from, to (date-time)").
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await s.key(m.id, 'secret', 'test')).key;

t.test('a description over 500 characters: the message says 500 for the gateway', async (t) => {
  const ok = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 100, currency: 'RUB', description: 'd'.repeat(500) } });
  t.equal(ok.status, 200, '500 characters are accepted');
  for (const lang of ['en', 'ru', 'az']) {
    const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 100, currency: 'RUB', description: 'd'.repeat(501) }, headers: { 'accept-language': lang } });
    t.same([r.status, r.body.error.reason, r.body.error.param], [400, 'DESCRIPTION_INVALID', 'description']);
    t.match(r.body.error.message, /500/, lang);
  }
  const merchant = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 100, description: 'd'.repeat(201) } });
  t.same([merchant.status, merchant.body.error.code], [422, 'description_invalid']);
  t.match(merchant.body.error.message, /200/, 'the merchant API\'s limit is still named');
});

t.test('a bad from on the gateway list names the date-time form it takes', async (t) => {
  const r = await s.request('GET', '/v2/payments?from=yesterday', { key: sk });
  t.same([r.status, r.body.error.reason, r.body.error.param], [400, 'DATE_INVALID', 'from']);
  t.match(r.body.error.message, /RFC 3339/);
  const ok = await s.request('GET', `/v2/payments?from=${encodeURIComponent('2026-01-01T00:00:00+03:00')}`, { key: sk });
  t.equal(ok.status, 200, ok.text);
});
