// Capture and cancel of a gateway direct payment (capture_method manual) go to the sandbox bank
// through the attempt protocol: a partial capture is one `capture` operation in the bank's ledger
// (the rest released), a cancel one `void`; a capture the bank refuses (amount ending in 666) leaves
// the payment authorized; the wrong state is 409 with nothing sent to the bank. A direct payment
// whose pay step is refused for good (a stranger's saved card, a test card in live mode) is
// cancelled at once instead of staying pending until its session lifetime.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t, {});
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
const sk = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' })).body.key as string;

const authorize = async (amount: number) => {
  const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount, currency: 'RUB', card: card(CARDS.success), capture_method: 'manual' } });
  if (r.status !== 200 || r.body.status !== 'authorized') throw new Error(r.text);
  return r.body.id as string;
};
const post = (id: string, action: 'capture' | 'cancel', body: unknown = {}, idem?: string) =>
  s.request('POST', `/v2/payments/${id}/${action}`, { key: sk, body, headers: idem ? { 'idempotency-key': idem } : {} });

/** The sandbox bank's ledger for a payment: operation, amount, whether it took effect, its answer. */
async function ledger(id: string, operation?: string) {
  const { rows } = await s.db.query(
    `SELECT l.operation, l.amount::int AS amount, l.moved, l.result FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
     WHERE a.aggregate_id = $1 AND ($2::text IS NULL OR l.operation = $2) ORDER BY l.created_at`, [id, operation ?? null]);
  return rows as { operation: string; amount: number; moved: boolean; result: any }[];
}
const attempts = async (id: string) => (await s.db.query('SELECT operation, status, amount::int AS amount FROM connector_attempts WHERE aggregate_id = $1 ORDER BY created_at', [id])).rows;

t.test('a partial capture is one capture at the bank, the rest released; the payment is the captured amount', async (t) => {
  const id = await authorize(5000);
  const before = await s.request('GET', `/v2/payments/${id}`, { key: sk });
  const cap = await post(id, 'capture', { amount: 3000 });
  t.equal(cap.status, 200, cap.text);
  t.match(cap.body, { id, status: 'succeeded', amount: 3000 });
  t.equal(cap.body.connector_transaction_id, before.body.connector_transaction_id, 'the bank reference stays the authorization\'s');
  const caps = await ledger(id, 'capture');
  t.equal(caps.length, 1, 'exactly one capture operation');
  t.match(caps[0], { amount: 3000, moved: true, result: { kind: 'succeeded', released: 2000 } });
  t.match(await attempts(id), [{ operation: 'authorize_card', status: 'succeeded' }, { operation: 'capture', status: 'succeeded', amount: 3000 }]);
  const again = await post(id, 'capture', {});
  t.same([again.status, again.body.error.code], [409, 'PAYMENT_NOT_CAPTURABLE']);
  const late = await post(id, 'cancel');
  t.same([late.status, late.body.error.code], [409, 'PAYMENT_NOT_CANCELLABLE']);
  t.equal((await ledger(id, 'capture')).length, 1, 'the refused requests sent nothing to the bank');
  t.equal((await ledger(id, 'void')).length, 0);
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.succeeded'", [id]);
  t.equal(ev.rows[0].n, 1, 'one payment.succeeded');
  const refund = await s.request('POST', `/v2/payments/${id}/refund`, { key: sk, body: {} });
  t.match(refund.body, { status: 'refunded', amount_refunded: 3000, remaining: 0 }, 'a refund returns what was captured');
});

t.test('a full capture takes the whole authorization', async (t) => {
  const id = await authorize(2500);
  const cap = await post(id, 'capture');
  t.match(cap.body, { status: 'succeeded', amount: 2500 });
  t.match(await ledger(id, 'capture'), [{ amount: 2500, moved: true, result: { released: 0 } }]);
});

t.test('a cancel is one void at the bank; then capture is 409', async (t) => {
  const id = await authorize(4000);
  const c = await post(id, 'cancel');
  t.equal(c.status, 200, c.text);
  t.match(c.body, { status: 'cancelled', error_code: null });
  t.match(await ledger(id, 'void'), [{ amount: 4000, moved: true, result: { kind: 'succeeded', released: 4000 } }]);
  const cap = await post(id, 'capture');
  t.same([cap.status, cap.body.error.code], [409, 'PAYMENT_NOT_CAPTURABLE']);
  t.equal((await ledger(id, 'capture')).length, 0);
  const ev = await s.db.query("SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type = 'payment.cancelled'", [id]);
  t.equal(ev.rows[0].n, 1);
});

t.test('the bank refuses a capture of an amount ending in 666: 502, still authorized; another capture succeeds', async (t) => {
  const id = await authorize(5000);
  const no = await post(id, 'capture', { amount: 1666 });
  t.equal(no.status, 502, no.text);
  t.equal(no.body.error.code, 'CAPTURE_FAILED');
  t.equal((await s.request('GET', `/v2/payments/${id}`, { key: sk })).body.status, 'authorized', 'nothing was taken');
  t.match(await ledger(id, 'capture'), [{ amount: 1666, moved: false, result: { kind: 'failed', code: 'capture_declined' } }]);
  const yes = await post(id, 'capture', { amount: 1000 });
  t.match(yes.body, { status: 'succeeded', amount: 1000 });
  t.equal((await ledger(id, 'capture')).filter((l) => l.moved).length, 1, 'one capture moved money');
  const open = await s.db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1 AND status = 'started'", [id]);
  t.equal(open.rows[0].n, 0);
});

