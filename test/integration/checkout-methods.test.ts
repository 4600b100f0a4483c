// POST /checkout/{id}/submit-method for every method but card: the right next_action, the SBP
// whitelist before any bank call, E.164 phones, device-wallet tokens, recurrent with a saved card
// of the same merchant and customer, and 409 once finished.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { answerPage, card, CARDS, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const other = await s.merchant({ currencies: ['AZN', 'RUB'] });
const submit = (id: string, body: unknown, headers: Record<string, string> = {}) => s.request('POST', `/checkout/${id}/submit-method`, { body, headers });
const refOf = (url: string) => new URL(url).searchParams.get('ref')!;

t.test('sbp: show_qr with a data URL image, raw payload and deeplink; the bank page approves', async (t) => {
  const id = await newPayment(s, m.key);
  const r = await submit(id, { method_code: 'sbp', payload: { dynamic: true, extra: { memberId: '100000000004' } } });
  t.equal(r.status, 200, r.text);
  t.equal(r.body.status, 'requires_action');
  const a = r.body.next_action;
  t.equal(a.type, 'show_qr');
  t.match(a.qr_image_url, /^data:image\/svg\+xml;base64,/);
  t.match(a.qr_raw_payload, new RegExp(`/sandbox/sbp/${id}\\?ref=sbx_sbp_`));
  t.match(a.deeplink, /&member=100000000004$/);
  const st = await s.request('GET', `/checkout/${id}/status`);
  t.same([st.body.status, st.body.selected_method_code, st.body.next_action.type], ['requires_action', 'sbp', 'show_qr']);
  const bank = await fetch(a.deeplink);
  t.equal(bank.status, 200);
  t.match(await bank.text(), /value="approve"/);
  const back = await answerPage(s, 'sbp', id, refOf(a.qr_raw_payload), 'approve');
  t.equal(back.status, 302);
  t.equal(back.headers.get('location'), `/pay/${id}?lang=en`);
  const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.same([p.body.status, p.body.method], ['succeeded', 'sbp']);
});

t.test('sbp whitelist: an unknown member id is refused at once, localised, with its param; empty ids are not checked', async (t) => {
  const id = await newPayment(s, m.key);
  for (const [body, param] of [
    [{ method_code: 'sbp', member_id: '999999999999' }, 'member_id'],
    [{ method_code: 'sbp', payload: { extra: { memberId: '999999999999' } } }, 'payload.extra.memberId'],
    [{ method_code: 'sbp', payload: { extra: { bank_id: '999999999999' } } }, 'payload.extra.bank_id'],
  ] as const) {
    const r = await submit(id, body, { 'accept-language': 'ru' });
    t.same([r.status, r.body.error.code], [400, 'VALIDATION_ERROR'], r.text);
    t.equal(r.body.error.reason, 'SBP_MEMBER_UNKNOWN');
    t.equal(r.body.error.param, param);
    t.match(r.body.error.message, /СБП/);
  }
  const bad = await submit(id, { method_code: 'sbp', member_id: '12ab' });
  t.same([bad.status, bad.body.error.reason], [400, 'SBP_MEMBER_UNKNOWN']);
  const st = await s.request('GET', `/checkout/${id}/status`);
  t.equal(st.body.status, 'open', 'no bank call was made');
  const empty = await submit(id, { method_code: 'sbp', member_id: '', payload: { extra: { memberId: '' } } });
  t.equal(empty.status, 200);
  t.equal(empty.body.next_action.type, 'show_qr');
});

t.test('sbp is not offered for a non-RUB payment', async (t) => {
  const id = await newPayment(s, m.key, { currency: 'AZN' });
  const r = await submit(id, { method_code: 'sbp' });
  t.same([r.status, r.body.error.reason, r.body.error.param], [400, 'METHOD_NOT_AVAILABLE', 'method_code']);
  const members = await s.request('GET', `/checkout/${id}/sbp-members`);
  t.same([members.body.count, members.body.currency_supported], [0, false]);
  const rub = await newPayment(s, m.key);
  const list = await s.request('GET', `/checkout/${rub}/sbp-members?limit=3`);
  t.same([list.body.count, list.body.currency_supported], [3, true]);
  t.ok(list.body.data.every((b: { is_popular: boolean }) => b.is_popular), 'popular banks first');
  t.match(list.body.data[0], { member_id: /^\d{12}$/, name: { en: String, ru: String, az: String } });
  const all = await s.request('GET', '/sbp/members');
  t.ok(all.body.count >= 8);
});

