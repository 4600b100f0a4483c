// Refunds work for every method the sandbox bank can pay: card, 3-D Secure card, SBP, the redirect
// wallets, Apple Pay and Google Pay, a saved card, and a payment settled by the test helper. Each
// refund is one bank operation against the payment's charge reference.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { answerChallenge, answerPage, card, CARDS, newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const submit = (id: string, body: unknown) => s.request('POST', `/checkout/${id}/submit-method`, { body });
const refOf = (url: string) => new URL(url).searchParams.get('ref')!;

const PAY: Record<string, (id: string) => Promise<unknown>> = {
  card: (id) => s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) }),
  three_ds: async (id) => {
    const r = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
    return answerChallenge(s, id, r.body.next_action.creq, 'Y');
  },
  sbp: async (id) => {
    const r = await submit(id, { method_code: 'sbp' });
    return answerPage(s, 'sbp', id, refOf(r.body.next_action.qr_raw_payload), 'approve');
  },
  ...Object.fromEntries(['sberpay', 'tpay', 'yoomoney'].map((w) => [w, async (id: string) => {
    const r = await submit(id, { method_code: w });
    return answerPage(s, 'wallet', id, refOf(r.body.next_action.redirect_url), 'approve');
  }])),
  apple_pay: (id) => submit(id, { method_code: 'apple_pay', payment_token: 'tok' }),
  google_pay: (id) => submit(id, { method_code: 'google_pay', payment_data: { version: 'x' } }),
  recurrent: async (id) => {
    const first = await newPayment(s, m.key, { customer: { email: 'saved@shop.example' } });
    await s.request('POST', `/checkout/${first}/pay`, { body: card(CARDS.mastercard) });
    const { rows } = await s.db.query('SELECT id FROM saved_cards WHERE payment_id = $1', [first]);
    return submit(id, { method_code: 'recurrent', saved_payment_method_id: rows[0].id });
  },
  test_helper: (id) => s.request('POST', `/api/v2/test/payments/${id}/complete`, { key: m.key, body: { outcome: 'succeeded' } }),
};

for (const [method, pay] of Object.entries(PAY)) {
  t.test(`${method}: a partial and a full refund`, async (t) => {
    const id = await newPayment(s, m.key, { amount: 4900, ...(method === 'recurrent' ? { customer: { email: 'saved@shop.example' } } : {}) });
    await pay(id);
    const paid = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
    t.equal(paid.body.status, 'succeeded', `paid by ${method}`);
    const a = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, body: { amount: 900 } });
    t.match(a.body, { refund: { status: 'succeeded', amount: 900, currency: 'RUB' }, payment: { status: 'partially_refunded', amount_refunded: 900 } }, 'partial refund');
    const b = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key });
    t.match(b.body, { refund: { status: 'succeeded', amount: 4000 }, payment: { status: 'refunded', amount_refunded: 4900 } }, 'the rest');
    const ops = await s.db.query(
      `SELECT a.operation, a.status, a.context->>'chargeRef' AS charge_ref, l.moved, l.amount::int
       FROM connector_attempts a LEFT JOIN sandbox_ledger l ON l.idempotency_key = a.id
       WHERE a.aggregate_id = $1 ORDER BY a.created_at`, [id]);
    const refunds = ops.rows.filter((r) => r.operation === 'refund');
    t.same(refunds.map((r) => [r.status, r.moved, r.amount]), [['succeeded', true, 900], ['succeeded', true, 4000]], 'one bank operation per refund');
    const charge = await s.db.query(
      `SELECT result->>'ref' AS ref FROM connector_attempts WHERE aggregate_id = $1 AND status = 'succeeded' AND operation <> 'refund'`, [id]);
    const expected = method === 'test_helper' ? null : charge.rows[0]?.ref;
    if (method !== 'test_helper') t.match(expected, /^sbx_/, 'the charge has a bank reference');
    t.ok(refunds.every((r) => r.charge_ref === expected), `refunds name the charge ${expected}`);
  });
}

t.test('a method whose capability row says no refunds: 422 refund_not_supported, before any bank call', async (t) => {
  const off = await s.admin('PUT', '/internal/catalog/capabilities/sandbox/tpay', { supports_refund: false });
  t.equal(off.status, 200, off.text);
  t.teardown(() => s.admin('PUT', '/internal/catalog/capabilities/sandbox/tpay', { supports_refund: true }));
  const id = await newPayment(s, m.key);
  await PAY.tpay(id);
  const r = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, body: { amount: 100 } });
  t.same([r.status, r.body.error?.code], [422, 'refund_not_supported']);
  const ops = await s.db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1 AND operation = 'refund'", [id]);
  t.equal(ops.rows[0].n, 0, 'the bank was not asked');
  const card = await newPayment(s, m.key);
  await PAY.card(card);
  const ok = await s.request('POST', `/api/v2/payments/${card}/refunds`, { key: m.key, body: { amount: 100 } });
  t.equal(ok.status, 201, 'other methods still refund');
});
