// GET /checkout/{id}/methods: the intersection of CMC, MCA and MCS set through the operator
// endpoints, amount and currency filters, display order, render modes, a payment created with a
// method, the cache bound, and the card-only fallback when the lookup fails.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { newPayment } from '../helpers/checkout.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t, { CATALOG_CACHE_MS: '0' });
const methods = async (id: string) => (await s.request('GET', `/checkout/${id}/methods`)).body;
const codes = async (id: string) => (await methods(id)).methods.map((x: { method_code: string }) => x.method_code);
const ALL = ['card', 'sbp', 'sberpay', 'tpay', 'yoomoney', 'recurrent', 'apple_pay', 'google_pay'];

t.test('defaults: every sandbox method for RUB, with render modes, sorted; card and wallets for AZN', async (t) => {
  const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
  const rub = await newPayment(s, m.key);
  const body = await methods(rub);
  t.equal(body.fallback, false);
  t.same(body.methods.map((x: { method_code: string }) => x.method_code), ALL);
  const modes = Object.fromEntries(body.methods.map((x: { method_code: string; render_mode: string }) => [x.method_code, x.render_mode]));
  t.same(modes, { card: 'inline_form', sbp: 'qr_code', sberpay: 'redirect', tpay: 'redirect', yoomoney: 'redirect', recurrent: 'inline_form', apple_pay: 'modal', google_pay: 'modal' });
  t.ok(body.methods.every((x: { is_enabled: boolean }) => x.is_enabled));
  t.same(await codes(await newPayment(s, m.key, { currency: 'AZN' })), ['card', 'recurrent', 'apple_pay', 'google_pay']);
  t.notOk((await codes(await newPayment(s, m.key, { amount: 50 }))).includes('sbp'), 'under the sbp minimum');
  t.notOk((await codes(await newPayment(s, m.key, { amount: 2_000_000 }))).includes('yoomoney'), 'over the yoomoney maximum');
  t.same(await codes(await newPayment(s, m.key, { method: 'sbp' })), ['sbp'], 'a payment created with a method shows only it');
  t.same(await codes(await newPayment(s, m.key, { method: 'card' })), ['card']);
});

t.test('a method off at any one layer is hidden', async (t) => {
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const id = await newPayment(s, m.key);
  // MCS: the merchant switches tpay off and moves google_pay first.
  let r = await s.admin('PUT', `/internal/merchants/${m.id}/method-settings/tpay`, { enabled: false });
  t.equal(r.status, 200, r.text);
  await s.admin('PUT', `/internal/merchants/${m.id}/method-settings/google_pay`, { enabled: true, display_order: 1 });
  let c = await codes(id);
  t.notOk(c.includes('tpay'), 'MCS off');
  t.equal(c[0], 'google_pay', 'MCS display_order');
  // MCA: once the acquirer lists methods for the merchant, unlisted ones are hidden, and listed-off ones too.
  r = await s.admin('PUT', `/internal/merchants/${m.id}/connector-methods/sandbox/card`, { enabled: true });
  t.equal(r.status, 200, r.text);
  await s.admin('PUT', `/internal/merchants/${m.id}/connector-methods/sandbox/sbp`, { enabled: true });
  await s.admin('PUT', `/internal/merchants/${m.id}/connector-methods/sandbox/sberpay`, { enabled: false });
  await s.admin('PUT', `/internal/merchants/${m.id}/connector-methods/sandbox/google_pay`, { enabled: true });
  c = await codes(id);
  t.same(c, ['google_pay', 'card', 'sbp']);
  // CMC: the platform switches sbp off for the connector.
  r = await s.admin('PUT', '/internal/catalog/capabilities/sandbox/sbp', { enabled: false });
  t.equal(r.status, 200, r.text);
  t.same(await codes(id), ['google_pay', 'card']);
  const refused = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp' } });
  t.same([refused.status, refused.body.error.reason], [400, 'METHOD_NOT_AVAILABLE'], 'a hidden method cannot be paid with');
  await s.admin('PUT', '/internal/catalog/capabilities/sandbox/sbp', { enabled: true });
  t.same(await codes(id), ['google_pay', 'card', 'sbp']);
  const layers = await s.admin('GET', `/internal/merchants/${m.id}/method-catalog?connector=sandbox`);
  t.equal(layers.status, 200);
  t.equal(layers.body.mca.length, 4);
  t.equal(layers.body.mcs.length, 2);
  const caps = await s.admin('GET', '/internal/catalog/capabilities');
  t.ok(caps.body.data.some((x: { connector: string; method: string }) => x.connector === 'live' && x.method === 'card'));
});

