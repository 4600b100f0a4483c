// Gateway payments over HTTP: GET /v2/payments/{id} by payment_id, order_id and connector_transaction_id,
// the list (limit, offset, status, from, to, and the lookups by name; bad values 400), sessions paid on the hosted page showing
// as Payments, and POST /v2/payments/{id}/refund through the merchant API's refund machinery.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const s = await startTestServer(t, {});

async function issue(srv: TestServer, merchant: string, body: Record<string, unknown>) {
  const r = await srv.admin('POST', `/internal/merchants/${merchant}/api-keys`, body);
  if (r.status !== 201) throw new Error(`key: ${r.text}`);
  return r.body as { id: string; key: string };
}

const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const other = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await issue(s, m.id, { kind: 'secret', mode: 'test' })).key;
const otherSk = (await issue(s, other.id, { kind: 'secret', mode: 'test' })).key;
const readOnly = (await issue(s, m.id, { kind: 'restricted', mode: 'test', permissions: ['payments:read'] })).key;

async function session(body: Record<string, unknown> = {}) {
  const r = await s.request('POST', '/v2/payments/checkout', { key: sk, body: { amount: 4900, currency: 'RUB', ...body } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.id as string;
}
async function paid(body: Record<string, unknown> = {}) {
  const id = await session(body);
  const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  if (pay.body?.status !== 'succeeded') throw new Error(pay.text);
  return id;
}

const FIELDS = ['id', 'payment_id', 'order_id', 'checkout_session_id', 'amount', 'currency', 'status', 'payment_method', 'source', 'card_last4',
  'card_brand', 'customer_email', 'error_code', 'error_message', 'metadata', 'created_at', 'updated_at', 'connector_transaction_id', 'refunded_amount', 'refund_count', 'livemode'];

t.test('a session paid on the hosted page is a Payment, found by payment_id, order_id and connector_transaction_id', async (t) => {
  const id = await paid({ order_id: 'gp-1', customer: { email: 'buyer@example.com' }, metadata: { cart: '7' } });
  const r = await s.request('GET', `/v2/payments/${id}`, { key: sk });
  t.equal(r.status, 200, r.text);
  t.same(Object.keys(r.body).sort(), [...FIELDS].sort(), 'exactly the spec fields: never the connector');
  t.match(r.body, {
    id, payment_id: id, checkout_session_id: id, order_id: 'gp-1', amount: 4900, currency: 'RUB', status: 'succeeded', payment_method: 'card',
    source: 'checkout', card_last4: '4242', card_brand: 'visa', customer_email: 'buyer@example.com', error_code: null, metadata: { cart: '7' },
    refunded_amount: 0, refund_count: 0,
  });
  t.match(r.body.connector_transaction_id, /^att_/);
  t.notOk(r.text.includes('sandbox'), 'the internal connector is not named');
  const byOrder = await s.request('GET', '/v2/payments/gp-1', { key: sk });
  t.equal(byOrder.body.id, id, 'by order_id');
  const byRef = await s.request('GET', `/v2/payments/${r.body.connector_transaction_id}`, { key: sk });
  t.equal(byRef.body.id, id, 'by upstream reference');
  t.equal((await s.request('GET', `/v2/payments/${id}`, { key: readOnly })).status, 200, 'payments:read is enough');
  const foreign = await s.request('GET', `/v2/payments/${id}`, { key: otherSk });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error.code, 'PAYMENT_NOT_FOUND');
  t.equal((await s.request('GET', '/v2/payments/nope-at-all', { key: sk })).status, 404);
});

t.test("an id wins over an order_id; another merchant's payment id is only this merchant's order_id", async (t) => {
  const third = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const thirdSk = (await issue(s, third.id, { kind: 'secret', mode: 'test' })).key;
  const theirs = await s.request('POST', '/v2/payments/checkout', { key: thirdSk, body: { amount: 4900, currency: 'RUB' } });
  t.equal(theirs.status, 200, theirs.text);
  // This merchant names an order after the other merchant's payment id, and another order after its own payment's.
  const mine = await paid({ order_id: theirs.body.id });
  const own = await session();
  const shadow = await session({ order_id: own });
  const byForeignId = await s.request('GET', `/v2/payments/${theirs.body.id}`, { key: sk });
  t.equal(byForeignId.status, 200, byForeignId.text);
  t.equal(byForeignId.body.id, mine, "the other merchant's id finds this merchant's payment by its order_id");
  const refund = await s.request('POST', `/v2/payments/${theirs.body.id}/refund`, { key: sk, body: { amount: 100 } });
  t.equal(refund.status, 200, refund.text);
  t.equal(refund.body.payment_id, mine, 'the refund goes to the payment the name finds');
  t.equal((await s.request('GET', `/v2/payments/${theirs.body.id}`, { key: thirdSk })).body.status, 'pending', "the other merchant's payment is untouched");
  const byOwnId = await s.request('GET', `/v2/payments/${own}`, { key: sk });
  t.equal(byOwnId.body.id, own, 'a payment id wins over the order_id of another payment');
  t.not(byOwnId.body.id, shadow);
});

t.test('statuses as the gateway shows them: requires_action during 3-D Secure, failed with its code, pending while open', async (t) => {
  const open = await session();
  t.equal((await s.request('GET', `/v2/payments/${open}`, { key: sk })).body.status, 'pending');
  const tds = await session();
  const pay = await s.request('POST', `/checkout/${tds}/pay`, { body: card(CARDS.challenge) });
  t.equal(pay.body.status, 'requires_action');
  t.equal((await s.request('GET', `/v2/payments/${tds}`, { key: sk })).body.status, 'requires_action');
  const declined = await session();
  await s.request('POST', `/checkout/${declined}/pay`, { body: card(CARDS.insufficient) });
  t.match((await s.request('GET', `/v2/payments/${declined}`, { key: sk })).body, { status: 'failed', error_code: 'insufficient_funds', card_last4: '9995' });
});

t.test('the list: newest first, total, limit/offset, status, from/to; bad values are 400 VALIDATION_ERROR naming the field', async (t) => {
  const mm = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
  const key = (await issue(s, mm.id, { kind: 'secret', mode: 'test' })).key;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await s.request('POST', '/v2/payments/checkout', { key, body: { amount: 100 + i, currency: 'RUB' } });
    ids.push(r.body.id);
  }
  await s.request('POST', `/checkout/${ids[1]}/pay`, { body: card(CARDS.success) });
  const all = await s.request('GET', '/v2/payments', { key });
  t.equal(all.status, 200, all.text);
  t.match(all.body, { object: 'list', total: 3, limit: 20, offset: 0, has_more: false });
  t.same(all.body.data.map((p: { id: string }) => p.id), [...ids].reverse());
  const page = await s.request('GET', '/v2/payments?limit=1&offset=1', { key });
  t.match(page.body, { total: 3, limit: 1, offset: 1, has_more: true });
  t.same(page.body.data.map((p: { id: string }) => p.id), [ids[1]]);
  const succeeded = await s.request('GET', '/v2/payments?status=succeeded', { key });
  t.same(succeeded.body.data.map((p: { id: string }) => p.id), [ids[1]]);
  t.equal(succeeded.body.total, 1);
  const future = await s.request('GET', `/v2/payments?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`, { key });
  t.equal(future.body.total, 0);
  const past = await s.request('GET', `/v2/payments?to=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`, { key });
  t.equal(past.body.total, 3);
  for (const [q, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=x', 'limit'], ['offset=-1', 'offset'], ['status=paid', 'status'],
    ['from=yesterday', 'from'], ['color=red', 'color']] as const) {
    const r = await s.request('GET', `/v2/payments?${q}`, { key });
    t.equal(r.status, 400, q);
    t.equal(r.body.error.code, 'VALIDATION_ERROR', q);
    t.equal(r.body.error.param, param, q);
  }
  t.equal((await s.request('GET', '/v2/payments', { key: otherSk })).body.data.length, 0, 'another merchant sees none of them');
  const merchantApi = await s.request('GET', '/api/v2/payments', { key: mm.key });
  t.equal(merchantApi.body.data.length, 0, 'the merchant API list still leaves gateway payments out');

  // pending and requires_action share the stored status pending: the filter (in SQL, on the
  // checkout's wait) keeps pages and totals true, one row per page included.
  const challenged = await s.request('POST', `/checkout/${ids[2]}/pay`, { body: card(CARDS.challenge) });
  t.equal(challenged.body?.status, 'requires_action', challenged.text);
  for (const [status, want] of [['requires_action', [ids[2]]], ['pending', [ids[0]]], ['processing', []], ['succeeded', [ids[1]]]] as const) {
    const first = await s.request('GET', `/v2/payments?status=${status}&limit=1`, { key });
    t.same(first.body.data.map((p: { id: string }) => p.id), want.slice(0, 1), `${status}: the first page`);
    t.match(first.body, { total: want.length, has_more: want.length > 1 }, `${status}: its total`);
    for (const p of first.body.data) t.equal(p.status, status);
  }
});

