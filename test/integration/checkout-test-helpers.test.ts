// Test helpers: force an outcome in test mode with the merchant key (merchant API) or a secret
// key of the same merchant (gateway); 404 in live mode, 409 once finished, every field checked.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { newPayment } from '../helpers/checkout.js';

const s = await startTestServer(t);
const m = await s.merchant({ currencies: ['AZN', 'RUB'] });
const other = await s.merchant();
const complete = (id: string, key: string, body: unknown) => s.request('POST', `/api/v2/test/payments/${id}/complete`, { key, body });

t.test('merchant API: succeeded, failed with a code, expired; events written', async (t) => {
  const a = await newPayment(s, m.key);
  const ra = await complete(a, m.key, { outcome: 'succeeded' });
  t.equal(ra.status, 200, ra.text);
  t.same([ra.body.object, ra.body.status], ['payment', 'succeeded']);
  t.ok(ra.body.paid_at);
  const b = await newPayment(s, m.key);
  const rb = await complete(b, m.key, { outcome: 'failed', failure_code: 'insufficient_funds' });
  t.same(rb.body.failure, { code: 'insufficient_funds', message: 'The card has insufficient funds.' });
  const b2 = await newPayment(s, m.key);
  t.equal((await complete(b2, m.key, { outcome: 'failed' })).body.failure.code, 'card_declined', 'default failure code');
  const c = await newPayment(s, m.key);
  const rc = await complete(c, m.key, { outcome: 'expired' });
  t.same([rc.body.status, rc.body.failure.code], ['expired', 'expired']);
  const { rows } = await s.db.query('SELECT type FROM events WHERE aggregate_id = ANY($1) ORDER BY type', [[a, b, c]]);
  t.same(rows.map((x: { type: string }) => x.type).filter((x: string) => x !== 'payment.created'), ['payment.expired', 'payment.failed', 'payment.succeeded']);
  const again = await complete(a, m.key, { outcome: 'failed' });
  t.same([again.status, again.body.error.code], [409, 'payment_not_payable']);
});

t.test('merchant API: invalid fields, another merchant, live mode', async (t) => {
  const id = await newPayment(s, m.key);
  for (const [body, code, param] of [
    [{}, 'parameter_missing', 'outcome'], [{ outcome: 'paid' }, 'parameter_invalid', 'outcome'],
    [{ outcome: 'failed', failure_code: 'stolen' }, 'parameter_invalid', 'failure_code'],
    [{ outcome: 'failed', failure_code: 'expired' }, 'parameter_invalid', 'failure_code'], [{ outcome: 'succeeded', x: 1 }, 'parameter_unknown', 'x'],
  ] as const) {
    const r = await complete(id, m.key, body);
    t.same([r.status, r.body.error.code, r.body.error.param], [422, code, param], JSON.stringify(body));
  }
  t.equal((await complete(id, other.key, { outcome: 'succeeded' })).status, 404, 'another merchant');
  const live = await newPayment(s, m.liveKey);
  const rl = await complete(live, m.liveKey, { outcome: 'succeeded' });
  t.same([rl.status, rl.body.error.code], [404, 'route_not_found'], 'no test helper in live mode');
  t.equal((await complete(live, m.key, { outcome: 'succeeded' })).status, 404, 'a test key does not see a live payment');
  t.equal((await s.request('POST', `/api/v2/test/payments/${id}/complete`, { body: { outcome: 'succeeded' } })).status, 401);
  t.equal((await s.request('GET', `/api/v2/payments/${live}`, { key: m.liveKey })).body.status, 'pending');
});

t.test('gateway: a sk_test_ key (or rk_test_ with payments:write) of the same merchant', async (t) => {
  const sk = await s.key(m.id, 'secret', 'test');
  const skLive = await s.key(m.id, 'secret', 'live');
  const skOther = await s.key(other.id, 'secret', 'test');
  const id = await newPayment(s, m.key);
  const call = (key: string | null, body: unknown = { outcome: 'succeeded' }) => s.request('POST', `/v2/test/checkout/${id}/complete`, { key, body });
  t.same([(await call(null)).status, (await call(null)).body.error.code], [401, 'AUTHENTICATION_REQUIRED']);
  t.same([(await call(m.key)).status, (await call(m.key)).body.error.code], [401, 'API_KEY_WRONG_API'], 'a merchant API key is not a secret key: it is sent to the merchant API');
  t.equal((await call('sk_test_doesnotexist')).status, 401);
  t.same([(await call(skLive.key)).status, (await call(skLive.key)).body.error.code], [404, 'ROUTE_NOT_FOUND']);
  t.same([(await call(skOther.key)).status, (await call(skOther.key)).body.error.code], [404, 'PAYMENT_NOT_FOUND']);
  const bad = await call(sk.key, { outcome: 'won' });
  t.same([bad.status, bad.body.error.code, bad.body.error.param, bad.body.error.reason], [400, 'VALIDATION_ERROR', 'outcome', 'PARAMETER_INVALID']);
  const ok = await call(sk.key, { outcome: 'failed', failure_code: 'limit_exceeded' });
  t.equal(ok.status, 200, ok.text);
  t.same([ok.body.status, ok.body.failure.code, ok.body.session_id], ['failed', 'limit_exceeded', id]);
  const pk = await s.key(m.id, 'publishable', 'test');
  t.same([(await call(pk.key)).status, (await call(pk.key)).body.error.code], [403, 'PUBLISHABLE_KEY_NOT_ALLOWED']);
  const twice = await call(sk.key);
  t.same([twice.status, twice.body.error.code], [409, 'CHECKOUT_CLOSED']);
});
