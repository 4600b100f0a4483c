// Issue 23: every 400 VALIDATION_ERROR of the gateway API says something about the field named in
// `param`, never another field's rule ("a card refused on submit-method said 'sbp works only with
// RUB'", "a bad auto_return talked about payment_methods"). A table over the catalogue's validation
// codes: each code the gateway can answer has a request that provokes it; each other code says why not.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';
import { ERRORS, type ErrorCode } from '../../src/errors.js';
import { METHOD_CODES } from '../../src/domain/methods.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['RUB', 'USD'], default_currency: 'RUB' });
const key = async (kind: string, mode = 'test') => (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind, mode })).body.key as string;
const sk = await key('secret');
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });

const open = async (k = sk, body: Record<string, unknown> = {}) => (await s.request('POST', '/v2/payments/checkout', { key: k, body: { amount: 4900, currency: 'RUB', ...body } })).body.id as string;
const cs = await open();
const authorized = await s.request('POST', '/v2/payments', { key: sk, body: { amount: 4900, currency: 'RUB', capture_method: 'manual', card: card(CARDS.success) } });
if (authorized.body.status !== 'authorized') throw new Error(authorized.text);
const paidId = authorized.body.id as string;
await s.request('POST', `/v2/payments/${paidId}/capture`, { key: sk, body: {} });

/** Field names the gateway's requests use (snake_case): a message about one field names no other. */
const FIELD_NAMES = ['order_id', 'success_url', 'cancel_url', 'webhook_url', 'test_mode', 'channel_id', 'payment_methods', 'button_text', 'auto_return',
  'initial_method', 'method_code', 'member_id', 'payment_token', 'payment_data', 'saved_payment_method_id', 'wallet_id', 'idempotency_key',
  'capture_method', 'payment_method', 'exp_month', 'exp_year'];

interface Case {
  method: string; path: string; body?: unknown; raw?: string; key?: string | null; headers?: Record<string, string>;
  param: string | null;
  /** What the message must say: proof that it is about `param`. */
  about: RegExp;
  /** Field names (or method codes) it may mention besides `param`: the values of param's own rule. */
  may?: string[];
}
const checkout = (body: Record<string, unknown>, param: string, about: RegExp, may?: string[]): Case =>
  ({ method: 'POST', path: '/v2/payments/checkout', body: { amount: 4900, currency: 'RUB', ...body }, param, about, may });

