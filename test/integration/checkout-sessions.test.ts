// Gateway checkout sessions over HTTP: POST /v2/payments/checkout with every rule and limit of the
// spec (bad values are 400 VALIDATION_ERROR naming the field), GET /v2/payments/checkout/{id},
// Idempotency-Key (max 128, the merchant API's replay rules), test_mode against the key, channel_id
// in its three forms, isolation, and the session paid, cancelled and expired on the public endpoints.
import t from 'tap';
import { card, CARDS, answerChallenge } from '../helpers/checkout.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const s = await startTestServer(t, { SESSION_WINDOW_SECONDS: '3600', EXPIRY_POLL_MS: '100' });

async function issue(srv: TestServer, merchant: string, body: Record<string, unknown>) {
  const r = await srv.admin('POST', `/internal/merchants/${merchant}/api-keys`, body);
  if (r.status !== 201) throw new Error(`key: ${r.text}`);
  return r.body as { id: string; key: string };
}

const m = await s.merchant({ currencies: ['RUB', 'AZN', 'USD'], default_currency: 'RUB' });
const other = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const sk = (await issue(s, m.id, { kind: 'secret', mode: 'test' })).key;
const skLive = (await issue(s, m.id, { kind: 'secret', mode: 'live' })).key;
const otherSk = (await issue(s, other.id, { kind: 'secret', mode: 'test' })).key;
const ok = { amount: 4900, currency: 'RUB' };
const create = (body: unknown, key = sk, headers: Record<string, string> = {}) => s.request('POST', '/v2/payments/checkout', { key, body, headers });

t.test('a valid request -> 200 CheckoutSession, open, readable by id', async (t) => {
  const r = await create({
    ...ok, description: 'Order 17', order_id: 'o-17', language: 'ru', customer: { email: 'a@example.com', country: 'ru', name: 'A', phone: '+79001234567' },
    metadata: { cart: '17' }, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no', initial_method: 'sbp',
    settings: { payment_methods: ['card', 'sbp'], button_text: 'Оплатить заказ', auto_return: 3 }, test_mode: true,
  });
  t.equal(r.status, 200, r.text);
  t.match(r.body, { object: 'checkout_session', status: 'open', livemode: false, amount: 4900, currency: 'RUB', selected_method_code: null, next_action: null, language: 'ru', order_id: 'o-17' });
  t.match(r.body.id, /^cs_[0-9A-Za-z]{24}$/);
  t.ok(r.body.checkout_url.endsWith(`/pay/${r.body.id}`), 'checkout_url is the hosted page');
  const ttl = Date.parse(r.body.expires_at) - Date.now();
  t.ok(ttl > 3500_000 && ttl <= 3600_000, 'expires after SESSION_WINDOW_SECONDS');
  const got = await s.request('GET', `/v2/payments/checkout/${r.body.id}`, { key: sk });
  t.equal(got.status, 200);
  t.same({ ...got.body, request_id: null }, { ...r.body, request_id: null });
  const row = await s.db.query('SELECT source, channel_id, session FROM payments WHERE id = $1', [r.body.id]);
  t.equal(row.rows[0].source, 'gateway');
  t.ok(row.rows[0].channel_id, 'taken on the default channel');
  t.same(row.rows[0].session.paymentMethods, ['card', 'sbp']);
  // The merchant API never lists gateway sessions.
  const list = await s.request('GET', '/api/v2/payments', { key: m.key });
  t.notOk(list.body.data.some((p: { id: string }) => p.id === r.body.id));
});

