// POST/GET /api/v2/payments/{id}/refunds: full and partial refunds, every rule and error with bad
// values, the fee kept and net consistent, a bank refusal, idempotent replay and conflict, the list,
// isolation, and the refund webhooks delivered to a real receiver.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signatureValid, startReceiver } from '../helpers/receiver.js';
import { card, CARDS } from '../helpers/checkout.js';

const s = await startTestServer(t, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '100' });
const rx = await startReceiver();
t.teardown(() => rx.close());
const m = await s.merchant({ currencies: ['AZN', 'RUB'], fee_percent: 2.5, fee_fixed: 10 });
const other = await s.merchant();
const hooks = await s.admin('PUT', `/internal/merchants/${m.id}/webhook-settings`, { api: 'merchant', url: rx.url });
const secret = hooks.body.secret as string;

/** A payment of `amount` paid by card through the hosted checkout (a real sandbox charge). */
async function paid(srv: TestServer, key: string, amount = 10_000): Promise<string> {
  const r = await srv.request('POST', '/api/v2/payments', { key, body: { amount, currency: 'AZN' } });
  const pay = await srv.request('POST', `/checkout/${r.body.id}/pay`, { body: card(CARDS.success) });
  if (pay.body.status !== 'succeeded') throw new Error(pay.text);
  return r.body.id;
}
const refund = (id: string, body?: unknown, headers: Record<string, string> = {}, key = m.key) =>
  s.request('POST', `/api/v2/payments/${id}/refunds`, { key, body, headers });
const list = (id: string, q = '', key = m.key) => s.request('GET', `/api/v2/payments/${id}/refunds${q}`, { key });
const ledger = async (id: string) => (await s.db.query(
  `SELECT l.amount::int, l.moved FROM sandbox_ledger l JOIN connector_attempts a ON a.id = l.idempotency_key
   WHERE a.aggregate_id = $1 AND l.operation = 'refund' ORDER BY l.created_at`, [id])).rows;

t.test('partial, then the rest: statuses, amount_refunded, net with the fee kept, one ledger operation each', async (t) => {
  const id = await paid(s, m.key);
  const a = await refund(id, { amount: 3000, reason: 'damaged' });
  t.equal(a.status, 201, a.text);
  t.match(a.body, {
    object: 'refund_result', request_id: /^req_/,
    refund: { id: /^ref_[0-9A-Za-z]{24}$/, object: 'refund', payment_id: id, amount: 3000, currency: 'AZN', status: 'succeeded', reason: 'damaged', created_at: String },
    payment: { id, status: 'partially_refunded', amount: 10_000, amount_refunded: 3000, fee: 260, net: 10_000 - 260 - 3000 },
  });
  t.equal(a.body.request_id, a.headers.get('x-request-id'));
  const b = await refund(id, {});
  t.equal(b.status, 201, b.text);
  t.match(b.body, { refund: { amount: 7000, reason: null }, payment: { status: 'refunded', amount_refunded: 10_000, fee: 260, net: -260 } });
  const g = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.match(g.body, { status: 'refunded', amount_refunded: 10_000, net: -260 });
  t.same(await ledger(id), [{ amount: 3000, moved: true }, { amount: 7000, moved: true }]);
  const again = await refund(id, { amount: 1 });
  t.same([again.status, again.body.error.code, again.body.error.type], [409, 'payment_not_payable', 'invalid_request_error'], 'nothing left');
  const l = await list(id);
  t.equal(l.status, 200);
  t.match(l.body, { object: 'list', has_more: false, next_cursor: null, request_id: /^req_/ });
  t.same(l.body.data.map((r: { amount: number }) => r.amount), [7000, 3000], 'newest first');
  t.same(l.body.data.map((r: { id: string }) => r.id), [b.body.refund.id, a.body.refund.id]);
});

t.test('no amount refunds the whole remaining sum; null means not given', async (t) => {
  const id = await paid(s, m.key, 4900);
  const r = await refund(id, { amount: null, reason: null });
  t.equal(r.status, 201, r.text);
  t.match(r.body, { refund: { amount: 4900, reason: null }, payment: { status: 'refunded', amount_refunded: 4900 } });
  const noBody = await paid(s, m.key, 700);
  const r2 = await s.request('POST', `/api/v2/payments/${noBody}/refunds`, { key: m.key, raw: '{}', headers: { 'content-type': 'application/json' } });
  t.equal(r2.body.refund?.amount, 700, r2.text);
});