const CASES: Partial<Record<ErrorCode, Case>> = {
  json_invalid: { method: 'POST', path: '/v2/payments/checkout', raw: '{"amount":', param: null, about: /not valid JSON/ },
  body_invalid: { method: 'POST', path: '/v2/payments/checkout', raw: '[1]', param: null, about: /JSON object/ },
  json_too_deep: { method: 'POST', path: '/v2/payments/checkout', raw: `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`, param: null, about: /nests/ },
  url_invalid: { method: 'GET', path: '/v2/payments?order_id=a%00b', param: 'order_id', about: /characters that are not allowed/ },
  parameter_unknown: checkout({ capture: true }, 'capture', /not recognised/),
  parameter_invalid: checkout({ channel_id: '' }, 'channel_id', /must be a string of 1 to 100 characters/),
  parameter_missing: { method: 'POST', path: '/v2/payments/checkout', body: { currency: 'RUB' }, param: 'amount', about: /required/ },
  amount_invalid: checkout({ amount: 0 }, 'amount', /amount/i),
  currency_invalid: checkout({ currency: 'RUBL' }, 'currency', /currency/i),
  currency_not_enabled: checkout({ currency: 'EUR' }, 'currency', /currency/i),
  description_invalid: checkout({ description: 'x'.repeat(501) }, 'description', /description/i),
  order_id_invalid: checkout({ order_id: '' }, 'order_id', /order_id/),
  metadata_invalid: checkout({ metadata: { n: 1 } }, 'metadata.n', /Metadata/i),
  locale_invalid: checkout({ language: 'de' }, 'language', /language/i),
  method_not_available: { method: 'POST', path: `/checkout/${cs}/submit-method`, key: null, body: { method_code: 'card' }, param: 'method_code', about: /payment method.*card is paid through/ },
  return_url_invalid: checkout({ success_url: 'ftp://shop.example/ok' }, 'success_url', /URL the customer returns to/),
  customer_invalid: checkout({ customer: { country: 'RUS' } }, 'customer.country', /customer field.*exactly 2 characters/),
  limit_invalid: { method: 'GET', path: '/v2/payments?limit=0', param: 'limit', about: /limit/ },
  date_invalid: { method: 'GET', path: '/v2/payments?from=yesterday', param: 'from', about: /Dates must look like/ },
  status_invalid: { method: 'GET', path: '/v2/payments?status=paid', param: 'status', about: /status filter/ },
  idempotency_key_invalid: { ...checkout({}, 'Idempotency-Key', /Idempotency-Key/), headers: { 'idempotency-key': 'k'.repeat(129) } },
  refund_amount_invalid: { method: 'POST', path: `/v2/payments/${paidId}/refund`, body: { amount: 999_999 }, param: 'amount', about: /refund amount.*remaining/ },
  payment_method_details_missing: { method: 'POST', path: '/v2/payments', body: { amount: 100, currency: 'RUB', payment_method: 'token' }, param: 'token', about: /details of the chosen payment_method/, may: ['payment_method'] },
  capture_amount_invalid: { method: 'POST', path: `/v2/payments/${paidId}/capture`, body: { amount: 0 }, param: 'amount', about: /capture amount/ },
  test_mode_invalid: checkout({ test_mode: false }, 'test_mode', /test_mode/),
  settings_invalid: checkout({ settings: { auto_return: -1 } }, 'settings.auto_return', /settings field.*integer from 0 to 300/),
  method_code_invalid: checkout({ initial_method: 'cash' }, 'initial_method', /payment method must be one of/, [...METHOD_CODES]),
  card_number_invalid: { method: 'POST', path: `/checkout/${cs}/pay`, key: null, body: card('4242424242424241'), param: 'number', about: /card number/ },
  card_expiry_invalid: { method: 'POST', path: `/checkout/${cs}/pay`, key: null, body: card(CARDS.success, { exp_year: '20' }), param: 'exp_year', about: /expiry/ },
  card_cvc_invalid: { method: 'POST', path: `/checkout/${cs}/pay`, key: null, body: card(CARDS.success, { cvc: '1' }), param: 'cvc', about: /CVC/ },
  card_holder_invalid: { method: 'POST', path: `/checkout/${cs}/pay`, key: null, body: card(CARDS.success, { holder: 'R2 D2' }), param: 'holder', about: /cardholder name/ },
  phone_invalid: { method: 'POST', path: `/checkout/${cs}/submit-method`, key: null, body: { method_code: 'sberpay', phone: '8900' }, param: 'phone', about: /phone number/ },
  email_invalid: { method: 'POST', path: `/checkout/${cs}/submit-method`, key: null, body: { method_code: 'sberpay', email: 'nope' }, param: 'email', about: /e-mail/ },
  sbp_member_unknown: { method: 'POST', path: `/checkout/${cs}/submit-method`, key: null, body: { method_code: 'sbp', member_id: '999999999999' }, param: 'member_id', about: /bank/ },
  payment_token_invalid: { method: 'POST', path: `/checkout/${cs}/submit-method`, key: null, body: { method_code: 'apple_pay' }, param: 'payment_token', about: /wallet payment needs a payment_token/, may: ['payment_data'] },
  webhook_url_invalid: checkout({ webhook_url: 'https://10.0.0.1/hook' }, 'webhook_url', /webhook URL/),
  payout_destination_invalid: { method: 'POST', path: '/v2/payouts', body: { amount: 100, currency: 'RUB', destination: { type: 'wallet' } }, param: 'destination.type', about: /destination/, may: ['sbp'] },
  iban_invalid: { method: 'POST', path: '/v2/payouts', body: { amount: 100, currency: 'RUB', destination: { type: 'iban', iban: 'DE88370400440532013000' } }, param: 'destination.iban', about: /IBAN/ },
  bic_invalid: { method: 'POST', path: '/v2/payouts', body: { amount: 100, currency: 'RUB', destination: { type: 'iban', iban: 'DE89370400440532013000', bic: 'CO1' } }, param: 'destination.bic', about: /BIC/ },
  sbp_member_invalid: { method: 'POST', path: '/v2/payouts', body: { amount: 100, currency: 'RUB', destination: { type: 'sbp', phone: '+79001234567', member_id: '1234' } }, param: 'destination.member_id', about: /SBP member id/ },
  test_clock_time_invalid: { method: 'POST', path: '/v2/test_helpers/test_clocks', body: { frozen_time: '2000-01-01T00:00:00Z' }, param: 'frozen_time', about: /frozen_time/ },
  payment_not_refundable: { method: 'POST', path: `/v2/payments/${cs}/refund`, body: {}, param: 'id', about: /paid payment.*the payment is pending/ },
};