for (const wallet of ['sberpay', 'tpay', 'yoomoney']) {
  t.test(`${wallet}: redirect to the wallet page, which approves or declines`, async (t) => {
    const a = await newPayment(s, m.key);
    const r = await submit(a, { method_code: wallet, ...(wallet === 'yoomoney' ? { wallet_id: 'w1' } : { phone: '+79001234567' }) });
    t.equal(r.status, 200, r.text);
    t.equal(r.body.next_action.type, 'redirect');
    t.match(r.body.next_action.redirect_url, new RegExp(`/sandbox/wallet/${a}\\?ref=sbx_${wallet}_.*&wallet=${wallet}$`));
    const page = await fetch(r.body.next_action.redirect_url);
    t.equal(page.status, 200);
    await answerPage(s, 'wallet', a, refOf(r.body.next_action.redirect_url), 'approve');
    t.equal((await s.request('GET', `/checkout/${a}/status`)).body.status, 'succeeded');
    const b = await newPayment(s, m.key);
    const rb = await submit(b, { method_code: wallet });
    await answerPage(s, 'wallet', b, refOf(rb.body.next_action.redirect_url), 'decline');
    const st = await s.request('GET', `/checkout/${b}/status`);
    t.same([st.body.status, st.body.failure.code, st.body.selected_method_code], ['failed', 'card_declined', wallet]);
  });
}

t.test('E.164 phone for sberpay and tpay', async (t) => {
  const id = await newPayment(s, m.key);
  for (const phone of ['89001234567', '+0123456789', '+7 900 123 45 67', '+7900', '+7900123456789012', 5]) {
    for (const method_code of ['sberpay', 'tpay']) {
      const r = await submit(id, { method_code, phone });
      t.same([r.status, r.body.error?.reason, r.body.error?.param], [400, 'PHONE_INVALID', 'phone'], `${method_code} ${phone}`);
    }
  }
});

t.test('apple_pay and google_pay need a token; the sandbox approves or declines it', async (t) => {
  for (const method_code of ['apple_pay', 'google_pay']) {
    const id = await newPayment(s, m.key);
    const none = await submit(id, { method_code });
    t.same([none.status, none.body.error.reason, none.body.error.param], [400, 'PAYMENT_TOKEN_INVALID', 'payment_token']);
    const empty = await submit(id, { method_code, payment_token: '' });
    t.same([empty.status, empty.body.error.reason], [400, 'PAYMENT_TOKEN_INVALID']);
    const badData = await submit(id, { method_code, payment_data: 'x' });
    t.same([badData.status, badData.body.error.reason], [400, 'PAYMENT_TOKEN_INVALID']);
    const ok = await submit(id, { method_code, payment_data: { version: 'EC_v1', data: 'sandbox' } });
    t.equal(ok.body.status, 'succeeded', ok.text);
    const id2 = await newPayment(s, m.key);
    const no = await submit(id2, { method_code, payment_token: 'sandbox_decline' });
    t.same([no.body.status, no.body.error.code], ['failed', 'CARD_DECLINED']);
  }
});

