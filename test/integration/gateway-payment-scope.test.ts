// Refund, capture and cancel of a gateway payment named by its own id go to the payment's actor
// without a read in the front end first: the actor checks the key's scope on its own read. These
// cases hold it to what the lookup answered: another merchant's, another mode's or another
// channel's payment is not found and nothing is recorded; a path that is a checkout id in shape but
// names a payment by its order_id still finds that payment; 404 comes before 400; and the capture's
// answer shows what GET /v2/payments/{id} shows. The merchant API's refund gets the same checks.
import t from 'tap';
import { card, CARDS } from '../helpers/checkout.js';
import { startTestServer } from '../helpers/server.js';

const s = await startTestServer(t, {});
const m = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
await s.admin('PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
const sk = (await s.key(m.id, 'secret', 'test')).key;
const live = (await s.key(m.id, 'secret', 'live')).key;
const other = await s.merchant({ currencies: ['RUB'], default_currency: 'RUB' });
const otherKey = (await s.key(other.id, 'secret', 'test')).key;
const bot = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'bot', name: 'Bot' } });
const web = await s.request('POST', '/v1/channels', { key: sk, body: { slug: 'web', name: 'Web' } });
const channelKey = async (slug: string) =>
  (await s.admin('POST', `/internal/merchants/${m.id}/api-keys`, { scope: 'channel', channel_id: slug, mode: 'test' })).body.key as string;
const botKey = await channelKey('bot');
const webKey = await channelKey('web');

/** A direct card payment of m; `manual` leaves it authorized. */
async function pay(capture: 'automatic' | 'manual', extra: Record<string, unknown> = {}) {
  const r = await s.request('POST', '/v2/payments', { key: sk, body: { amount: 5000, currency: 'RUB', card: card(CARDS.success), capture_method: capture, ...extra } });
  if (r.status !== 200) throw new Error(r.text);
  return r.body as { id: string; status: string; order_id: string };
}

/** What the payment's id has recorded: its attempts, refunds, events and its row's version. */
async function recorded(id: string) {
  const q = async (sql: string) => (await s.db.query(sql, [id])).rows[0].n as number;
  return {
    attempts: await q('SELECT count(*)::int AS n FROM connector_attempts WHERE aggregate_id = $1'),
    refunds: await q('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1'),
    events: await q('SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1'),
    version: await q('SELECT version AS n FROM payments WHERE id = $1'),
  };
}

const action = (key: string, id: string, what: 'capture' | 'cancel' | 'refund', body: unknown = {}, headers: Record<string, string> = {}) =>
  s.request('POST', `/v2/payments/${id}/${what}`, { key, body, headers });

t.test('another merchant, another mode, another channel: 404 for refund, capture and cancel, nothing recorded', async (t) => {
  const authorized = await pay('manual', { channel_id: web.body.id });
  const paid = await pay('automatic', { channel_id: web.body.id });
  const before = [await recorded(authorized.id), await recorded(paid.id)];
  for (const [who, key] of [['another merchant', otherKey], ['live mode', live], ['another channel', botKey]] as const) {
    for (const [what, id] of [['capture', authorized.id], ['cancel', authorized.id], ['refund', paid.id]] as const) {
      const r = await action(key, id, what, what === 'refund' ? { amount: 100 } : {}, { 'idempotency-key': `scope-${who.replace(/ /g, '-')}-${what}` });
      t.same([r.status, r.body.error?.code], [404, 'PAYMENT_NOT_FOUND'], `${who}: ${what}`);
    }
  }
  t.same([await recorded(authorized.id), await recorded(paid.id)], before, 'no attempt, refund, event or version change');
  const cap = await action(webKey, authorized.id, 'capture', { amount: 3000 });
  t.same([cap.status, cap.body.status, cap.body.amount], [200, 'succeeded', 3000], 'the key of the payment\'s channel captures it');
  const ref = await action(webKey, paid.id, 'refund', { amount: 100 });
  t.same([ref.status, ref.body.amount_refunded], [200, 100], 'and refunds it');
});

t.test('a path shaped like a checkout id that is a payment\'s order_id finds that payment', async (t) => {
  const name = `cs_${'A'.repeat(20)}${String(Date.now() % 10_000).padStart(4, '0')}`;
  const held = await pay('manual', { order_id: name });
  t.not(held.id, name);
  const cap = await action(sk, name, 'capture', {});
  t.same([cap.status, cap.body.id, cap.body.status], [200, held.id, 'succeeded'], 'captured by its order_id');
  const ref = await action(sk, name, 'refund', { amount: 100 });
  t.same([ref.status, ref.body.payment_id, ref.body.amount_refunded], [200, held.id, 100], 'refunded by its order_id');
  const keyed = await pay('manual', { order_id: `${name.slice(0, -1)}Z` });
  const first = await action(sk, `${name.slice(0, -1)}Z`, 'capture', { amount: 1000 }, { 'idempotency-key': `by-order-${keyed.id}` });
  t.same([first.status, first.body.id, first.body.amount], [200, keyed.id, 1000], 'a keyed capture by its order_id');
  const again = await action(sk, `${name.slice(0, -1)}Z`, 'capture', { amount: 1000 }, { 'idempotency-key': `by-order-${keyed.id}` });
  t.same([again.status, again.body], [200, first.body], 'its retry is the same answer');
  const byId = await action(sk, keyed.id, 'capture', { amount: 1000 }, { 'idempotency-key': `by-order-${keyed.id}` });
  t.equal(byId.status, 200, 'the same key and body by the payment\'s id: the same request (the key is the payment\'s path)');
  t.same(byId.body, first.body);
  t.match(await recorded(keyed.id), { attempts: 2 }, 'one authorization, one capture');
  const none = await action(sk, `cs_${'B'.repeat(24)}`, 'cancel');
  t.same([none.status, none.body.error?.code], [404, 'PAYMENT_NOT_FOUND'], 'no payment has that id or name');
});

