// Gateway payouts and balance over HTTP: the key matrix, every destination type paid and refused by
// the sandbox bank, bad values for every destination field (400 VALIDATION_ERROR naming the field,
// nothing written), INSUFFICIENT_BALANCE with nothing moved, idempotency, get and list, the balance
// (payments, refunds, failed and paid payouts), mode and merchant isolation, and the outbox events
// with their gateway webhook deliveries.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CARDS, card } from '../helpers/checkout.js';

const s = await startTestServer(t);

async function issue(srv: TestServer, merchant: string, body: Record<string, unknown>) {
  const r = await srv.admin('POST', `/internal/merchants/${merchant}/api-keys`, body);
  if (r.status !== 201) throw new Error(`key: ${r.text}`);
  return r.body.key as string;
}

const m = await s.merchant({ currencies: ['RUB', 'AZN'] });
const other = await s.merchant({ currencies: ['RUB'] });
const keys = {
  sk: await issue(s, m.id, { kind: 'secret', mode: 'test' }),
  skLive: await issue(s, m.id, { kind: 'secret', mode: 'live' }),
  rkPayoutsWrite: await issue(s, m.id, { kind: 'restricted', mode: 'test', permissions: ['payouts:write'] }),
  rkPayoutsRead: await issue(s, m.id, { kind: 'restricted', mode: 'test', permissions: ['payouts:read'] }),
  rkPayments: await issue(s, m.id, { kind: 'restricted', mode: 'test', permissions: ['payments:write', 'refunds:write'] }),
  pk: await issue(s, m.id, { kind: 'publishable', mode: 'test' }),
  svc: m.key,
};
const otherSk = await issue(s, other.id, { kind: 'secret', mode: 'test' });
const sk = keys.sk;

/** A payment of `amount` RUB paid by card through the merchant API and the hosted checkout. */
async function paid(merchantKey: string, amount: number): Promise<string> {
  const r = await s.request('POST', '/api/v2/payments', { key: merchantKey, body: { amount, currency: 'RUB' } });
  if (r.status !== 201) throw new Error(r.text);
  const pay = await s.request('POST', `/checkout/${r.body.id}/pay`, { body: card(CARDS.success) });
  if (pay.body?.status !== 'succeeded') throw new Error(pay.text);
  return r.body.id as string;
}