t.test('bad values: 400 VALIDATION_ERROR naming the field', async (t) => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: [string, Record<string, unknown>, string][] = [
    ['no amount', { currency: 'RUB' }, 'amount'],
    ['no currency', { amount: 100 }, 'currency'],
    ['amount zero', { ...ok, amount: 0 }, 'amount'],
    ['amount negative', { ...ok, amount: -1 }, 'amount'],
    ['amount decimal', { ...ok, amount: 49.5 }, 'amount'],
    ['amount string', { ...ok, amount: '4900' }, 'amount'],
    ['amount huge', { ...ok, amount: 1e300 }, 'amount'],
    ['currency shape', { ...ok, currency: 'RUBL' }, 'currency'],
    ['currency not enabled', { ...ok, currency: 'EUR' }, 'currency'],
    ['description 501', { ...ok, description: long(501) }, 'description'],
    ['order_id 129', { ...ok, order_id: long(129) }, 'order_id'],
    ['order_id empty', { ...ok, order_id: '' }, 'order_id'],
    ['language de', { ...ok, language: 'de' }, 'language'],
    ['customer.country 3', { ...ok, customer: { country: 'RUS' } }, 'customer.country'],
    ['customer.country 1', { ...ok, customer: { country: 'R' } }, 'customer.country'],
    ['customer.email', { ...ok, customer: { email: 'not-an-email' } }, 'customer.email'],
    ['customer unknown field', { ...ok, customer: { age: 3 } }, 'customer.age'],
    ['metadata number', { ...ok, metadata: { n: 1 } }, 'metadata.n'],
    ['metadata object', { ...ok, metadata: { n: { a: 'b' } } }, 'metadata.n'],
    ['metadata array', { ...ok, metadata: ['a'] }, 'metadata'],
    ['success_url not a URL', { ...ok, success_url: 'nope' }, 'success_url'],
    // A test key takes http and loopback hosts too (issue 23; live mode: gateway-spec-letter.test.ts), never a private address.
    ['success_url http, private host', { ...ok, success_url: 'http://10.0.0.2/ok' }, 'success_url'],
    ['cancel_url private', { ...ok, cancel_url: 'https://10.1.2.3/no' }, 'cancel_url'],
    ['legacy settings.success_url http, private host', { ...ok, settings: { success_url: 'http://192.168.1.2/ok' } }, 'settings.success_url'],
    ['legacy settings.cancel_url bad', { ...ok, settings: { cancel_url: 'javascript:alert(1)' } }, 'settings.cancel_url'],
    ['settings.payment_methods unknown', { ...ok, settings: { payment_methods: ['cash'] } }, 'settings.payment_methods.0'],
    ['settings.payment_methods not offered', { ...ok, currency: 'USD', settings: { payment_methods: ['card', 'sbp'] } }, 'settings.payment_methods.1'],
    ['settings.payment_methods empty', { ...ok, settings: { payment_methods: [] } }, 'settings.payment_methods'],
    ['settings.payment_methods repeated', { ...ok, settings: { payment_methods: ['card', 'card'] } }, 'settings.payment_methods'],
    ['settings.auto_return negative', { ...ok, settings: { auto_return: -1 } }, 'settings.auto_return'],
    ['settings.button_text too long', { ...ok, settings: { button_text: long(65) } }, 'settings.button_text'],
    ['settings unknown field', { ...ok, settings: { theme: 'dark' } }, 'settings.theme'],
    ['initial_method unknown', { ...ok, initial_method: 'cash' }, 'initial_method'],
    ['initial_method outside the whitelist', { ...ok, initial_method: 'sbp', settings: { payment_methods: ['card'] } }, 'initial_method'],
    ['initial_method not offered', { ...ok, currency: 'USD', initial_method: 'sbp' }, 'initial_method'],
    ['webhook_url not a URL', { ...ok, webhook_url: 'nope' }, 'webhook_url'],
    ['webhook_url private', { ...ok, webhook_url: 'https://10.0.0.1/hook' }, 'webhook_url'],
    ['webhook_url credentials', { ...ok, webhook_url: 'https://u:p@shop.example/hook' }, 'webhook_url'],
    ['test_mode false with a test key', { ...ok, test_mode: false }, 'test_mode'],
    ['test_mode string', { ...ok, test_mode: 'yes' }, 'test_mode'],
    ['unknown field', { ...ok, capture: true }, 'capture'],
  ];
  for (const [name, body, param] of cases) {
    const r = await create(body);
    t.equal(r.status, 400, `${name}: ${r.text}`);
    t.equal(r.body?.error?.code, 'VALIDATION_ERROR', name);
    t.equal(r.body?.error?.param, param, name);
    t.ok(r.body?.error?.message.includes(param), `${name}: the message names the field`);
  }
  const live = await create({ ...ok, test_mode: true }, skLive);
  t.equal(live.status, 400, 'test_mode true with a live key');
  t.equal(live.body.error.param, 'test_mode');
  t.equal((await create({ ...ok, test_mode: false }, skLive)).status, 200, 'test_mode false with a live key');
  for (const raw of ['', '[]', '"x"', '{']) {
    const r = await s.request('POST', '/v2/payments/checkout', { key: sk, raw, headers: { 'content-type': 'application/json' } });
    t.equal(r.status, 400, `body ${JSON.stringify(raw)}`);
    t.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  const rows = await s.db.query("SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1 AND session IS NOT NULL AND livemode = false", [m.id]);
  t.equal(rows.rows[0].n, 1, 'nothing refused was created');
});