t.test('recurrent: a card saved on an earlier payment of the same merchant and customer', async (t) => {
  const first = await newPayment(s, m.key, { customer: { email: 'bob@shop.example' } });
  await s.request('POST', `/checkout/${first}/pay`, { body: card(CARDS.mastercard) });
  const { rows } = await s.db.query('SELECT id FROM saved_cards WHERE payment_id = $1', [first]);
  const pm = rows[0].id as string;
  t.match(pm, /^pm_/);
  const second = await newPayment(s, m.key, { customer: { email: 'BOB@shop.example' } });
  const r = await submit(second, { method_code: 'recurrent', saved_payment_method_id: pm });
  t.equal(r.body.status, 'succeeded', r.text);
  const p = await s.request('GET', `/api/v2/payments/${second}`, { key: m.key });
  t.same(p.body.card, { brand: 'mastercard', last4: '4444', country: 'US' });
  const stranger = await newPayment(s, m.key, { customer: { email: 'eve@shop.example' } });
  const r2 = await submit(stranger, { method_code: 'recurrent', saved_payment_method_id: pm });
  t.same([r2.status, r2.body.error.code], [404, 'SAVED_PAYMENT_METHOD_NOT_FOUND'], 'another customer');
  const otherMerchant = await newPayment(s, other.key, { customer: { email: 'bob@shop.example' } });
  const r3 = await submit(otherMerchant, { method_code: 'recurrent', saved_payment_method_id: pm });
  t.same([r3.status, r3.body.error.code], [404, 'SAVED_PAYMENT_METHOD_NOT_FOUND'], 'another merchant');
  const r4 = await submit(stranger, { method_code: 'recurrent' });
  t.same([r4.status, r4.body.error.reason, r4.body.error.param], [400, 'PARAMETER_MISSING', 'saved_payment_method_id']);
  const r5 = await submit(stranger, { method_code: 'recurrent', saved_payment_method_id: 'card_1' });
  t.same([r5.status, r5.body.error.code, r5.body.error.param], [404, 'SAVED_PAYMENT_METHOD_NOT_FOUND', 'saved_payment_method_id'], 'malformed id');
});

t.test('every other invalid field has its code', async (t) => {
  const id = await newPayment(s, m.key);
  const CASES: [Record<string, unknown>, number, string, string][] = [
    [{}, 400, 'PARAMETER_MISSING', 'method_code'],
    [{ method_code: 'cash' }, 400, 'METHOD_CODE_INVALID', 'method_code'],
    [{ method_code: 'card' }, 400, 'METHOD_NOT_AVAILABLE', 'method_code'],
    [{ method_code: 'sbp', email: 'nope' }, 400, 'EMAIL_INVALID', 'email'],
    [{ method_code: 'yoomoney', wallet_id: 'a b' }, 400, 'PARAMETER_INVALID', 'wallet_id'],
    [{ method_code: 'sbp', payload: { dynamic: 'yes' } }, 400, 'SBP_MEMBER_UNKNOWN', 'payload.dynamic'],
    [{ method_code: 'sbp', payload: { extra: { other: '1' } } }, 400, 'PARAMETER_UNKNOWN', 'payload.extra.other'],
    [{ method_code: 'sbp', shoe: 1 }, 400, 'PARAMETER_UNKNOWN', 'shoe'],
  ];
  for (const [body, status, code, param] of CASES) {
    const r = await submit(id, body);
    t.same([r.status, r.body.error?.code, r.body.error?.reason, r.body.error?.param], [status, 'VALIDATION_ERROR', code, param], JSON.stringify(body));
  }
  const nf = await submit('EXZ-20261121-0000000000', { method_code: 'sbp' });
  t.same([nf.status, nf.body.error.code], [404, 'PAYMENT_NOT_FOUND']);
});

t.test('409 on a finished payment; switching methods while one is awaited', async (t) => {
  const id = await newPayment(s, m.key);
  const q = await submit(id, { method_code: 'sbp' });
  t.equal(q.body.next_action.type, 'show_qr');
  const w = await submit(id, { method_code: 'tpay' });
  t.equal(w.body.next_action.type, 'redirect', 'the customer may switch method');
  const stale = await answerPage(s, 'sbp', id, refOf(q.body.next_action.qr_raw_payload), 'approve');
  t.equal(stale.status, 409, 'the replaced attempt is refused on an error page');
  t.match(await stale.text(), /data-code="checkout_action_stale"/);
  t.equal((await s.request('GET', `/checkout/${id}/status`)).body.status, 'requires_action', 'the replaced QR attempt does not settle');
  await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  for (const body of [{ method_code: 'sbp' }, { method_code: 'tpay' }, { method_code: 'apple_pay', payment_token: 'x' }]) {
    const r = await submit(id, body);
    t.same([r.status, r.body.error.code], [409, 'CHECKOUT_CLOSED'], body.method_code);
  }
});