const payout = (body: Record<string, unknown>, key = sk, headers: Record<string, string> = {}) => s.request('POST', '/v2/payouts', { key, body, headers });
const balance = async (key = sk) => {
  const r = await s.request('GET', '/v2/balance', { key });
  const pick = (list: { currency: string; amount: number }[], c: string) => list.find((x) => x.currency === c)?.amount;
  return { status: r.status, body: r.body, rub: pick(r.body.available ?? [], 'RUB'), rubPending: pick(r.body.pending ?? [], 'RUB'), azn: pick(r.body.available ?? [], 'AZN') };
};
const rows = async () => (await s.db.query('SELECT count(*)::int AS n FROM payouts WHERE merchant_id = $1', [m.id])).rows[0].n as number;
const attempts = async () => (await s.db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE operation = 'payout'")).rows[0].n as number;

const CARD_OK = { type: 'card', card: '5555 5555 5555 4444' };
const CARD_FAIL = { type: 'card', card: CARDS.declined };
const IBAN_OK = { type: 'iban', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' };
const IBAN_FAIL = { type: 'iban', iban: 'DE52370400440532013666' };
const SBP_OK = { type: 'sbp', phone: '+79001234567', member_id: '100000000004' };
const SBP_FAIL = { type: 'sbp', phone: '+79001234666', member_id: '100000000004' };

await paid(m.key, 10_000);
await paid(m.key, 5_000);

t.test('balance: settled payments, per currency, in the key\'s mode', async (t) => {
  const b = await balance();
  t.equal(b.status, 200);
  t.match(b.body, { object: 'balance', livemode: false });
  t.same([b.rub, b.rubPending, b.azn], [15_000, 0, 0], 'every currency of the merchant is listed');
  const live = await balance(keys.skLive);
  t.same([live.body.livemode, live.rub], [true, 0], 'the live balance is separate');
});

t.test('the key matrix for payouts and balance', async (t) => {
  const cases: [string, string, string, unknown][] = [
    ['create', 'POST', '/v2/payouts', { amount: 1, currency: 'RUB', destination: CARD_OK }],
    ['list', 'GET', '/v2/payouts', undefined],
    ['balance', 'GET', '/v2/balance', undefined],
  ];
  const expect: Record<string, Record<keyof typeof keys, [number, string | null]>> = {
    create: {
      sk: [200, null], skLive: [400, 'INSUFFICIENT_BALANCE'], rkPayoutsWrite: [200, null], rkPayoutsRead: [403, 'PERMISSION_DENIED'],
      rkPayments: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
    },
    list: {
      sk: [200, null], skLive: [200, null], rkPayoutsWrite: [200, null], rkPayoutsRead: [200, null],
      rkPayments: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
    },
    balance: {
      sk: [200, null], skLive: [200, null], rkPayoutsWrite: [200, null], rkPayoutsRead: [200, null],
      rkPayments: [403, 'PERMISSION_DENIED'], pk: [403, 'PUBLISHABLE_KEY_NOT_ALLOWED'], svc: [401, 'API_KEY_WRONG_API'],
    },
  };
  for (const [name, method, path, body] of cases) {
    for (const [k, key] of Object.entries(keys) as [keyof typeof keys, string][]) {
      const r = await s.request(method, path, { key, body });
      t.same([r.status, r.body?.error?.code ?? null], expect[name][k], `${name} with ${k}`);
    }
  }
  t.same((await s.request('GET', '/v2/balance', {})).body.error.code, 'AUTHENTICATION_REQUIRED');
});

t.test('a channel-scoped key may not pay out, list payouts or read the balance: they belong to the account', async (t) => {
  const ch = (await s.request('GET', '/v1/channels', { key: sk })).body.data[0];
  const scoped = await issue(s, m.id, { kind: 'secret', mode: 'test', channel_id: ch.id });
  const n = await rows();
  for (const [method, path, body] of [['POST', '/v2/payouts', { amount: 1, currency: 'RUB', destination: CARD_OK }], ['GET', '/v2/payouts', undefined],
    ['GET', '/v2/payouts/po_000000000000000000000000', undefined], ['GET', '/v2/balance', undefined]] as const) {
    const r = await s.request(method, path, { key: scoped, body });
    t.same([r.status, r.body.error.code], [403, 'CHANNEL_FORBIDDEN'], `${method} ${path}`);
  }
  t.equal(await rows(), n, 'nothing paid');
});

t.test('every destination type: paid, or refused by the sandbox bank (200 failed, nothing taken)', async (t) => {
  const before = (await balance()).rub!;
  const cases: [string, Record<string, unknown>, 'paid' | 'failed', Record<string, unknown>][] = [
    ['card', CARD_OK, 'paid', { type: 'card', brand: 'mastercard', last4: '4444' }],
    ['declining test card', CARD_FAIL, 'failed', { type: 'card', brand: 'visa', last4: '0002' }],
    ['iban', IBAN_OK, 'paid', { type: 'iban', country: 'DE', last4: '3000', bic: 'COBADEFFXXX' }],
    ['iban ending 666', IBAN_FAIL, 'failed', { type: 'iban', country: 'DE', last4: '3666', bic: null }],
    ['sbp', SBP_OK, 'paid', { type: 'sbp', phone_last4: '4567', member_id: '100000000004' }],
    ['sbp phone ending 666', SBP_FAIL, 'failed', { type: 'sbp', phone_last4: '4666', member_id: '100000000004' }],
    ['sbp phone only (the spec\'s shape: the recipient\'s default bank)', { type: 'sbp', phone: '+79001234567' }, 'paid', { type: 'sbp', phone_last4: '4567', member_id: null }],
  ];
  let spent = 0;
  let fingerprint: string | null = null;
  for (const [name, destination, status, masked] of cases) {
    const r = await payout({ amount: 100, currency: 'rub', destination, metadata: { ref: name } });
    t.equal(r.status, 200, name);
    t.match(r.body, { object: 'payout', status, amount: 100, currency: 'RUB', livemode: false, metadata: { ref: name } }, name);
    t.match(r.body.id, /^po_[0-9A-Za-z]{24}$/);
    t.same(r.body.destination, r.body.destination.type === 'card' ? { ...masked, fingerprint: r.body.destination.fingerprint } : masked, `${name}: masked`);
    if (name === 'card') fingerprint = r.body.destination.fingerprint;
    if (status === 'failed') t.same(r.body.failure?.code, 'payout_declined', name);
    else { t.equal(r.body.failure, null); spent += 100; }
    const raw = JSON.stringify((await s.db.query('SELECT * FROM payouts WHERE id = $1', [r.body.id])).rows[0]);
    for (const full of ['5555555555554444', '4000000000000002', '370400440532013', '79001234567', '79001234666']) t.notOk(raw.includes(full), `${name}: ${full} is not stored`);
    const got = await s.request('GET', `/v2/payouts/${r.body.id}`, { key: keys.rkPayoutsRead });
    t.same(got.body, r.body, `${name}: GET answers the same payout`);
  }
  t.equal((await balance()).rub, before - spent, 'failed payouts give the money back');
  const fp = (await payout({ amount: 1, currency: 'RUB', destination: { type: 'card', card: '5555555555554444' } })).body.destination.fingerprint;
  t.match(fp, /^[0-9a-f]{64}$/);
  t.equal(fp, fingerprint, 'the same card has the same fingerprint');
});

t.test('bad values for every destination type: 400 VALIDATION_ERROR naming the field, nothing written', async (t) => {
  const n = await rows();
  const a = await attempts();
  const bad: [string, Record<string, unknown>, string, string][] = [
    ['no destination', { amount: 100, currency: 'RUB' }, 'destination', 'PARAMETER_MISSING'],
    ['unknown type', { amount: 100, currency: 'RUB', destination: { type: 'wallet', card: '4242424242424242' } }, 'destination.type', 'PAYOUT_DESTINATION_INVALID'],
    ['unknown field', { amount: 100, currency: 'RUB', destination: { ...CARD_OK, cvc: '123' } }, 'destination.cvc', 'PARAMETER_UNKNOWN'],
    ['card: Luhn', { amount: 100, currency: 'RUB', destination: { type: 'card', card: '4242424242424241' } }, 'destination.card', 'CARD_NUMBER_INVALID'],
    ['card: short', { amount: 100, currency: 'RUB', destination: { type: 'card', card: '42424242' } }, 'destination.card', 'CARD_NUMBER_INVALID'],
    ['card: letters', { amount: 100, currency: 'RUB', destination: { type: 'card', card: '4242abcd42424242' } }, 'destination.card', 'CARD_NUMBER_INVALID'],
    ['card: missing', { amount: 100, currency: 'RUB', destination: { type: 'card' } }, 'destination.card', 'CARD_NUMBER_INVALID'],
    ['card: with an iban', { amount: 100, currency: 'RUB', destination: { ...CARD_OK, iban: IBAN_OK.iban } }, 'destination.iban', 'PAYOUT_DESTINATION_INVALID'],
    ['iban: checksum', { amount: 100, currency: 'RUB', destination: { type: 'iban', iban: 'DE88370400440532013000' } }, 'destination.iban', 'IBAN_INVALID'],
    ['iban: length', { amount: 100, currency: 'RUB', destination: { type: 'iban', iban: 'DE8937040044053201300' } }, 'destination.iban', 'IBAN_INVALID'],
    ['iban: country', { amount: 100, currency: 'RUB', destination: { type: 'iban', iban: 'ZZ89370400440532013000' } }, 'destination.iban', 'IBAN_INVALID'],
    ['iban: missing', { amount: 100, currency: 'RUB', destination: { type: 'iban' } }, 'destination.iban', 'IBAN_INVALID'],
    ['iban: bic malformed', { amount: 100, currency: 'RUB', destination: { ...IBAN_OK, bic: 'CO1' } }, 'destination.bic', 'BIC_INVALID'],
    ['iban: bic of another country', { amount: 100, currency: 'RUB', destination: { ...IBAN_OK, bic: 'BUKBGB22' } }, 'destination.bic', 'BIC_INVALID'],
    ['iban: with a phone', { amount: 100, currency: 'RUB', destination: { ...IBAN_OK, phone: '+79001234567' } }, 'destination.phone', 'PAYOUT_DESTINATION_INVALID'],
    ['sbp: not E.164', { amount: 100, currency: 'RUB', destination: { ...SBP_OK, phone: '89001234567' } }, 'destination.phone', 'PHONE_INVALID'],
    ['sbp: spaces', { amount: 100, currency: 'RUB', destination: { ...SBP_OK, phone: '+7 900 123 45 67' } }, 'destination.phone', 'PHONE_INVALID'],
    ['sbp: missing phone', { amount: 100, currency: 'RUB', destination: { type: 'sbp', member_id: '100000000004' } }, 'destination.phone', 'PHONE_INVALID'],
    ['sbp: member id shape', { amount: 100, currency: 'RUB', destination: { ...SBP_OK, member_id: '1234' } }, 'destination.member_id', 'SBP_MEMBER_INVALID'],
    ['sbp: member not in the list', { amount: 100, currency: 'RUB', destination: { ...SBP_OK, member_id: '999999999999' } }, 'destination.member_id', 'SBP_MEMBER_INVALID'],
    ['amount: zero', { amount: 0, currency: 'RUB', destination: CARD_OK }, 'amount', 'AMOUNT_INVALID'],
    ['amount: decimal', { amount: 10.5, currency: 'RUB', destination: CARD_OK }, 'amount', 'AMOUNT_INVALID'],
    ['amount: string', { amount: '100', currency: 'RUB', destination: CARD_OK }, 'amount', 'AMOUNT_INVALID'],
    ['currency: shape', { amount: 100, currency: 'RUBL', destination: CARD_OK }, 'currency', 'CURRENCY_INVALID'],
    ['currency: not enabled', { amount: 100, currency: 'USD', destination: CARD_OK }, 'currency', 'CURRENCY_NOT_ENABLED'],
    ['metadata: not a string', { amount: 100, currency: 'RUB', destination: CARD_OK, metadata: { a: 1 } }, 'metadata.a', 'METADATA_INVALID'],
    ['unknown top-level field', { amount: 100, currency: 'RUB', destination: CARD_OK, channel_id: 'x' }, 'channel_id', 'PARAMETER_UNKNOWN'],
  ];
  for (const [name, body, param, reason] of bad) {
    const r = await payout(body);
    t.same([r.status, r.body?.error?.code, r.body?.error?.param, r.body?.error?.reason], [400, 'VALIDATION_ERROR', param, reason], name);
    t.notOk(r.text.includes('424242424241') || r.text.includes('0532013000'), `${name}: the number is not echoed`);
  }
  t.equal(await rows(), n, 'no payout row');
  t.equal(await attempts(), a, 'no bank attempt');
});

t.test('above the available balance: 400 INSUFFICIENT_BALANCE, nothing moves; exactly the balance is allowed', async (t) => {
  const avail = (await balance()).rub!;
  const n = await rows();
  const a = await attempts();
  const r = await payout({ amount: avail + 1, currency: 'RUB', destination: CARD_OK });
  t.same([r.status, r.body.error.code, r.body.error.param, r.body.error.available, r.body.error.currency], [400, 'INSUFFICIENT_BALANCE', 'amount', avail, 'RUB']);
  const azn = await payout({ amount: 1, currency: 'AZN', destination: CARD_OK });
  t.same([azn.status, azn.body.error.code], [400, 'INSUFFICIENT_BALANCE'], 'a currency with no balance');
  t.equal(await rows(), n, 'no payout row');
  t.equal(await attempts(), a, 'no bank attempt');
  t.equal((await balance()).rub, avail);
  const all = await payout({ amount: avail, currency: 'RUB', destination: IBAN_OK });
  t.same([all.status, all.body.status], [200, 'paid'], 'the whole balance');
  t.equal((await balance()).rub, 0);
  const more = await payout({ amount: 1, currency: 'RUB', destination: IBAN_OK });
  t.equal(more.body.error.code, 'INSUFFICIENT_BALANCE');
});

t.test('refunds reduce the balance; a new payment raises it', async (t) => {
  const id = await paid(m.key, 3_000);
  t.equal((await balance()).rub, 3_000);
  const rf = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, body: { amount: 1_000 } });
  t.equal(rf.status, 201);
  t.equal((await balance()).rub, 2_000, 'net of the refund');
});