t.test('bad amounts and fields get their codes, and change nothing', async (t) => {
  const id = await paid(s, m.key, 5000);
  await refund(id, { amount: 1000 });
  const CASES: [unknown, number, string, string | null][] = [
    [{ amount: 4001 }, 422, 'refund_amount_invalid', 'amount'],
    [{ amount: 99_999_999_999_999 }, 422, 'refund_amount_invalid', 'amount'],
    // Spec, Known codes: amount_invalid "(amount not a positive integer, e.g. a decimal; param `amount`)".
    [{ amount: 0 }, 422, 'amount_invalid', 'amount'],
    [{ amount: -5 }, 422, 'amount_invalid', 'amount'],
    [{ amount: 10.5 }, 422, 'amount_invalid', 'amount'],
    [{ amount: '100' }, 422, 'amount_invalid', 'amount'],
    [{ amount: true }, 422, 'amount_invalid', 'amount'],
    [{ amount: [100] }, 422, 'amount_invalid', 'amount'],
    [{ reason: 5 }, 422, 'refund_reason_invalid', 'reason'],
    [{ reason: 'x'.repeat(501) }, 422, 'refund_reason_invalid', 'reason'],
    [{ amount: 100, currency: 'AZN' }, 422, 'parameter_unknown', 'currency'],
    [[1], 400, 'body_invalid', null],
  ];
  for (const [body, status, code, param] of CASES) {
    const r = await refund(id, body);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [status, code, param], JSON.stringify(body).slice(0, 60));
  }
  const bad = await s.request('POST', `/api/v2/payments/${id}/refunds`, { key: m.key, raw: '{"amount": 1', headers: { 'content-type': 'application/json' } });
  t.same([bad.status, bad.body.error.code], [400, 'json_invalid']);
  const ru = await refund(id, { amount: 4001 }, { 'accept-language': 'ru' });
  t.match(ru.body.error.message, /Сумма возврата/);
  const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.match(p.body, { status: 'partially_refunded', amount_refunded: 1000 });
  t.equal((await list(id)).body.data.length, 1, 'no refund row for a refused request');
  t.equal((await ledger(id)).length, 1, 'and no bank call');
});

t.test('payments that were never paid: payment_not_payable, before any bank call', async (t) => {
  const pending = (await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1000 } })).body.id;
  const failed = (await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1000 } })).body.id;
  await s.request('POST', `/checkout/${failed}/pay`, { body: card(CARDS.declined) });
  const expired = (await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 1000 } })).body.id;
  await s.request('POST', `/api/v2/test/payments/${expired}/complete`, { key: m.key, body: { outcome: 'expired' } });
  for (const id of [pending, failed, expired]) {
    for (const body of [{}, { amount: 500 }]) {
      const r = await refund(id, body);
      t.same([r.status, r.body.error?.code], [409, 'payment_not_payable'], `${id} ${JSON.stringify(body)}`);
    }
    t.same(await ledger(id), []);
  }
});

t.test('unknown, another merchant\'s and the other mode\'s payment are not found', async (t) => {
  const id = await paid(s, m.key, 1000);
  for (const [pid, key] of [['EXZ-20261121-0000000000', m.key], ['nope', m.key], [id, other.key], [id, m.liveKey]] as const) {
    const r = await refund(pid, { amount: 100 }, {}, key);
    t.same([r.status, r.body.error?.code], [404, 'payment_not_found'], `POST ${pid}`);
    const g = await list(pid, '', key);
    t.same([g.status, g.body.error?.code], [404, 'payment_not_found'], `GET ${pid}`);
  }
  const none = await refund(id, { amount: 100 }, {}, '');
  t.equal(none.status, 401);
  t.same(await ledger(id), []);
});