t.test('legacy settings URLs: used alone, the top-level value wins', async (t) => {
  const legacy = await create({ ...ok, settings: { success_url: 'https://shop.example/legacy-ok', cancel_url: 'https://shop.example/legacy-no' } });
  const both = await create({ ...ok, success_url: 'https://shop.example/top-ok', settings: { success_url: 'https://shop.example/legacy-ok', cancel_url: 'https://shop.example/legacy-no' } });
  const q = async (id: string) => (await s.db.query('SELECT session FROM payments WHERE id = $1', [id])).rows[0].session;
  t.match(await q(legacy.body.id), { successUrl: 'https://shop.example/legacy-ok', cancelUrl: 'https://shop.example/legacy-no' });
  t.match(await q(both.body.id), { successUrl: 'https://shop.example/top-ok', cancelUrl: 'https://shop.example/legacy-no' });
  // Only the winner is checked: a bad legacy value behind a good top-level one is not used.
  const shadowed = await create({ ...ok, success_url: 'https://shop.example/top-ok', settings: { success_url: 'https://shop.example/also-ok' } });
  t.equal(shadowed.status, 200);
});

t.test('channel_id: the ch_ id, the UUID or the slug; unknown 404, paused 409, scoped keys 403', async (t) => {
  const ch = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'web', name: 'Web', currencies: ['RUB'] } });
  t.equal(ch.status, 200, ch.text);
  for (const ref of [ch.body.id, ch.body.uuid, ch.body.slug]) {
    const r = await create({ ...ok, channel_id: ref });
    t.equal(r.status, 200, `by ${ref}: ${r.text}`);
    t.equal(r.body.channel_id, ch.body.id);
  }
  const unknown = await create({ ...ok, channel_id: 'nope' });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'CHANNEL_NOT_FOUND');
  const cur = await create({ ...ok, currency: 'AZN', channel_id: 'web' });
  t.equal(cur.status, 400, 'a currency the channel does not take');
  t.equal(cur.body.error.param, 'currency');
  const foreign = await create({ ...ok, channel_id: 'web' }, otherSk);
  t.equal(foreign.status, 404, 'another merchant\'s channel');
  const scoped = (await issue(s, m.id, { kind: 'secret', mode: 'test', channel_id: 'web' })).key;
  const own = await create(ok, scoped);
  t.equal(own.body.channel_id, ch.body.id, 'a scoped key\'s session is on its channel');
  const def = await create({ ...ok, channel_id: 'default' }, scoped);
  t.equal(def.status, 403);
  t.equal(def.body.error.code, 'CHANNEL_FORBIDDEN');
  const onDefault = await create(ok);
  const read = await s.request('GET', `/v2/payments/checkout/${onDefault.body.id}`, { key: scoped });
  t.equal(read.status, 403, 'a scoped key reads only its channel\'s sessions');
  t.equal((await s.request('GET', `/v2/payments/checkout/${own.body.id}`, { key: scoped })).status, 200);
  t.equal((await s.request('POST', `/v1/channels/${ch.body.id}/pause`, { key: sk })).status, 200);
  const paused = await create({ ...ok, channel_id: 'web' });
  t.equal(paused.status, 409);
  t.equal(paused.body.error.code, 'CHANNEL_PAUSED');
  t.equal((await s.request('POST', `/v1/channels/${ch.body.id}/resume`, { key: sk })).status, 200);
});

