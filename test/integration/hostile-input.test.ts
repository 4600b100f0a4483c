// Hostile input, class by class, against every route group: the merchant API, the public checkout
// endpoints and pages, and the operator API. Each case must get a 4xx in its API's envelope with
// the stable code, within a second (the client gives up after that), and change nothing stored.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { newPayment } from '../helpers/checkout.js';
import { deep, envelopeProblem, send, storedFingerprint, type Api } from '../helpers/hostile.js';
import { ADMIN } from '../helpers/server.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB', 'AZN'], default_currency: 'RUB' });
const pid = await newPayment(s, m.key);
const paid = await newPayment(s, m.key);
if ((await s.request('POST', `/api/v2/test/payments/${paid}/complete`, { key: m.key, body: { outcome: 'succeeded' } })).status !== 200) throw new Error('could not pay the refund target');
const other = await s.merchant({ name: 'Other' });
const secret = await s.key(m.id, 'secret', 'test');
const publishable = await s.key(m.id, 'publishable', 'test');
const cs = (await s.request('POST', '/v2/payments/checkout', { key: secret.key, body: { amount: 4900, currency: 'RUB' } })).body.id as string;

interface Case { name: string; api: Api; method: string; path: string; raw?: string; auth?: string; headers?: Record<string, string>; status: number; code: string; param?: string }

const M = (name: string, raw: string, status: number, code: string, param?: string): Case =>
  ({ name: `merchant create: ${name}`, api: 'merchant', method: 'POST', path: '/api/v2/payments', auth: m.key, raw, status, code, param });
const PAY = (name: string, raw: string, status: number, code: string, param?: string): Case =>
  ({ name: `checkout pay: ${name}`, api: 'gateway', method: 'POST', path: `/checkout/${pid}/pay`, raw, status, code, param });
const SUBMIT = (name: string, raw: string, status: number, code: string, param?: string): Case =>
  ({ name: `checkout submit-method: ${name}`, api: 'gateway', method: 'POST', path: `/checkout/${pid}/submit-method`, raw, status, code, param });
const OP = (name: string, method: string, path: string, raw: string | undefined, status: number, code: string, param?: string): Case =>
  ({ name: `operator: ${name}`, api: 'internal', method, path, auth: ADMIN, raw, status, code, param });

const REF = (name: string, raw: string, status: number, code: string, param?: string): Case =>
  ({ name: `refund create: ${name}`, api: 'merchant', method: 'POST', path: `/api/v2/payments/${pid}/refunds`, auth: m.key, raw, status, code, param });
const LINK = (name: string, raw: string, status: number, code: string, param?: string): Case =>
  ({ name: `link create: ${name}`, api: 'merchant', method: 'POST', path: '/api/v2/links', auth: m.key, raw, status, code, param });
// Gateway direct payments and refunds: every 400 is VALIDATION_ERROR with the field.
const DP = (name: string, raw: string, param?: string, status = 400, code = 'validation_error'): Case =>
  ({ name: `direct payment create: ${name}`, api: 'gateway', method: 'POST', path: '/v2/payments', auth: secret.key, raw, status, code, param });
const GR = (name: string, raw: string, param?: string, status = 400, code = 'validation_error'): Case =>
  ({ name: `gateway refund: ${name}`, api: 'gateway', method: 'POST', path: `/v2/payments/${cs}/refund`, auth: secret.key, raw, status, code, param });
const PO = (name: string, raw: string, param?: string, status = 400, code = 'validation_error'): Case =>
  ({ name: `payout create: ${name}`, api: 'gateway', method: 'POST', path: '/v2/payouts', auth: secret.key, raw, status, code, param });
// Gateway checkout sessions and the widget: every 400 is VALIDATION_ERROR with the field.
const CS = (name: string, raw: string, param?: string, headers?: Record<string, string>): Case =>
  ({ name: `checkout session create: ${name}`, api: 'gateway', method: 'POST', path: '/v2/payments/checkout', auth: secret.key, raw, status: 400, code: 'validation_error', param, headers });
const WS = (name: string, raw: string, param?: string): Case =>
  ({ name: `widget session: ${name}`, api: 'gateway', method: 'POST', path: '/widget/v1/session', auth: publishable.key, raw, status: 400, code: 'validation_error', param });
const card = '"number":"4242424242424242","exp_month":"12","exp_year":"34","cvc":"731"';
const NUL = '\\u0000';
const HIGH = '\\ud800';
const LOW = '\\udc00';