/** Validation codes no gateway request answers as VALIDATION_ERROR, and why. */
const NOT_HERE: Partial<Record<ErrorCode, string>> = {
  request_malformed: 'raw framing: test/integration/framing.test.ts (public endpoints answer it as VALIDATION_ERROR there)',
  validation_error: 'the envelope\'s own code; its message is the field\'s specific one',
  insufficient_balance: 'keeps its own code on the gateway (the request was valid)',
  method_invalid: 'merchant API only (its `method` field)',
  cursor_invalid: 'merchant API only (starting_after)',
  refund_not_supported: 'refunds of methods without refunds: test/integration/refunds-methods.test.ts',
  refund_reason_invalid: 'merchant API only (the gateway refund\'s reason is schema-checked as parameter_invalid)',
  allowed_domain_invalid: 'operator API only',
  link_amount_required: 'merchant API only (links)', link_type_invalid: 'merchant API only (links)',
  max_uses_invalid: 'merchant API only (links)', expires_at_invalid: 'merchant API only (links)',
  sbp_member_id_invalid: 'operator API only (the SBP list)',
  test_card_in_live_mode: 'the sandbox bank\'s answer to a test card in live mode; live mode has no sandbox here (503 connector_not_configured first): test/unit/sandbox-decisions.test.ts',
};

t.test('every validation code of the catalogue is either provoked here or said not to reach the gateway', async (t) => {
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => (ERRORS[c].status === 400 || ERRORS[c].status === 422) && ERRORS[c].type === 'invalid_request_error');
  t.same(codes.filter((c) => !(c in CASES) && !(c in NOT_HERE)), [], 'no code unaccounted for');
  t.same(Object.keys(CASES).filter((c) => c in NOT_HERE), [], 'none in both lists');
});

for (const [code, c] of Object.entries(CASES) as [ErrorCode, Case][]) {
  t.test(`${code}: the message is about ${c.param ?? 'the request'}`, async (t) => {
    const r = await s.request(c.method, c.path, { key: c.key === undefined ? sk : c.key, body: c.body, raw: c.raw, headers: { ...(c.raw ? { 'content-type': 'application/json' } : {}), ...c.headers } });
    t.same([r.status, r.body?.error?.code, r.body?.error?.reason, r.body?.error?.param ?? null], [400, 'VALIDATION_ERROR', code.toUpperCase(), c.param], r.text);
    const message: string = r.body?.error?.message ?? '';
    // Keyed routes prefix "The request is not valid. <param>: "; the keyless ones show the field's message alone.
    const own = c.param && message.includes(`${c.param}: `) ? message.slice(message.indexOf(`${c.param}: `) + c.param.length + 2) : message;
    t.match(own, c.about, `about ${c.param}: ${own}`);
    const allowed = new Set([...(c.param ?? '').split('.'), code.replace(/_invalid$/, ''), ...(c.may ?? [])]);
    const others = FIELD_NAMES.filter((f) => !allowed.has(f) && new RegExp(`\\b${f}\\b`).test(own));
    t.same(others, [], `names no other field: ${own}`);
    const sent = JSON.stringify(c.body ?? {});
    const methods = METHOD_CODES.filter((x) => new RegExp(`\\b${x}\\b`).test(own) && !sent.includes(`"${x}"`) && x !== 'card' && !allowed.has(x));
    t.same(methods, [], `names no payment method the request did not send: ${own}`);
  });
}