t.test('operator endpoints validate and need the token', async (t) => {
  const m = await s.merchant();
  const CASES: [string, string, unknown, number, string, string | null][] = [
    ['PUT', `/internal/merchants/${m.id}/method-settings/cash`, { enabled: true }, 422, 'method_code_invalid', 'method'],
    ['PUT', `/internal/merchants/${m.id}/method-settings/card`, { enabled: 'yes' }, 422, 'parameter_invalid', 'enabled'],
    ['PUT', `/internal/merchants/${m.id}/method-settings/card`, { enabled: true, display_order: -1 }, 422, 'parameter_invalid', 'display_order'],
    ['PUT', `/internal/merchants/${m.id}/method-settings/card`, {}, 422, 'parameter_missing', 'enabled'],
    ['PUT', `/internal/merchants/mer_nope/method-settings/card`, { enabled: true }, 404, 'merchant_not_found', 'id'],
    ['PUT', `/internal/merchants/${m.id}/connector-methods/acme/card`, { enabled: true }, 422, 'parameter_invalid', 'connector'],
    ['PUT', `/internal/merchants/${m.id}/connector-methods/sandbox/card`, { enabled: 1 }, 422, 'parameter_invalid', 'enabled'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { render_mode: 'popup' }, 422, 'parameter_invalid', 'render_mode'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { allowed_currencies: ['rub'] }, 422, 'parameter_invalid', 'allowed_currencies.0'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { min_amount_minor: 0 }, 422, 'parameter_invalid', 'min_amount_minor'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { max_amount_minor: 1.5 }, 422, 'parameter_invalid', 'max_amount_minor'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { display_order: 'x' }, 422, 'parameter_invalid', 'display_order'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { supports_recurring: 'x' }, 422, 'parameter_invalid', 'supports_recurring'],
    ['PUT', '/internal/catalog/capabilities/sandbox/card', { supports_refund: 'x' }, 422, 'parameter_invalid', 'supports_refund'],
  ];
  for (const [method, path, body, status, code, param] of CASES) {
    const r = await s.admin(method, path, body);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [status, code, param], `${path} ${JSON.stringify(body)}`);
  }
  const anon = await s.request('PUT', '/internal/catalog/capabilities/sandbox/card', { body: { enabled: false } });
  t.equal(anon.status, 401);
});

t.test('unknown payment: 404 in the gateway envelope', async (t) => {
  const r = await s.request('GET', '/checkout/EXZ-20261121-0000000000/methods');
  t.same([r.status, r.body.error.code], [404, 'PAYMENT_NOT_FOUND']);
});

t.test('fallback to card only when the catalog lookup fails', async (t) => {
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const id = await newPayment(s, m.key);
  await s.db.query('ALTER TABLE merchant_method_settings RENAME TO merchant_method_settings_gone');
  try {
    const body = await methods(id);
    t.equal(body.fallback, true);
    t.same(body.methods.map((x: { method_code: string }) => x.method_code), ['card']);
    const paid = await s.request('POST', `/checkout/${id}/pay`, { body: { number: '4242424242424242', exp_month: '12', exp_year: '34', cvc: '123' } });
    t.equal(paid.body.status, 'succeeded', 'card still works in the fallback');
  } finally {
    await s.db.query('ALTER TABLE merchant_method_settings_gone RENAME TO merchant_method_settings');
  }
  t.equal((await methods(await newPayment(s, m.key))).fallback, false);
});

t.test('the cache bound: a change made elsewhere shows once the entry ends (CATALOG_CACHE_MS)', async (t) => {
  const c = await startTestServer(t, { CATALOG_CACHE_MS: '2000' }, { databaseUrl: s.srv.databaseUrl });
  const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const id = await newPayment(s, m.key);
  const list = async () => (await c.request('GET', `/checkout/${id}/methods`)).body.methods.map((x: { method_code: string }) => x.method_code);
  t.ok((await list()).includes('yoomoney'));
  await s.admin('PUT', `/internal/merchants/${m.id}/method-settings/yoomoney`, { enabled: false }); // through the other process
  t.ok((await list()).includes('yoomoney'), 'still cached in this process');
  await until('the change seen once the cache entry ends', async () => !(await list()).includes('yoomoney'), 20_000);
  t.pass('seen after the cache entry ended');
  t.equal(c.srv.services.config.catalogCacheMs, 2000);
  const capped = await startTestServer(t, { CATALOG_CACHE_MS: '600000' }, { databaseUrl: s.srv.databaseUrl });
  t.equal(capped.srv.services.config.catalogCacheMs, 60_000, 'never more than a minute');
});