t.test('404 before 400: a bad body or key on an unknown id is not found; on a known id it is refused', async (t) => {
  const held = await pay('manual');
  const unknown = `cs_${'C'.repeat(24)}`;
  const cases: [string, 'capture' | 'refund', unknown, Record<string, string>, string][] = [
    ['capture amount', 'capture', { amount: -5 }, {}, 'CAPTURE_AMOUNT_INVALID'],
    ['refund amount', 'refund', { amount: 'x' }, {}, ''],
    ['idempotency key', 'capture', {}, { 'idempotency-key': 'x'.repeat(300) }, 'IDEMPOTENCY_KEY_INVALID'],
  ];
  for (const [what, act, body, headers, code] of cases) {
    const no = await action(sk, unknown, act, body, headers);
    t.same([no.status, no.body.error?.code], [404, 'PAYMENT_NOT_FOUND'], `${what}: unknown id`);
    const bad = await action(sk, held.id, act, body, headers);
    t.equal(bad.status, 400, `${what}: known id: ${bad.text}`);
    if (code) t.equal(bad.body.error?.reason, code, bad.text);
  }
  // Hostile bodies on the path that skips the lookup: the envelope with a stable code, nothing recorded.
  let deep: unknown = 1;
  for (let i = 0; i < 200; i++) deep = { a: deep };
  const hostile: [string, string, string][] = [
    ['huge number', '{"amount":1e308}', 'CAPTURE_AMOUNT_INVALID'],
    ['NUL in a key', '{"amount\\u0000":1}', ''],
    ['lone surrogate', '{"amount":"\\ud800"}', 'CAPTURE_AMOUNT_INVALID'],
    ['__proto__ key', '{"__proto__":{"amount":1}}', ''],
    ['deep nesting', JSON.stringify({ amount: deep }), ''],
  ];
  for (const [what, raw, reason] of hostile) {
    const r = await s.request('POST', `/v2/payments/${held.id}/capture`, { key: sk, raw, headers: { 'content-type': 'application/json' } });
    t.equal(r.status, 400, `${what}: ${r.text}`);
    t.ok(typeof r.body.error?.code === 'string', `${what}: the envelope`);
    if (reason) t.equal(r.body.error?.reason, reason, `${what}: its reason`);
  }
  const over = await action(sk, held.id, 'capture', { amount: 9000 });
  t.same([over.status, over.body.error?.reason, over.body.error?.param], [400, 'CAPTURE_AMOUNT_INVALID', 'amount'], over.text);
  t.match(over.body.error?.message ?? '', /at most 5000/, 'the refusal names the most that can be captured');
  t.match(await recorded(held.id), { attempts: 1, refunds: 0 }, 'only the authorization');
});

t.test('the answer of a capture and its replay show what GET shows', async (t) => {
  const held = await pay('manual');
  const cap = await action(sk, held.id, 'capture', { amount: 4000 }, { 'idempotency-key': `view-${held.id}` });
  t.equal(cap.status, 200, cap.text);
  const got = await s.request('GET', `/v2/payments/${held.id}`, { key: sk });
  t.same(cap.body, got.body, 'the same view');
  t.ok(cap.body.connector_transaction_id, 'the authorization\'s bank reference');
  const again = await action(sk, held.id, 'capture', { amount: 4000 }, { 'idempotency-key': `view-${held.id}` });
  t.same(again.body, cap.body, 'the replay');
});

t.test('merchant API refund: another merchant\'s payment is not found, 404 before 400, nothing recorded', async (t) => {
  const msk = m.key;
  const create = await s.request('POST', '/api/v2/payments', { key: msk, body: { amount: 3000, currency: 'RUB' }, headers: { 'idempotency-key': `mp-${Date.now()}` } });
  t.equal(create.status, 201, create.text);
  const id = create.body.id as string;
  const before = await recorded(id);
  const foreign = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: other.key, body: { amount: 100 }, headers: { 'idempotency-key': `mr-${id}` } });
  t.same([foreign.status, foreign.body.error?.code], [404, 'payment_not_found'], 'another merchant');
  const unknownBad = await s.request('POST', '/api/v2/payments/EXZ-20260101-0000000000/refunds', { key: msk, body: { amount: -1 } });
  t.same([unknownBad.status, unknownBad.body.error?.code], [404, 'payment_not_found'], 'unknown id, bad body');
  const ownBad = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: msk, body: { amount: -1 } });
  t.same([ownBad.status, ownBad.body.error?.code], [422, 'amount_invalid'], `own id, bad body: ${ownBad.status} ${ownBad.text}`);
  const unpaid = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: msk, body: { amount: 100 } });
  t.equal(unpaid.status >= 400 && unpaid.status < 500, true, `an unpaid payment is refused (${unpaid.status})`);
  t.same(await recorded(id), before, 'nothing recorded');
});
