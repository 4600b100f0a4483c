// POST /checkout/{id}/pay with the sandbox bank's test cards: outcomes, two-phase 3-D Secure,
// every invalid field with its code, 409 once finished, what is stored and sent to the outbox.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { answerChallenge, card, CARDS, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });

t.test('a success card settles at once: status, card summary, paid_at, outbox event', async (t) => {
  const id = await newPayment(s, m.key, { customer: { email: 'Ann@Shop.example' } });
  const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success, { holder: 'Ann Lee' }) });
  t.equal(r.status, 200, r.text);
  t.same({ session_id: r.body.session_id, status: r.body.status }, { session_id: id, status: 'succeeded' });
  t.notOk('next_action' in r.body, 'no next_action once terminal');
  const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(p.body.status, 'succeeded');
  t.same(p.body.card, { brand: 'visa', last4: '4242', country: 'US' });
  t.ok(p.body.paid_at);
  t.equal(p.body.method, 'card');
  const st = await s.request('GET', `/checkout/${id}/status`);
  t.same({ status: st.body.status, payment_status: st.body.payment_status, selected: st.body.selected_method_code, next: st.body.next_action },
    { status: 'succeeded', payment_status: 'succeeded', selected: 'card', next: null });
  const { rows } = await s.db.query("SELECT type FROM events WHERE aggregate_id = $1 ORDER BY created_at", [id]);
  t.same(rows.map((x: { type: string }) => x.type), ['payment.created', 'payment.succeeded']);
  const row = (await s.db.query('SELECT card FROM payments WHERE id = $1', [id])).rows[0];
  t.match(row.card, { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034, fingerprint: /^[0-9a-f]{64}$/ });
  const saved = (await s.db.query('SELECT customer_key, card FROM saved_cards WHERE payment_id = $1', [id])).rows;
  t.equal(saved.length, 1, 'the card is saved for the customer');
  t.equal(saved[0].customer_key, 'ann@shop.example');
});

for (const [name, number, brand] of [['mastercard', CARDS.mastercard, 'mastercard'], ['mir', CARDS.mir, 'mir']]) {
  t.test(`${name} test card succeeds`, async (t) => {
    const id = await newPayment(s, m.key);
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(number) });
    t.equal(r.body.status, 'succeeded', r.text);
    const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
    t.equal(p.body.card.brand, brand);
  });
}

for (const [name, number, code] of [
  ['insufficient funds', CARDS.insufficient, 'insufficient_funds'], ['expired card', CARDS.expired, 'card_expired'],
  ['declined', CARDS.declined, 'card_declined'], ['limit exceeded', CARDS.limit, 'limit_exceeded'],
]) {
  t.test(`${name}: failed with ${code}`, async (t) => {
    const id = await newPayment(s, m.key);
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(number), headers: { 'accept-language': 'ru' } });
    t.equal(r.status, 200);
    t.equal(r.body.status, 'failed');
    t.equal(r.body.error.code, code.toUpperCase());
    const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
    t.equal(p.body.status, 'failed');
    t.equal(p.body.failure.code, code);
    const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.failed'", [id]);
    t.equal(ev.rows[0].n, 1);
  });
}

t.test('3-D Secure: requires_action with acs_url and creq, then passes on the ACS page', async (t) => {
  const id = await newPayment(s, m.key);
  const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  t.equal(r.body.status, 'requires_action');
  t.equal(r.body.next_action.type, 'three_ds_challenge');
  t.equal(r.body.next_action.acs_url, `${s.srv.services.config.publicBaseUrl}/sandbox/3ds/${id}`);
  const st = await s.request('GET', `/checkout/${id}/status`);
  t.equal(st.body.status, 'requires_action');
  t.same(st.body.next_action, r.body.next_action);
  const acs = await fetch(`${r.body.next_action.acs_url}?creq=${r.body.next_action.creq}`);
  t.equal(acs.status, 200);
  t.match(await acs.text(), /name="answer" value="Y"/);
  t.equal(await answerChallenge(s, id, r.body.next_action.creq, 'Y'), 302);
  const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.equal(p.body.status, 'succeeded');
  t.same(p.body.card, { brand: 'visa', last4: '3220', country: 'GB' });
  t.equal(await answerChallenge(s, id, r.body.next_action.creq, 'Y'), 409, 'a second answer changes nothing, and says so');
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.succeeded'", [id]);
  t.equal(ev.rows[0].n, 1);
});

t.test('3-D Secure failed: authentication_failed; 1629 declines after a passed check', async (t) => {
  const a = await newPayment(s, m.key);
  const ra = await s.request('POST', `/checkout/${a}/pay`, { body: card(CARDS.challenge) });
  await answerChallenge(s, a, ra.body.next_action.creq, 'N');
  t.equal((await s.request('GET', `/api/v2/payments/${a}`, { key: m.key })).body.failure.code, 'authentication_failed');
  const b = await newPayment(s, m.key);
  const rb = await s.request('POST', `/checkout/${b}/pay`, { body: card(CARDS.challengeThenDecline) });
  t.equal(rb.body.status, 'requires_action');
  await answerChallenge(s, b, rb.body.next_action.creq, 'Y');
  t.equal((await s.request('GET', `/api/v2/payments/${b}`, { key: m.key })).body.failure.code, 'card_declined');
});