t.test('refunds: partial, above the remaining balance (400 stating it), the rest, replay by idempotency_key, payment.refunded each time', async (t) => {
  const id = await paid();
  const part = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 900, reason: 'damaged', idempotency_key: `k1-${id}` } });
  t.equal(part.status, 200, part.text);
  t.match(part.body, { payment_id: id, status: 'partially_refunded', amount_refunded: 900, total_refunded: 900, remaining: 4000, reason: 'damaged' });
  t.match(part.body.id, /^ref_/);
  const again = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 900, reason: 'damaged', idempotency_key: `k1-${id}` } });
  t.equal(again.status, 200);
  t.same(again.body, part.body, 'the same key replays the first answer');
  const conflict = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 901, idempotency_key: `k1-${id}` } });
  t.equal(conflict.status, 409);
  const over = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 4001 } });
  t.equal(over.status, 400, over.text);
  t.equal(over.body.error.code, 'VALIDATION_ERROR');
  t.equal(over.body.error.param, 'amount');
  t.equal(over.body.error.remaining, 4000);
  t.match(over.body.error.message, /4000 remaining, in minor units \(40\.00 RUB\)/);
  const rest = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} });
  t.match(rest.body, { status: 'refunded', amount_refunded: 4000, total_refunded: 4900, remaining: 0, reason: null });
  const noBody = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} });
  t.equal(noBody.status, 400, 'nothing left to refund: 400, the spec lists 400 and 404 for refunds');
  t.same([noBody.body.error.code, noBody.body.error.reason, noBody.body.error.payment_status], ['VALIDATION_ERROR', 'PAYMENT_NOT_REFUNDABLE', 'refunded']);
  const p = await s.request('GET', `/v2/payments/${id}`, { key: sk });
  t.match(p.body, { status: 'refunded', refunded_amount: 4900, refund_count: 2 });
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.refunded'", [id]);
  t.equal(ev.rows[0].n, 2, 'one payment.refunded per refund');
  const rows = await s.db.query('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [id]);
  t.equal(rows.rows[0].n, 2, 'the one refunds table');
});