t.test('idempotency: the same key and body replays the payout; another body is a conflict; one row, one bank call', async (t) => {
  const body = { amount: 150, currency: 'RUB', destination: SBP_OK };
  const h = { 'idempotency-key': `po-idem-${Date.now()}` };
  const first = await payout(body, sk, h);
  t.equal(first.status, 200);
  const again = await payout(body, sk, h);
  t.same([again.status, again.body.id, again.headers.get('idempotent-replayed')], [200, first.body.id, 'true']);
  const conflict = await payout({ ...body, amount: 151 }, sk, h);
  t.same([conflict.status, conflict.body.error.code], [409, 'IDEMPOTENCY_CONFLICT']);
  const n = await s.db.query("SELECT count(*)::int AS n FROM payouts WHERE idempotency_key = $1", [h['idempotency-key']]);
  t.equal(n.rows[0].n, 1);
  const bank = await s.db.query("SELECT count(*)::int AS n FROM sandbox_ledger l JOIN payouts p ON p.attempt_id = l.idempotency_key WHERE p.id = $1", [first.body.id]);
  t.equal(bank.rows[0].n, 1, 'one bank operation');
});

t.test('a refusal binds its key: the same key keeps its 400 after the balance grew; another body conflicts; a new key pays', async (t) => {
  const key = `po-refused-${Date.now()}`;
  const avail = (await balance()).rub!;
  const body = { amount: avail + 500, currency: 'RUB', destination: CARD_OK };
  const first = await payout(body, sk, { 'idempotency-key': key });
  t.same([first.status, first.body.error.code, first.body.error.available], [400, 'INSUFFICIENT_BALANCE', avail]);
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first refusal is no replay');
  await paid(m.key, 1_000);
  t.ok((await balance()).rub! >= body.amount, 'the balance now covers the payout');
  const n = await rows();
  const again = await payout(body, sk, { 'idempotency-key': key });
  t.same([again.status, again.body.error.code, again.body.error.available, again.headers.get('idempotent-replayed'), again.headers.get('original-request')],
    [400, 'INSUFFICIENT_BALANCE', avail, 'true', first.headers.get('x-request-id')], 'the first refusal again, with the balance it was refused for');
  t.equal(await rows(), n, 'nothing paid under the refused key');
  const conflict = await payout({ ...body, amount: 1 }, sk, { 'idempotency-key': key });
  t.same([conflict.status, conflict.body.error.code], [409, 'IDEMPOTENCY_CONFLICT'], 'another body with the key');
  const fresh = await payout(body, sk, { 'idempotency-key': `${key}-new` });
  t.same([fresh.status, fresh.body.status], [200, 'paid'], 'a new key is evaluated against the balance of now');
  const unkeyed = await payout({ ...body, amount: 1_000_000 }, sk);
  t.equal(unkeyed.body.error.code, 'INSUFFICIENT_BALANCE');
  t.equal((await s.db.query('SELECT count(*)::int AS n FROM payout_keys WHERE merchant_id = $1 AND refusal IS NOT NULL', [m.id])).rows[0].n, 1,
    'only the keyed refusal is kept (a request without a key has nothing to answer again)');
});