t.test('a challenge answer of an older attempt is refused (409) and changes nothing', async (t) => {
  const id = await newPayment(s, m.key);
  const first = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  const second = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  t.not(first.body.next_action.creq, second.body.next_action.creq);
  t.equal(await answerChallenge(s, id, first.body.next_action.creq, 'Y'), 409, 'the stale answer is refused on an error page');
  t.equal((await s.request('GET', `/checkout/${id}/status`)).body.status, 'requires_action', 'still waiting for the current attempt');
  await answerChallenge(s, id, second.body.next_action.creq, 'Y');
  t.equal((await s.request('GET', `/checkout/${id}/status`)).body.status, 'succeeded');
});

const BAD: [string, Record<string, unknown>, string, string][] = [
  ['Luhn', { number: '4242424242424241' }, 'CARD_NUMBER_INVALID', 'number'],
  ['number not a string', { number: 4242424242424242 }, 'CARD_NUMBER_INVALID', 'number'],
  ['month', { exp_month: '13' }, 'CARD_EXPIRY_INVALID', 'exp_month'],
  ['past year', { exp_year: '20' }, 'CARD_EXPIRY_INVALID', 'exp_year'],
  ['year type', { exp_year: true }, 'CARD_EXPIRY_INVALID', 'exp_year'],
  ['cvc', { cvc: '12' }, 'CARD_CVC_INVALID', 'cvc'],
  ['holder', { holder: 'x'.repeat(101) }, 'CARD_HOLDER_INVALID', 'holder'],
  ['unknown field', { pin: '1234' }, 'PARAMETER_UNKNOWN', 'pin'],
];
for (const [name, patch, code, param] of BAD) {
  t.test(`invalid ${name}: ${code}, the number is never echoed`, async (t) => {
    const id = await newPayment(s, m.key);
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: { ...card(CARDS.success), ...patch } });
    t.same([r.status, r.body.error.code], [400, 'VALIDATION_ERROR'], r.text);
    t.equal(r.body.error.reason, code);
    t.equal(r.body.error.param, param);
    t.notMatch(r.text, /424242424242/);
    t.equal((await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body.status, 'pending');
  });
}

t.test('a missing number, malformed JSON and an unknown payment', async (t) => {
  const id = await newPayment(s, m.key);
  const miss = await s.request('POST', `/checkout/${id}/pay`, { body: { exp_month: '12', exp_year: '30', cvc: '123' } });
  t.same([miss.status, miss.body.error.reason, miss.body.error.param], [400, 'PARAMETER_MISSING', 'number']);
  const bad = await s.request('POST', `/checkout/${id}/pay`, { raw: '{"number": "4242424242424242", ' });
  t.same([bad.status, bad.body.error.code, bad.body.error.reason], [400, 'VALIDATION_ERROR', 'JSON_INVALID']);
  t.notMatch(bad.text, /4242/);
  for (const other of ['EXZ-20261121-0000000000', 'nope']) {
    const r = await s.request('POST', `/checkout/${other}/pay`, { body: card(CARDS.success) });
    t.same([r.status, r.body.error.code], [404, 'PAYMENT_NOT_FOUND']);
  }
});

t.test('409 on a finished payment, before any bank call', async (t) => {
  const id = await newPayment(s, m.key);
  await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.declined) });
  for (const number of [CARDS.success, CARDS.challenge]) {
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(number) });
    t.equal(r.status, 409);
    t.equal(r.body.error.code, 'CHECKOUT_CLOSED');
  }
  t.equal((await s.request('GET', `/api/v2/payments/${id}`, { key: m.key })).body.failure.code, 'card_declined', 'the outcome stays');
});

t.test('parallel payments of one payment: one outcome, one event, the others 409', async (t) => {
  const id = await newPayment(s, m.key);
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => s.request('POST', `/checkout/${id}/pay`, { body: card(i % 2 ? CARDS.success : CARDS.declined) })));
  const settled = replies.filter((r) => r.status === 200);
  t.equal(settled.length, 1, 'exactly one attempt settled');
  t.ok(replies.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error.code === 'CHECKOUT_CLOSED'));
  const { rows } = await s.db.query("SELECT type FROM events WHERE aggregate_id = $1 AND type <> 'payment.created'", [id]);
  t.equal(rows.length, 1);
  t.equal(rows[0].type, settled[0].body.status === 'succeeded' ? 'payment.succeeded' : 'payment.failed');
});

t.test('live mode: a live payment is refused with connector_not_configured', async (t) => {
  const id = await newPayment(s, m.liveKey);
  const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.equal(r.status, 503);
  t.equal(r.body.error.code, 'CONNECTOR_NOT_CONFIGURED');
  t.equal((await s.request('GET', `/api/v2/payments/${id}`, { key: m.liveKey })).body.status, 'pending');
});