t.test('bad capture amounts are 400 before the bank; an unknown payment is 404', async (t) => {
  const id = await authorize(1000);
  for (const amount of [1001, 0, -1, 1.5, '100']) {
    const r = await post(id, 'capture', { amount });
    t.equal(r.status, 400, `${amount}: ${r.text}`);
  }
  t.equal((await ledger(id, 'capture')).length, 0);
  t.equal((await post('cs_nope', 'capture')).status, 404);
  t.equal((await post('cs_nope', 'cancel')).status, 404);
});

t.test('a pay step refused for good ends the payment cancelled, not pending until the session lifetime', async (t) => {
  const stranger = await s.request('POST', '/v2/payments', {
    key: sk, body: { amount: 700, currency: 'RUB', payment_method: 'token', token: 'pm_nobody', customer: { email: 'mallory@shop.example' }, order_id: 'orphan-1' },
  });
  t.equal(stranger.status, 404, stranger.text);
  const row = (await s.db.query("SELECT id, status FROM payments WHERE merchant_id = $1 AND order_id = 'orphan-1'", [m.id])).rows;
  t.same(row.map((r) => r.status), ['cancelled'], 'the row it created is cancelled');
  const got = await s.request('GET', '/v2/payments/orphan-1', { key: sk });
  t.match(got.body, { status: 'cancelled', error_code: null });
  t.equal((await ledger(row[0].id)).length, 0, 'nothing reached the bank');

  const live = (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'live' })).body.key as string;
  const lv = await s.request('POST', '/v2/payments', { key: live, body: { amount: 700, currency: 'RUB', card: card(CARDS.success), order_id: 'orphan-2' } });
  t.equal(lv.status >= 400, true, lv.text);
  const lrow = (await s.db.query("SELECT status FROM payments WHERE merchant_id = $1 AND order_id = 'orphan-2'", [m.id])).rows;
  t.same(lrow.map((r) => r.status), ['cancelled'], 'a live payment the connector refused is cancelled too');
});

t.test('capture and cancel take an Idempotency-Key: a retry is the first answer again, never 409 for its own change (issue 22)', async (t) => {
  const id = await authorize(4000);
  const cap = await post(id, 'capture', { amount: 2500 }, `cap-${id}`);
  t.equal(cap.status, 200, cap.text);
  t.match(cap.body, { id, status: 'succeeded', amount: 2500 });
  const retry = await post(id, 'capture', { amount: 2500 }, `cap-${id}`);
  t.equal(retry.status, 200, `the retry is not PAYMENT_NOT_CAPTURABLE: ${retry.text}`);
  t.equal(retry.text, cap.text, 'byte for byte');
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.headers.get('original-request'), cap.headers.get('x-request-id'), 'names the request that captured');
  const other = await post(id, 'capture', { amount: 2400 }, `cap-${id}`);
  t.same([other.status, other.body.error.code], [409, 'IDEMPOTENCY_CONFLICT'], 'another body under the key');
  const fresh = await post(id, 'capture', {}, `cap2-${id}`);
  t.same([fresh.status, fresh.body.error.code], [409, 'PAYMENT_NOT_CAPTURABLE'], 'a new key meets the rule');
  t.equal((await ledger(id, 'capture')).length, 1, 'one capture at the bank');

  const held = await authorize(1500);
  const cancel = await post(held, 'cancel', {}, `void-${held}`);
  t.equal(cancel.status, 200, cancel.text);
  t.equal(cancel.body.status, 'cancelled');
  const cancelAgain = await post(held, 'cancel', {}, `void-${held}`);
  t.equal(cancelAgain.status, 200, `the retry is not PAYMENT_NOT_CANCELLABLE: ${cancelAgain.text}`);
  t.equal(cancelAgain.text, cancel.text);
  t.equal((await ledger(held, 'void')).length, 1, 'one void at the bank');
});

t.test('a capture the bank refused replays its refusal under the key; the key of one payment is a conflict on another', async (t) => {
  const id = await authorize(5666);
  const refused = await post(id, 'capture', {}, `cap-666-${id}`);
  t.same([refused.status, refused.body.error.code], [502, 'CAPTURE_FAILED'], refused.text);
  const again = await post(id, 'capture', {}, `cap-666-${id}`);
  t.same([again.status, again.body.error.code], [502, 'CAPTURE_FAILED'], 'the same refusal, asked of the bank once');
  t.equal((await ledger(id, 'capture')).length, 1);
  const elsewhere = await authorize(1000);
  const reused = await post(elsewhere, 'capture', {}, `cap-666-${id}`);
  t.same([reused.status, reused.body.error.code], [409, 'IDEMPOTENCY_CONFLICT'], 'one key, one request');
  const bad = await post(elsewhere, 'capture', {}, 'x'.repeat(256));
  t.same([bad.status, bad.body.error.reason], [400, 'IDEMPOTENCY_KEY_INVALID']);
});