t.test('the bank refuses (amount ending in 666): 502 refund_failed, a failed refund listed, the payment unchanged', async (t) => {
  const id = await paid(s, m.key, 5000);
  const r = await refund(id, { amount: 1666 }, { 'idempotency-key': `fail-${id}` });
  t.same([r.status, r.body.error?.code, r.body.error?.type], [502, 'refund_failed', 'api_error'], r.text);
  const l = await list(id);
  t.match(l.body.data, [{ amount: 1666, status: 'failed' }]);
  t.same(await ledger(id), [{ amount: 1666, moved: false }]);
  const p = await s.request('GET', `/api/v2/payments/${id}`, { key: m.key });
  t.match(p.body, { status: 'succeeded', amount_refunded: 0 });
  const same = await refund(id, { amount: 1666 }, { 'idempotency-key': `fail-${id}` });
  t.same([same.status, same.body.error?.code], [502, 'refund_failed'], 'the same key gets the same answer');
  t.equal((await ledger(id)).length, 1, 'without asking the bank again');
  const ok = await refund(id, { amount: 1665 });
  t.equal(ok.status, 201, 'another amount goes through');
});

t.test('Idempotency-Key: replay with the header and the first answer, 409 on another body, the key on the refund row', async (t) => {
  const id = await paid(s, m.key, 5000);
  const key = `rk-${id}`;
  const first = await refund(id, { amount: 1200 }, { 'idempotency-key': key });
  t.equal(first.status, 201);
  const again = await refund(id, { amount: 1200 }, { 'idempotency-key': key });
  t.equal(again.status, 201);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.text, first.text, 'byte for byte');
  const conflict = await refund(id, { amount: 1300 }, { 'idempotency-key': key });
  t.same([conflict.status, conflict.body.error.code], [409, 'idempotency_conflict']);
  const elsewhere = await refund(await paid(s, m.key, 5000), { amount: 1200 }, { 'idempotency-key': key });
  t.same([elsewhere.status, elsewhere.body.error.code], [409, 'idempotency_conflict'], 'the same key on another payment');
  // Redis forgets (flushed, or a fresh process): Postgres still holds the key on the refund row.
  await s.srv.services.kv.del(`idem:${m.id}:test:refund:${key}`);
  const fromPg = await refund(id, { amount: 1200 }, { 'idempotency-key': key });
  t.equal(fromPg.status, 201);
  t.equal(fromPg.headers.get('idempotent-replayed'), 'true');
  t.equal(fromPg.body.refund.id, first.body.refund.id);
  const { rows } = await s.db.query('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [id]);
  t.equal(rows[0].n, 1, 'one refund');
  t.equal((await ledger(id)).length, 1, 'one bank operation');
  const bad = await refund(id, { amount: 1 }, { 'idempotency-key': 'a b' });
  t.same([bad.status, bad.body.error.code], [400, 'idempotency_key_invalid']);
});

t.test('the list: pagination with limit and starting_after, bad parameters', async (t) => {
  const id = await paid(s, m.key, 1000);
  for (let i = 1; i <= 5; i++) await refund(id, { amount: i * 10 });
  const p1 = await list(id, '?limit=2');
  t.same(p1.body.data.map((r: { amount: number }) => r.amount), [50, 40]);
  t.equal(p1.body.has_more, true);
  const p2 = await list(id, `?limit=2&starting_after=${p1.body.next_cursor}`);
  t.same(p2.body.data.map((r: { amount: number }) => r.amount), [30, 20]);
  const p3 = await list(id, `?limit=2&starting_after=${p2.body.next_cursor}`);
  t.same([p3.body.data.map((r: { amount: number }) => r.amount), p3.body.has_more, p3.body.next_cursor], [[10], false, null]);
  for (const [q, code, param] of [['?limit=0', 'limit_invalid', 'limit'], ['?limit=abc', 'limit_invalid', 'limit'], ['?status=x', 'parameter_unknown', 'status'],
    ['?starting_after=ref_unknown', 'cursor_invalid', 'starting_after'], ['?starting_after=x', 'cursor_invalid', 'starting_after']]) {
    const r = await list(id, q);
    t.same([r.status, r.body.error?.code, r.body.error?.param], [422, code, param], q);
  }
  const empty = await list(await paid(s, m.key, 100));
  t.same([empty.status, empty.body.data, empty.body.has_more], [200, [], false]);
});