t.test('GET: unknown, malformed, another merchant\'s or mode\'s id, a merchant API payment -> 404', async (t) => {
  const mine = await create(ok);
  const payment = await s.request('POST', '/api/v2/payments', { key: m.key, body: ok });
  for (const [name, id, key] of [
    ['unknown', 'cs_000000000000000000000000', sk], ['malformed', 'cs_x', sk], ['long', 'cs_' + 'a'.repeat(300), sk],
    ['other merchant', mine.body.id, otherSk], ['live key', mine.body.id, skLive], ['merchant API payment', payment.body.id, sk],
  ] as const) {
    const r = await s.request('GET', `/v2/payments/checkout/${encodeURIComponent(id)}`, { key });
    t.equal(r.status, 404, name);
    t.equal(r.body.error.code, 'CHECKOUT_SESSION_NOT_FOUND', name);
  }
});

t.test('Idempotency-Key: at most 128 characters; replay, conflict, per key', async (t) => {
  const long = await create(ok, sk, { 'idempotency-key': 'k'.repeat(129) });
  t.equal(long.status, 400);
  t.equal(long.body.error.param, 'Idempotency-Key');
  const key = `idem-${Date.now()}`.padEnd(128, 'x');
  const first = await create(ok, sk, { 'idempotency-key': key });
  t.equal(first.status, 200, first.text);
  const again = await create(ok, sk, { 'idempotency-key': key });
  t.equal(again.status, 200);
  t.equal(again.body.id, first.body.id, 'the same session');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  const changed = await create({ ...ok, amount: 5000 }, sk, { 'idempotency-key': key });
  t.equal(changed.status, 409, 'the same key with another body');
  t.equal(changed.body.error.code, 'IDEMPOTENCY_CONFLICT');
  const parallel = await Promise.all([1, 2, 3, 4].map(() => create({ ...ok, amount: 777 }, sk, { 'idempotency-key': `par-${key.slice(0, 40)}` })));
  const ids = new Set(parallel.filter((r) => r.status === 200).map((r) => r.body.id));
  t.equal(ids.size, 1, 'parallel retries create one session');
  const n = await s.db.query('SELECT count(*)::int AS n FROM payments WHERE merchant_id = $1 AND amount = 777', [m.id]);
  t.equal(n.rows[0].n, 1);
});

t.test('paid with a test card on the public endpoints; 3-D Secure is requires_action', async (t) => {
  const r = await create({ ...ok, settings: { payment_methods: ['card'] } });
  const id = r.body.id;
  const methods = await s.request('GET', `/checkout/${id}/methods`);
  t.same(methods.body.methods.map((x: { method_code: string }) => x.method_code), ['card'], 'the whitelist narrows the methods');
  const sbp = await s.request('POST', `/checkout/${id}/submit-method`, { body: { method_code: 'sbp' } });
  t.same([sbp.status, sbp.body.error.reason], [400, 'METHOD_NOT_AVAILABLE'], 'a method outside the whitelist is refused');
  const pay = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.challenge) });
  t.equal(pay.status, 200, pay.text);
  t.equal(pay.body.status, 'requires_action');
  const got = await s.request('GET', `/v2/payments/checkout/${id}`, { key: sk });
  t.match(got.body, { status: 'requires_action', selected_method_code: 'card', next_action: { type: 'three_ds_challenge' } });
  t.equal(await answerChallenge(s, id, got.body.next_action.creq, 'Y'), 302);
  const done = await s.request('GET', `/v2/payments/checkout/${id}`, { key: sk });
  t.match(done.body, { status: 'succeeded', next_action: null });
  const again = await s.request('POST', `/checkout/${id}/pay`, { body: card(CARDS.success) });
  t.equal(again.status, 409, 'a finished session refuses payment');
  const events = await s.db.query("SELECT type, api FROM events WHERE aggregate_id = $1 ORDER BY created_at", [id]);
  t.same(events.rows.map((e) => e.type), ['payment.created', 'payment.requires_action', 'payment.succeeded']);
  t.ok(events.rows.every((e) => e.api === 'gateway'));
});

