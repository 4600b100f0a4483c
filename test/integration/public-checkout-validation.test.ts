// The public checkout endpoints and SBP lists answer validation failures as the gateway spec's
// Errors table has it: 400 VALIDATION_ERROR in {error: {code, message}}, the field in `param` and
// the specific catalogue code in `reason` (as the keyed gateway routes do). 404 and 409 keep
// their own codes.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { card, CARDS, newPayment } from '../helpers/checkout.js';
import { messageFor } from '../../src/errors.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const submit = (id: string, body: unknown, headers: Record<string, string> = {}) => s.request('POST', `/checkout/${id}/submit-method`, { body, headers });

type Row = [string, string, unknown, string | undefined, string];

t.test('field errors on submit-method, pay and the SBP lists: 400 VALIDATION_ERROR with param and reason', async (t) => {
  const id = await newPayment(s, m.key);
  const azn = await newPayment(s, m.key, { currency: 'AZN' });
  const rows: Row[] = [
    ['POST', `/checkout/${id}/submit-method`, {}, 'method_code', 'PARAMETER_MISSING'],
    ['POST', `/checkout/${id}/submit-method`, { method_code: 'cash' }, 'method_code', 'METHOD_CODE_INVALID'],
    ['POST', `/checkout/${id}/submit-method`, { method_code: 'card' }, 'method_code', 'METHOD_NOT_AVAILABLE'],
    ['POST', `/checkout/${azn}/submit-method`, { method_code: 'sbp' }, 'method_code', 'METHOD_NOT_AVAILABLE'],
    ['POST', `/checkout/${id}/submit-method`, { method_code: 'sbp', payload: { extra: { memberId: '999999999999' } } }, 'payload.extra.memberId', 'SBP_MEMBER_UNKNOWN'],
    ['POST', `/checkout/${id}/submit-method`, { method_code: 'sberpay', phone: '8900' }, 'phone', 'PHONE_INVALID'],
    ['POST', `/checkout/${id}/submit-method`, { method_code: 'sbp', shoe: 1 }, 'shoe', 'PARAMETER_UNKNOWN'],
    ['POST', `/checkout/${id}/pay`, card('4242424242424241'), 'number', 'CARD_NUMBER_INVALID'],
    ['POST', `/checkout/${id}/pay`, { exp_month: '12', exp_year: '34', cvc: '731' }, 'number', 'PARAMETER_MISSING'],
    ['GET', '/sbp/members/popular?limit=0', undefined, 'limit', 'LIMIT_INVALID'],
    ['GET', `/checkout/${id}/sbp-members?limit=abc`, undefined, 'limit', 'LIMIT_INVALID'],
  ];
  for (const [method, path, body, param, reason] of rows) {
    const r = await s.request(method, path, { body });
    t.same([r.status, r.body.error?.code, r.body.error?.param, r.body.error?.reason], [400, 'VALIDATION_ERROR', param, reason], `${method} ${path} ${JSON.stringify(body)}`);
    t.type(r.body.error?.message, 'string');
    t.equal(r.body.error?.type, undefined, 'the gateway envelope, not the merchant API one');
  }
  const st = await s.request('GET', `/checkout/${id}/status`);
  t.equal(st.body.status, 'open', 'nothing was attempted');
});

t.test('body errors: malformed JSON and a non-object body are 400 VALIDATION_ERROR too', async (t) => {
  const id = await newPayment(s, m.key);
  const bad = await fetch(`${s.url}/checkout/${id}/submit-method`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"method_code":' });
  const j = await bad.json() as { error: { code: string; reason?: string } };
  t.same([bad.status, j.error.code, j.error.reason], [400, 'VALIDATION_ERROR', 'JSON_INVALID']);
  const arr = await s.request('POST', `/checkout/${id}/pay`, { body: [1] });
  t.same([arr.status, arr.body.error.code, arr.body.error.reason], [400, 'VALIDATION_ERROR', 'BODY_INVALID']);
});

t.test('the message is the payer\'s: localised (rule 3) and without the developer\'s field prefix', async (t) => {
  const id = await newPayment(s, m.key);
  for (const lang of ['en', 'ru', 'az'] as const) {
    const r = await submit(id, { method_code: 'sbp', member_id: '999999999999' }, { 'accept-language': lang });
    t.same([r.status, r.body.error.reason, r.body.error.param], [400, 'SBP_MEMBER_UNKNOWN', 'member_id']);
    t.equal(r.body.error.message, messageFor('sbp_member_unknown', lang), `${lang}: the hosted page shows it as it is`);
  }
  const bad = await s.request('POST', `/checkout/${id}/pay`, { body: { number: '4242424242424241', exp_month: '12', exp_year: '34', cvc: '731' }, headers: { 'accept-language': 'ru' } });
  t.equal(bad.body.error.message, messageFor('card_number_invalid', 'ru'));
});

t.test('404 and 409 keep their own codes', async (t) => {
  const missing = await submit('pay_does_not_exist', { method_code: 'sbp' });
  t.equal(missing.status, 404);
  t.not(missing.body.error.code, 'VALIDATION_ERROR');
  const id = await newPayment(s, m.key);
  const paid = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.equal(paid.status, 200, paid.text);
  const closed = await submit(id, { method_code: 'sbp' });
  t.same([closed.status, closed.body.error.code], [409, 'CHECKOUT_CLOSED'], 'submit-method on a terminal session is 409');
});