const CLASSES: Record<string, Case[]> = {
  'prototype keys': [
    M('__proto__ carrying the amount', '{"__proto__":{"amount":5}}', 422, 'parameter_unknown', '__proto__'),
    M('__proto__ beside the amount', '{"amount":100,"__proto__":{"description":"x"}}', 422, 'parameter_unknown', '__proto__'),
    M('constructor at the top', '{"amount":100,"constructor":{"prototype":{"x":1}}}', 422, 'parameter_unknown', 'constructor'),
    M('prototype in customer', '{"amount":100,"customer":{"prototype":"x"}}', 422, 'parameter_unknown', 'customer.prototype'),
    M('__proto__ as a metadata key', '{"amount":100,"metadata":{"__proto__":"x"}}', 422, 'parameter_unknown', 'metadata.__proto__'),
    PAY('__proto__ beside the card', `{${card},"__proto__":{"holder":"x"}}`, 400, 'validation_error', '__proto__'),
    SUBMIT('constructor beside the method', '{"method_code":"sbp","constructor":{}}', 400, 'validation_error', 'constructor'),
    SUBMIT('__proto__ inside payment_data', '{"method_code":"apple_pay","payment_data":{"__proto__":{"a":1}}}', 400, 'validation_error', 'payment_data.__proto__'),
    PO('__proto__ in the destination', '{"amount":1,"currency":"AZN","destination":{"type":"card","card":"4242424242424242","__proto__":{"type":"iban"}}}', 'destination.__proto__'),
    DP('__proto__ in the card', `{"amount":1,"currency":"RUB","card":{${card},"__proto__":{"x":1}}}`, 'card.__proto__'),
    GR('constructor at the top', '{"constructor":{}}', 'constructor'),
    PO('constructor at the top', '{"amount":1,"currency":"AZN","destination":{"type":"card","card":"4242424242424242"},"constructor":{}}', 'constructor'),
    { name: 'test complete: __proto__', api: 'gateway', method: 'POST', path: `/v2/test/checkout/${pid}/complete`, auth: secret.key, raw: '{"outcome":"succeeded","__proto__":{}}', status: 400, code: 'validation_error', param: '__proto__' },
    { name: 'channel create: __proto__', api: 'gateway', method: 'POST', path: '/v1/channels', auth: secret.key, raw: '{"slug":"x","name":"x","__proto__":{"is_default":true}}', status: 400, code: 'validation_error', param: '__proto__' },
    { name: 'channel patch: constructor in branding', api: 'gateway', method: 'PATCH', path: '/v1/channels/default', auth: secret.key, raw: '{"branding":{"constructor":{}}}', status: 400, code: 'validation_error', param: 'branding.constructor' },
    OP('create merchant with __proto__', 'POST', '/internal/merchants', '{"name":"x","__proto__":{"api_enabled":false}}', 422, 'parameter_unknown', '__proto__'),
    REF('__proto__ carrying the amount', '{"__proto__":{"amount":5}}', 422, 'parameter_unknown', '__proto__'),
    LINK('__proto__ beside the amount', '{"amount":100,"__proto__":{"max_uses":1}}', 422, 'parameter_unknown', '__proto__'),
    OP('allowed_domains beside __proto__', 'PATCH', `/internal/merchants/${other.id}`, '{"allowed_domains":["https://shop.example"],"__proto__":{}}', 422, 'parameter_unknown', '__proto__'),
    OP('patch merchant with constructor', 'PATCH', `/internal/merchants/${other.id}`, '{"constructor":{"name":"y"}}', 422, 'parameter_unknown', 'constructor'),
    OP('SBP member with __proto__', 'POST', '/internal/sbp/members', '{"member_id":"100000000997","name":{"en":"A","ru":"Б","az":"C"},"__proto__":{"active":false}}', 422, 'parameter_unknown', '__proto__'),
    OP('SBP member name with constructor', 'PATCH', '/internal/sbp/members/100000000111', '{"name":{"constructor":"x"}}', 422, 'parameter_unknown', 'name.constructor'),
  ],
  'NUL and lone surrogates': [
    M('NUL in order_id', `{"amount":100,"order_id":"a${NUL}b"}`, 422, 'order_id_invalid', 'order_id'),
    { name: 'channel create: NUL in name', api: 'gateway', method: 'POST', path: '/v1/channels', auth: secret.key, raw: `{"slug":"x","name":"a${NUL}b"}`, status: 400, code: 'validation_error', param: 'name' },
    { name: 'channel get: NUL in the id', api: 'gateway', method: 'GET', path: '/v1/channels/a%00b', auth: secret.key, status: 400, code: 'validation_error', param: 'path' },
    CS('__proto__ carrying the amount', '{"__proto__":{"amount":5},"currency":"RUB"}', '__proto__'),
    CS('constructor in settings', '{"amount":100,"currency":"RUB","settings":{"constructor":{}}}', 'settings.constructor'),
    CS('__proto__ as a metadata key', '{"amount":100,"currency":"RUB","metadata":{"__proto__":"x"}}', 'metadata.__proto__'),
    WS('prototype in customer', '{"amount":100,"currency":"RUB","customer":{"prototype":"x"}}', 'customer.prototype'),
    CS('NUL in the description', `{"amount":100,"currency":"RUB","description":"a${NUL}"}`, 'description'),
    CS('lone surrogate in order_id', `{"amount":100,"currency":"RUB","order_id":"${HIGH}"}`, 'order_id'),
    CS('NUL in webhook_url', `{"amount":100,"currency":"RUB","webhook_url":"https://a${NUL}.example/h"}`, 'webhook_url'),
    CS('NUL in channel_id', `{"amount":100,"currency":"RUB","channel_id":"a${NUL}"}`, 'channel_id'),
    CS('lone surrogate in button_text', `{"amount":100,"currency":"RUB","settings":{"button_text":"${LOW}"}}`, 'settings.button_text'),
    WS('NUL in a metadata value', `{"amount":100,"currency":"RUB","metadata":{"k":"${NUL}"}}`, 'metadata.k'),
    M('lone high surrogate in description', `{"amount":100,"description":"${HIGH}"}`, 422, 'description_invalid', 'description'),
    M('lone low surrogate in customer name', `{"amount":100,"customer":{"name":"x${LOW}"}}`, 422, 'customer_invalid', 'customer.name'),
    M('NUL in a metadata key', `{"amount":100,"metadata":{"k${NUL}":"v"}}`, 422, 'metadata_invalid'),
    M('lone surrogate in a metadata value', `{"amount":100,"metadata":{"k":"${HIGH}x"}}`, 422, 'metadata_invalid', 'metadata.k'),
    PAY('NUL in the holder', `{${card},"holder":"a${NUL}"}`, 400, 'validation_error', 'holder'),
    PAY('NUL in the card number', '{"number":"4242\\u0000424242424242","exp_month":"12","exp_year":"34","cvc":"731"}', 400, 'validation_error', 'number'),
    SUBMIT('NUL in the phone', `{"method_code":"sberpay","phone":"+7900${NUL}1234567"}`, 400, 'validation_error', 'phone'),
    SUBMIT('lone surrogate in a payment_data key', `{"method_code":"apple_pay","payment_data":{"${HIGH}":1}}`, 400, 'validation_error'),
    DP('NUL in the card number', `{"amount":1,"currency":"RUB","card":{"number":"4242${NUL}424242424242","exp_month":"12","exp_year":"34","cvc":"731"}}`, 'card.number'),
    GR('lone surrogate in the reason', `{"reason":"late${HIGH}"}`, 'reason'),
    PO('NUL in the card number', `{"amount":1,"currency":"AZN","destination":{"type":"card","card":"4242${NUL}424242424242"}}`, 'destination.card'),
    PO('NUL in the IBAN', `{"amount":1,"currency":"AZN","destination":{"type":"iban","iban":"DE89${NUL}370400440532013000"}}`, 'destination.iban'),
    PO('lone surrogate in the phone', `{"amount":1,"currency":"AZN","destination":{"type":"sbp","phone":"+7900${HIGH}1234567","member_id":"100000000111"}}`, 'destination.phone'),
    REF('NUL in the reason', `{"reason":"a${NUL}b"}`, 422, 'refund_reason_invalid', 'reason'),
    LINK('lone surrogate in the description', `{"amount":100,"description":"${HIGH}"}`, 422, 'description_invalid', 'description'),
    OP('NUL in an allowed domain', 'PATCH', `/internal/merchants/${other.id}`, `{"allowed_domains":["https://a${NUL}.example"]}`, 422, 'allowed_domain_invalid', 'allowed_domains.0'),
    OP('NUL in a merchant name', 'POST', '/internal/merchants', `{"name":"a${NUL}"}`, 422, 'parameter_invalid', 'name'),
    OP('lone surrogate in a key label', 'POST', `/internal/merchants/${other.id}/api-keys`, `{"kind":"merchant","mode":"test","label":"${LOW}"}`, 422, 'parameter_invalid', 'label'),
    OP('NUL in a webhook URL', 'PUT', `/internal/merchants/${other.id}/webhook-settings`, `{"api":"merchant","url":"https://a${NUL}.example.com/h"}`, 422, 'webhook_url_invalid', 'url'),
    OP('NUL in an SBP member id', 'POST', '/internal/sbp/members', `{"member_id":"1000000009${NUL}7","name":{"en":"A","ru":"Б","az":"C"}}`, 422, 'sbp_member_id_invalid', 'member_id'),
    OP('lone surrogate in an SBP bank name', 'PATCH', '/internal/sbp/members/100000000111', `{"name":{"ru":"${HIGH}"}}`, 422, 'parameter_invalid', 'name.ru'),
    OP('NUL in an SBP deeplink', 'PATCH', '/internal/sbp/members/100000000111', `{"deeplink_ios":"bank1://a${NUL}"}`, 422, 'parameter_invalid', 'deeplink_ios'),
  ],
  'deep nesting': [
    M('10,000 levels at the top', deep(10_000), 400, 'json_too_deep'),
    M('10,000 levels in metadata', `{"amount":100,"metadata":${deep(10_000, '"x"')}}`, 400, 'json_too_deep'),
    M('10,000 levels of arrays in customer', `{"amount":100,"customer":{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`, 400, 'json_too_deep'),
    M('33 levels (one past the limit)', deep(33), 400, 'json_too_deep'),
    // 10,000 levels (60 KB) are past the public body limit; 2,000 levels (12 KB) fit in it.
    PAY('10,000 levels', deep(10_000), 413, 'body_too_large'),
    PAY('2,000 levels', deep(2_000), 400, 'validation_error'),
    SUBMIT('2,000 levels in payment_data', `{"method_code":"apple_pay","payment_data":${deep(2_000)}}`, 400, 'validation_error'),
    OP('10,000 levels', 'POST', '/internal/merchants', deep(10_000), 400, 'json_too_deep'),
    REF('10,000 levels', deep(10_000), 400, 'json_too_deep'),
    DP('10,000 levels in the card', `{"amount":1,"currency":"RUB","card":${deep(10_000)}}`),
    GR('10,000 levels', deep(10_000)),
    PO('10,000 levels in the destination', `{"amount":1,"currency":"AZN","destination":${deep(10_000)}}`),
    LINK('10,000 levels', deep(10_000), 400, 'json_too_deep'),
    CS('10,000 levels', deep(10_000)),
    CS('10,000 levels in metadata', `{"amount":100,"currency":"RUB","metadata":${deep(10_000, '"x"')}}`),
    WS('10,000 levels', deep(10_000)),
    { name: 'checkout cancel: 2,000 levels', api: 'gateway', method: 'POST', path: `/checkout/${cs}/cancel`, raw: deep(2_000), status: 400, code: 'validation_error' },
  ],
  'huge numbers': [
    M('an amount past 2^53', '{"amount":99999999999999999999}', 422, 'amount_invalid', 'amount'),
    M('an amount of 1e400 (Infinity once parsed)', '{"amount":1e400}', 422, 'amount_invalid', 'amount'),
    { ...REF('a refund amount past 2^53', '{"amount":99999999999999999999}', 422, 'refund_amount_invalid', 'amount'), path: `/api/v2/payments/${paid}/refunds` },
    { ...REF('a refund amount of 1e400 (Infinity once parsed: not an integer)', '{"amount":1e400}', 422, 'amount_invalid', 'amount'), path: `/api/v2/payments/${paid}/refunds` },
    DP('an amount past 2^53', `{"amount":99999999999999999999,"currency":"RUB","card":{${card}}}`, 'amount'),
    GR('a refund amount past 2^53', '{"amount":99999999999999999999}', 'amount'),
    PO('a payout amount past 2^53', '{"amount":99999999999999999999,"currency":"AZN","destination":{"type":"card","card":"4242424242424242"}}', 'amount'),
    LINK('a link amount past 2^53', '{"amount":99999999999999999999}', 422, 'amount_invalid', 'amount'),
    LINK('max_uses past 2^53', '{"amount":100,"max_uses":99999999999999999999}', 422, 'max_uses_invalid', 'max_uses'),
    CS('an amount past 2^53', '{"amount":99999999999999999999,"currency":"RUB"}', 'amount'),
    CS('an amount of 1e400', '{"amount":1e400,"currency":"RUB"}', 'amount'),
    CS('auto_return of 1e400', '{"amount":100,"currency":"RUB","settings":{"auto_return":1e400}}', 'settings.auto_return'),
    WS('an amount past 2^53', '{"amount":99999999999999999999,"currency":"RUB"}', 'amount'),
  ],
  'schema limits': [
    M('an empty metadata key', '{"amount":100,"metadata":{"":"v"}}', 422, 'metadata_invalid', 'metadata.'),
  ],
  'headers': [
    { ...M('a non-ASCII byte in Idempotency-Key', '{"amount":100}', 400, 'idempotency_key_invalid', 'Idempotency-Key'), headers: { 'idempotency-key': 'key-\u00ff-1' } },
    { ...M('a Latin-1 letter in Idempotency-Key', '{"amount":100}', 400, 'idempotency_key_invalid', 'Idempotency-Key'), headers: { 'idempotency-key': 'key-\u00e9-1' } },
    CS('an Idempotency-Key of 129 characters', '{"amount":100,"currency":"RUB"}', 'Idempotency-Key', { 'idempotency-key': 'k'.repeat(129) }),
    CS('a Latin-1 letter in Idempotency-Key', '{"amount":100,"currency":"RUB"}', 'Idempotency-Key', { 'idempotency-key': 'key-\u00e9-1' }),
    CS('both Authorization and X-API-Key', '{"amount":100,"currency":"RUB"}', 'X-API-Key', { 'x-api-key': secret.key }),
  ],
  'paths and queries': [
    { name: 'merchant: NUL in a payment id', api: 'merchant', method: 'GET', path: '/api/v2/payments/a%00b', auth: m.key, status: 400, code: 'url_invalid', param: 'path' },
    { name: 'merchant: NUL in a query value', api: 'merchant', method: 'GET', path: '/api/v2/payments?order_id=a%00b', auth: m.key, status: 400, code: 'url_invalid', param: 'order_id' },
    { name: 'checkout: NUL in a session id', api: 'gateway', method: 'GET', path: '/checkout/a%00b/status', status: 400, code: 'validation_error', param: 'path' },
    { name: 'checkout: NUL in a query value', api: 'gateway', method: 'GET', path: `/checkout/${pid}/sbp-members?limit=%00`, status: 400, code: 'validation_error', param: 'limit' },
    { name: 'hosted page: NUL in the id', api: 'gateway', method: 'GET', path: '/pay/EXZ%00', status: 400, code: 'url_invalid', param: 'path' },
    { name: 'sandbox ACS page: NUL in creq', api: 'gateway', method: 'GET', path: `/sandbox/3ds/${pid}?creq=%00`, status: 400, code: 'url_invalid', param: 'creq' },
    { name: 'merchant: NUL in a link id', api: 'merchant', method: 'GET', path: '/api/v2/links/a%00b', auth: m.key, status: 400, code: 'url_invalid', param: 'path' },
    { name: 'link page: NUL in the id', api: 'gateway', method: 'GET', path: '/link/a%00b', status: 400, code: 'url_invalid', param: 'path' },
    { name: 'checkout session get: NUL in the id', api: 'gateway', method: 'GET', path: '/v2/payments/checkout/cs_a%00b', auth: secret.key, status: 400, code: 'validation_error', param: 'path' },
    { name: 'checkout session get: a 10,000-character id', api: 'gateway', method: 'GET', path: `/v2/payments/checkout/cs_${'a'.repeat(10_000)}`, auth: secret.key, status: 404, code: 'checkout_session_not_found', param: 'id' },
    { name: 'checkout cancel: NUL in the id', api: 'gateway', method: 'POST', path: '/checkout/cs_a%00b/cancel', raw: '{}', status: 400, code: 'validation_error', param: 'path' },
    // The gateway payment's lookups by id (grouped reads, issue 25): no hostile id joins a shared statement or reaches the actor.
    { name: 'gateway payment get: NUL in the id', api: 'gateway', method: 'GET', path: '/v2/payments/cs_a%00b', auth: secret.key, status: 400, code: 'validation_error', param: 'path' },
    { name: 'gateway payment get: a lone surrogate in the id', api: 'gateway', method: 'GET', path: '/v2/payments/cs_%ED%A0%80', auth: secret.key, status: 404, code: 'payment_not_found', param: 'id' },
    { name: 'gateway payment get: __proto__ as the id', api: 'gateway', method: 'GET', path: '/v2/payments/__proto__', auth: secret.key, status: 404, code: 'payment_not_found', param: 'id' },
    { name: 'gateway payment get: a 10,000-character id', api: 'gateway', method: 'GET', path: `/v2/payments/cs_${'a'.repeat(10_000)}`, auth: secret.key, status: 404, code: 'payment_not_found', param: 'id' },
    { name: 'gateway capture: an id of the right shape that no payment has', api: 'gateway', method: 'POST', path: '/v2/payments/cs_000000000000000000000000/capture', auth: secret.key, raw: '{}', status: 404, code: 'payment_not_found', param: 'id' },
    { name: 'gateway refund: a lone surrogate in the id', api: 'gateway', method: 'POST', path: '/v2/payments/cs_%ED%A0%80/refund', auth: secret.key, raw: '{"amount":100}', status: 404, code: 'payment_not_found', param: 'id' },
    OP('NUL in a merchant id', 'GET', '/internal/merchants/a%00b', undefined, 400, 'url_invalid', 'path'),
    OP('NUL in an SBP member id', 'DELETE', '/internal/sbp/members/1000000001%001', undefined, 400, 'url_invalid', 'path'),
    { name: 'sbp: NUL in the popular limit', api: 'gateway', method: 'GET', path: '/sbp/members/popular?limit=1%00', status: 400, code: 'validation_error', param: 'limit' },
    OP('NUL in an events query', 'GET', `/internal/merchants/${other.id}/events?type=%00`, undefined, 400, 'url_invalid', 'type'),
  ],
  'body size': [
    PAY('a body over the public limit', `{${card},"holder":"${'x'.repeat(20_000)}"}`, 413, 'body_too_large'),
    SUBMIT('a body over the public limit', `{"method_code":"apple_pay","payment_token":"${'x'.repeat(20_000)}"}`, 413, 'body_too_large'),
  ],
};