t.test('the cancel link moves an open session to cancelled through its actor; cancelled is final', async (t) => {
  const r = await create({ ...ok, cancel_url: 'https://shop.example/back' });
  const c = await s.request('POST', `/checkout/${r.body.id}/cancel`, { body: {} });
  t.equal(c.status, 200, c.text);
  t.equal(c.body.status, 'cancelled');
  t.equal(c.body.return_url, 'https://shop.example/back');
  t.equal((await s.request('GET', `/v2/payments/checkout/${r.body.id}`, { key: sk })).body.status, 'cancelled');
  const twice = await s.request('POST', `/checkout/${r.body.id}/cancel`, { body: {} });
  t.equal(twice.status, 409);
  const pay = await s.request('POST', `/checkout/${r.body.id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.status, 409, 'a cancelled session cannot be paid');
  const payment = await s.request('POST', '/api/v2/payments', { key: m.key, body: ok });
  const refused = await s.request('POST', `/checkout/${payment.body.id}/cancel`, { body: {} });
  t.equal(refused.status, 404, 'a merchant API payment has no cancel link');
  // While the customer may be paying in the bank app (SBP QR shown), cancel waits for that attempt.
  const q = await create(ok);
  const sub = await s.request('POST', `/checkout/${q.body.id}/submit-method`, { body: { method_code: 'sbp' } });
  t.equal(sub.body.status, 'requires_action', sub.text);
  const busy = await s.request('POST', `/checkout/${q.body.id}/cancel`, { body: {} });
  t.equal(busy.status, 409);
  t.equal(busy.body.error.code, 'CHECKOUT_NOT_CANCELLABLE');
});

t.test('test helpers: the gateway one completes a session; the merchant API one does not see it', async (t) => {
  const r = await create(ok);
  const merchant = await s.request('POST', `/api/v2/test/payments/${r.body.id}/complete`, { key: m.key, body: { outcome: 'succeeded' } });
  t.equal(merchant.status, 404, merchant.text);
  const gw = await s.request('POST', `/v2/test/checkout/${r.body.id}/complete`, { key: sk, body: { outcome: 'failed' } });
  t.equal(gw.status, 200, gw.text);
  t.equal((await s.request('GET', `/v2/payments/checkout/${r.body.id}`, { key: sk })).body.status, 'failed');
});

t.test('sessions expire through the expiry scheduler; expired is final', async (t) => {
  const r = await create(ok);
  await s.db.query("UPDATE payments SET expires_at = now() - interval '1 second', due_at = payment_due_at(status, now() - interval '1 second', pending_attempt) WHERE id = $1", [r.body.id]);
  await until('the session expired', async () => (await s.request('GET', `/v2/payments/checkout/${r.body.id}`, { key: sk })).body.status === 'expired');
  const pay = await s.request('POST', `/checkout/${r.body.id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.status, 409);
  const ev = await s.db.query("SELECT type FROM events WHERE aggregate_id = $1 AND type = 'payment.expired'", [r.body.id]);
  t.equal(ev.rows.length, 1);
});