t.test('keys live 24 hours: an older key (a payout\'s or a refusal\'s) is released (never a pending payout\'s) and may pay out again', async (t) => {
  const { releaseOldPayoutKeys } = await import('../../src/store/payouts-repo.js');
  const key = `old-${Date.now()}`;
  const body = { amount: 10, currency: 'RUB', destination: CARD_OK };
  const first = await payout(body, sk, { 'idempotency-key': key });
  t.equal(first.status, 200);
  await s.db.query(`UPDATE payouts SET created_at = now() - interval '25 hours' WHERE id = $1`, [first.body.id]);
  await s.db.query(`UPDATE payout_keys SET created_at = now() - interval '25 hours' WHERE payout_id = $1`, [first.body.id]);
  // A pending payout (its attempt in flight) keeps its key whatever its age.
  const pending = await s.db.query(`UPDATE payouts SET status = 'pending', created_at = now() - interval '25 hours' WHERE id = (
    SELECT id FROM payouts WHERE merchant_id = $1 AND idempotency_key IS NOT NULL AND status = 'paid' AND id <> $2 ORDER BY created_at LIMIT 1) RETURNING id`, [m.id, first.body.id]);
  const pendingId = pending.rows[0].id as string;
  await s.db.query(`UPDATE payout_keys SET created_at = now() - interval '25 hours' WHERE payout_id = $1`, [pendingId]);
  // A refusal's key is released after 24 hours too.
  const refusedKey = `old-refused-${Date.now()}`;
  const refused = await payout({ ...body, amount: 100_000_000 }, sk, { 'idempotency-key': refusedKey });
  t.equal(refused.body.error.code, 'INSUFFICIENT_BALANCE');
  await s.db.query(`UPDATE payout_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [refusedKey]);
  t.ok(await releaseOldPayoutKeys(s.db, 24 * 3600, 1000) >= 2);
  t.same((await s.db.query('SELECT idempotency_key FROM payout_keys WHERE idempotency_key = ANY($1)', [[key, refusedKey]])).rows, [], 'both old keys are free');
  const { rows } = await s.db.query('SELECT id, idempotency_key FROM payouts WHERE id = ANY($1) ORDER BY id', [[first.body.id, pendingId]]);
  t.same(rows.map((r) => [r.id, r.idempotency_key === null]), [[first.body.id, true], [pendingId, false]].sort(), 'only the finished old key is released');
  await s.db.query(`UPDATE payouts SET status = 'paid' WHERE id = $1`, [pendingId]);
  await s.srv.services.kv.del(`idem:${m.id}:test:payout:${key}`);
  const again = await payout(body, sk, { 'idempotency-key': key });
  t.equal(again.status, 200);
  t.not(again.body.id, first.body.id, 'a new payout');
});

t.test('get and list: the key\'s merchant and mode only; limit, offset, status', async (t) => {
  const all = await s.request('GET', '/v2/payouts?limit=100', { key: sk });
  t.equal(all.status, 200);
  t.match(all.body, { object: 'list', limit: 100, offset: 0, has_more: false });
  t.equal(all.body.total, all.body.data.length);
  t.equal(all.body.total, await rows());
  const sorted = [...all.body.data].sort((x: any, y: any) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : 0));
  t.same(all.body.data.map((p: any) => p.created_at), sorted.map((p: any) => p.created_at), 'newest first');
  const page = await s.request('GET', '/v2/payouts?limit=2&offset=1', { key: sk });
  t.same(page.body.data.map((p: any) => p.id), all.body.data.slice(1, 3).map((p: any) => p.id));
  t.equal(page.body.has_more, true);
  const failed = await s.request('GET', '/v2/payouts?status=failed', { key: sk });
  t.ok(failed.body.data.length >= 3 && failed.body.data.every((p: any) => p.status === 'failed'));
  for (const [q, param] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=x', 'limit'], ['offset=-1', 'offset'], ['status=done', 'status'], ['cursor=1', 'cursor']]) {
    const r = await s.request('GET', `/v2/payouts?${q}`, { key: sk });
    t.same([r.status, r.body.error.code, r.body.error.param], [400, 'VALIDATION_ERROR', param], q);
  }
  const one = all.body.data[0].id;
  for (const [who, key] of [['another merchant', otherSk], ['live key', keys.skLive]]) {
    const r = await s.request('GET', `/v2/payouts/${one}`, { key });
    t.same([r.status, r.body.error.code], [404, 'PAYOUT_NOT_FOUND'], who);
  }
  t.equal((await s.request('GET', '/v2/payouts', { key: otherSk })).body.total, 0);
  t.equal((await s.request('GET', '/v2/payouts/po_nope', { key: sk })).status, 404);
});

t.test('payout.paid and payout.failed: gateway outbox events, delivered to the merchant-wide gateway webhook', async (t) => {
  const ws = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'gateway', url: 'https://hooks.example.org/payouts', events: ['payout.paid', 'payout.failed'] });
  t.ok(ws.status === 200 || ws.status === 201, ws.text);
  await paid(m.key, 1_000);
  const ok = await payout({ amount: 300, currency: 'RUB', destination: CARD_OK });
  const ko = await payout({ amount: 300, currency: 'RUB', destination: CARD_FAIL });
  for (const [p, type] of [[ok.body, 'payout.paid'], [ko.body, 'payout.failed']] as const) {
    const ev = await s.db.query('SELECT id, api, type, data FROM events WHERE aggregate_id = $1', [p.id]);
    t.same(ev.rows.map((e) => [e.api, e.type]), [['gateway', type]], `${type}: one event`);
    t.same(ev.rows[0].data, p, `${type}: the payout as the API shows it`);
    const dl = await s.db.query('SELECT api, settings_id FROM webhook_deliveries WHERE event_id = $1', [ev.rows[0].id]);
    t.same(dl.rows.map((d) => [d.api, d.settings_id]), [['gateway', ws.body.id]], `${type}: one delivery to the gateway row`);
  }
});

t.test('live mode: the live bank is not wired, so a live payout is refused for the balance first', async (t) => {
  const r = await payout({ amount: 1, currency: 'RUB', destination: CARD_OK }, keys.skLive);
  t.same([r.status, r.body.error.code], [400, 'INSUFFICIENT_BALANCE']);
});