for (const [cls, cases] of Object.entries(CLASSES)) {
  t.test(cls, async (t) => {
    const before = await storedFingerprint(s.db);
    for (const c of cases) {
      const a = await send(s.url, c.method, c.path, { raw: c.raw, auth: c.auth, headers: c.headers });
      t.equal(a.status, c.status, `${c.name}: status (${a.text.slice(0, 160)})`);
      t.equal(envelopeProblem(c.api, a, c.code), null, `${c.name}: envelope`);
      if (c.param !== undefined) t.equal(a.body?.error?.param, c.param, `${c.name}: param`);
      if (c.api === 'merchant' && c.auth) t.ok(a.headers.get('x-ratelimit-limit'), `${c.name}: rate-limit headers`);
      t.equal(a.headers.get('x-content-type-options'), 'nosniff', `${c.name}: nosniff`);
    }
    t.equal(await storedFingerprint(s.db), before, 'nothing stored changed');
  });
}

t.test('the limits are not stricter than documented', async (t) => {
  // Merchant spec: metadata "up to 20 keys and 4 KB"; no key or value has a length of its own (issue 23).
  const longKey = 'k'.repeat(400);
  const ok = await send(s.url, 'POST', '/api/v2/payments', { auth: m.key, raw: JSON.stringify({ amount: 100, metadata: { [longKey]: 'v', 'ключ': 'значение 🙂' } }) });
  t.equal(ok.status, 201, ok.text);
  t.same(ok.body.metadata, { [longKey]: 'v', 'ключ': 'значение 🙂' }, 'well-formed non-ASCII (surrogate pairs included) is kept');
  const at32 = await send(s.url, 'POST', '/api/v2/payments', { auth: m.key, raw: `{"amount":100,"metadata":${deep(31, '"x"')}}` });
  t.equal(at32.status, 422, '32 levels pass the parser and reach the schema');
  t.equal(at32.body.error.code, 'metadata_invalid');
});

t.test('two prototype-key bodies under one Idempotency-Key create nothing and replay nothing', async (t) => {
  const headers = { 'idempotency-key': 'proto-1' };
  const a = await send(s.url, 'POST', '/api/v2/payments', { auth: m.key, headers, raw: '{"amount":100,"__proto__":{"description":"a"}}' });
  const b = await send(s.url, 'POST', '/api/v2/payments', { auth: m.key, headers, raw: '{"amount":100,"__proto__":{"description":"b"}}' });
  t.equal(a.status, 422);
  t.equal(b.status, 422);
  t.equal(b.headers.get('idempotent-replayed'), null);
});