t.test('webhooks: refund.succeeded per refund, signed, data carries the payment and the refund', async (t) => {
  const id = await paid(s, m.key, 2000);
  const a = await refund(id, { amount: 500, reason: 'late' });
  const b = await refund(id);
  const mine = async (n: number) => {
    const end = Date.now() + 10_000;
    for (;;) {
      const got = rx.received.filter((r) => r.headers['x-svc-event'] === 'refund.succeeded' && JSON.parse(r.body).data.object.id === id);
      if (got.length >= n || Date.now() > end) return got;
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const got = await mine(2);
  t.equal(got.length, 2);
  const bodies = got.map((r) => JSON.parse(r.body)).sort((x, y) => x.data.refund.amount - y.data.refund.amount);
  t.ok(got.every((r) => signatureValid(r, secret)), 'signed with the endpoint secret');
  t.match(bodies[0], { type: 'refund.succeeded', api_version: '2026-09-22', livemode: false,
    data: { object: { id, object: 'payment', status: 'partially_refunded', amount_refunded: 500 }, refund: a.body.refund } });
  t.match(bodies[1], { data: { object: { status: 'refunded', amount_refunded: 2000 }, refund: b.body.refund } });
  t.same(bodies[0].data.refund, a.body.refund, 'the refund exactly as the API shows it');
  const { rows } = await s.db.query(`SELECT type, api FROM events WHERE aggregate_id = $1 AND type <> 'payment.created' ORDER BY created_at, type`, [id]);
  t.same(rows.map((r) => `${r.type}/${r.api}`).sort(), ['payment.refunded/gateway', 'payment.refunded/gateway', 'payment.succeeded/merchant', 'refund.succeeded/merchant', 'refund.succeeded/merchant']);
  const failed = await paid(s, m.key, 2000);
  await refund(failed, { amount: 666 });
  const ev = await s.db.query(`SELECT count(*)::int AS n FROM events WHERE aggregate_id = $1 AND type LIKE '%refund%'`, [failed]);
  t.equal(ev.rows[0].n, 0, 'a refused refund sends no event');
});

t.test('keys live 24 hours on the refund row: an older key is released (never a pending one) and may refund again', async (t) => {
  const { releaseOldRefundKeys } = await import('../../src/store/refunds-repo.js');
  const id = await paid(s, m.key, 5000);
  const key = `old-${id}`;
  const first = await refund(id, { amount: 100 }, { 'idempotency-key': key });
  t.equal(first.status, 201);
  await s.db.query(`UPDATE refunds SET created_at = now() - interval '25 hours' WHERE id = $1`, [first.body.refund.id]);
  // A pending refund (its attempt in flight) keeps its key whatever its age.
  await s.db.query(`INSERT INTO refunds (id, payment_id, merchant_id, livemode, amount, currency, status, attempt_id, request_id, idempotency_key, created_at, updated_at)
    VALUES ('ref_pendingpendingpending01', $1, $2, false, 1, 'AZN', 'pending', 'att_pending_fixture', 'req_x', $3, now() - interval '25 hours', now())`, [id, m.id, `pending-${id}`]);
  t.ok(await releaseOldRefundKeys(s.db, 24 * 3600, 1000) >= 1);
  const { rows } = await s.db.query('SELECT id, idempotency_key FROM refunds WHERE payment_id = $1 ORDER BY id', [id]);
  t.same(rows.map((r) => r.idempotency_key === null), rows.map((r) => r.id === first.body.refund.id), 'only the finished old key is released');
  await s.db.query(`DELETE FROM refunds WHERE id = 'ref_pendingpendingpending01'`);
  await s.srv.services.kv.del(`idem:${m.id}:test:refund:${key}`);
  const again = await refund(id, { amount: 100 }, { 'idempotency-key': key });
  t.equal(again.status, 201);
  t.not(again.body.refund.id, first.body.refund.id, 'a new refund');
  t.equal(again.body.payment.amount_refunded, 200);
});

t.test('keys are scoped by kind: the Idempotency-Key of a payment may also name its refund', async (t) => {
  const key = `shared-${Date.now()}`;
  const created = await s.request('POST', '/api/v2/payments', { key: m.key, body: { amount: 3000, currency: 'AZN' }, headers: { 'idempotency-key': key } });
  t.equal(created.status, 201);
  const pay = await s.request('POST', `/checkout/${created.body.id}/pay`, { body: card(CARDS.success) });
  t.equal(pay.body.status, 'succeeded');
  const r = await refund(created.body.id, { amount: 1000 }, { 'idempotency-key': key });
  t.equal(r.status, 201, 'a refund, not a 409 against the payment that holds the same key');
  t.equal(r.body.refund.amount, 1000);
  const again = await refund(created.body.id, { amount: 1000 }, { 'idempotency-key': key });
  t.equal(again.headers.get('idempotent-replayed'), 'true', 'and the refund replays under it');
});