t.test('a refund retried with its idempotency_key after it took more than half of what was left is its replay, not REFUND_AMOUNT_INVALID (regression, issue 22)', async (t) => {
  const id = await paid();
  const body = { amount: 3000, idempotency_key: `big-${id}` };
  const first = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body });
  t.equal(first.status, 200, first.text);
  t.match(first.body, { amount_refunded: 3000, remaining: 1900 });
  // 3000 is now more than the 1900 left: the key answers before the amount rule.
  const retry = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body });
  t.equal(retry.status, 200, retry.text);
  t.same(retry.body, first.body, 'the first answer again');
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  // Without the key the same amount is refused, naming what is left.
  const fresh = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: { amount: 3000 } });
  t.equal(fresh.status, 400);
  t.match(fresh.body.error, { code: 'VALIDATION_ERROR', reason: 'REFUND_AMOUNT_INVALID', param: 'amount', remaining: 1900 });
  const rows = await s.db.query('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [id]);
  t.equal(rows.rows[0].n, 1, 'one refund');
});

t.test('refund: bad values, unpaid payments, permissions', async (t) => {
  const id = await paid();
  for (const [body, param] of [[{ amount: 0 }, 'amount'], [{ amount: 'x' }, 'amount'], [{ reason: 'r'.repeat(501) }, 'reason'],
    [{ idempotency_key: 'k'.repeat(129) }, 'idempotency_key'], [{ color: 'red' }, 'color']] as const) {
    const r = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'VALIDATION_ERROR');
    t.equal(r.body.error.param, param);
  }
  const open = await session();
  const r = await s.request('POST', `/v2/payments/${open}/refund`, { key: sk, body: {} });
  t.equal(r.status, 400, 'unpaid: 400 (the spec lists 400 and 404 for refunds)');
  t.same([r.body.error.code, r.body.error.reason, r.body.error.payment_status], ['VALIDATION_ERROR', 'PAYMENT_NOT_REFUNDABLE', 'pending']);
  t.equal((await s.request('POST', `/v2/payments/${id}/refund`, { key: readOnly, body: {} })).status, 403, 'refunds:write is needed');
  t.equal((await s.request('POST', `/v2/payments/${id}/refund`, { key: otherSk, body: {} })).status, 404);
  t.equal((await s.request('GET', `/v2/payments/${id}`, { key: sk })).body.refunded_amount, 0, 'nothing moved');
});
