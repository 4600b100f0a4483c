// The simulator's own parts without servers: one seed gives one sequence of choices, answers are read
// the way the contract tells a client to, and the checker calls a refusal a lie exactly when its key
// holds an effect (and the bank's ledger and the engine's rows are compared object by object).
import t from 'tap';
import { checkAnswers, checkLedger } from '../../sim/checker.js';
import { History, verdictOf, type Op } from '../../sim/history.js';
import { Rng } from '../../sim/rng.js';
import type { State } from '../../sim/state.js';

t.test('one seed, one sequence; forked streams are independent of each other', async (t) => {
  const draw = (r: Rng) => Array.from({ length: 8 }, () => r.int(0, 1000));
  t.same(draw(new Rng(42)), draw(new Rng(42)));
  t.not(JSON.stringify(draw(new Rng(42))), JSON.stringify(draw(new Rng(43))));
  t.same(draw(Rng.fork(7, 'client-0')), draw(Rng.fork(7, 'client-0')));
  t.not(JSON.stringify(draw(Rng.fork(7, 'client-0'))), JSON.stringify(draw(Rng.fork(7, 'client-1'))));
});

t.test('answers read as the contract says a client reads them', async (t) => {
  t.equal(verdictOf(200, null), 'ok');
  t.equal(verdictOf(0, null), 'retry', 'no answer: the same key again later');
  t.equal(verdictOf(503, 'outcome_unknown'), 'retry');
  t.equal(verdictOf(503, 'deadline_exceeded'), 'retry');
  t.equal(verdictOf(502, 'capture_failed'), 'refused', 'a bank refusal is definite: recorded under the key and replayed');
  t.equal(verdictOf(409, 'refund_in_progress'), 'retry');
  t.equal(verdictOf(503, 'service_unavailable'), 'unavailable', '"nothing committed"');
  t.equal(verdictOf(400, 'insufficient_balance'), 'refused');
  t.equal(verdictOf(409, 'payment_not_capturable'), 'refused');
});

function state(parts: Partial<State>): State {
  const s: State = { payments: new Map(), refunds: [], payouts: [], attempts: new Map(), ledger: [], links: [], movedByAggregate: new Map(), netDrift: [], heldDrift: [], ...parts };
  for (const l of s.ledger) {
    const a = s.attempts.get(l.key);
    if (l.moved && a) s.movedByAggregate.set(a.aggregate_id, [...(s.movedByAggregate.get(a.aggregate_id) ?? []), l]);
  }
  return s;
}

function payoutOp(h: History, answers: [number, string | null, unknown][]): Op {
  const op = h.op('payout', 'c0', 'k1', null, 'POST', '/v2/payouts', { amount: 500 });
  answers.forEach(([status, code, answer], i) => h.record(op, {
    client: 'c0', role: i === 0 ? 'first' : 'dup-now', proc: i % 2, method: 'POST', path: '/v2/payouts', key: 'k1', body: {},
    sentMs: 0, answeredMs: 1, status, code, answer, location: null, requestId: `req_${i}`, verdict: verdictOf(status, code),
  }));
  return op;
}

const paidPayout = { id: 'po_1', request_id: 'req_0', created_ms: 0, amount: 500, status: 'paid', attempt_id: 'att_1', idempotency_key: 'k1' };
const attempt = { id: 'att_1', aggregate_id: 'po_1', operation: 'payout', status: 'succeeded', amount: 500 };
const ledger = { key: 'att_1', operation: 'payout', amount: 500, moved: true, created_ms: 0 };

t.test('a same-key twin refused for insufficient balance while its key was paid is a lie', async (t) => {
  const h = new History();
  const op = payoutOp(h, [[200, null, { id: 'po_1' }], [400, 'insufficient_balance', { error: { code: 'INSUFFICIENT_BALANCE' } }]]);
  const s = state({ payouts: [paidPayout], attempts: new Map([['att_1', attempt]]), ledger: [ledger] });
  t.same(checkLedger(s), [], 'the money itself agrees');
  const v = checkAnswers(s, [op], 0);
  t.equal(v.length, 1);
  t.match(v[0], { check: 'b', cls: 'payout 400 insufficient_balance with a same-key twin at once' });
});

t.test('a kept balance or held sum that differs from the rows is a money violation', async (t) => {
  const s = state({ netDrift: [{ merchantId: 'mer_1', livemode: false, currency: 'RUB', kept: 900, summed: 1000 }], heldDrift: [{ currency: 'RUB', kept: 0, summed: 500 }] });
  t.match(checkLedger(s), [
    { check: 'a', cls: 'kept balance differs from its payments', detail: 'RUB: kept 900, payments 1000' },
    { check: 'a', cls: 'held balance differs from its payouts', detail: 'RUB: held 0, payouts 500' },
  ]);
});

t.test('"service unavailable" for a try whose own request created the row names it so', async (t) => {
  const h = new History();
  const op = payoutOp(h, [[503, 'service_unavailable', null]]);
  const s = state({ payouts: [paidPayout], attempts: new Map([['att_1', attempt]]), ledger: [ledger] });
  t.match(checkAnswers(s, [op], 0)[0], { cls: 'payout 503 service_unavailable for its own committed row' });
});

t.test('"service unavailable" answered before a twin wrote the row was true when given', async (t) => {
  const h = new History();
  const op = payoutOp(h, [[503, 'service_unavailable', null], [200, null, { id: 'po_1' }]]);
  const later = { ...paidPayout, request_id: 'req_1', created_ms: 5 };
  t.same(checkAnswers(state({ payouts: [later] }), [op], 0), [], 'answered at 1 ms, the row written at 5 ms');
  t.equal(checkAnswers(state({ payouts: [{ ...later, created_ms: 0 }] }), [op], 0).length, 1, 'the row existed when it was answered');
});

t.test('a refusal with nothing under its key, and a 2xx with its row, are true', async (t) => {
  const h = new History();
  const refused = payoutOp(h, [[400, 'insufficient_balance', null]]);
  t.same(checkAnswers(state({}), [refused], 0), []);
  const h2 = new History();
  const ok = payoutOp(h2, [[200, null, { id: 'po_1' }]]);
  t.same(checkAnswers(state({ payouts: [paidPayout] }), [ok], 0), []);
});

t.test('a bank\'s refusal of a refund is true of the failed row it recorded under the key, not of a succeeded one', async (t) => {
  const h = new History();
  const op = h.op('gateway.refund', 'c0', 'rk', 'cs_1', 'POST', '/v2/payments/cs_1/refund', { amount: 666 });
  h.record(op, {
    client: 'c0', role: 'first', proc: 0, method: 'POST', path: '/v2/payments/cs_1/refund', key: 'rk', body: {},
    sentMs: 0, answeredMs: 5, status: 502, code: 'refund_failed', answer: null, location: null, requestId: 'req_r', verdict: verdictOf(502, 'refund_failed'),
  });
  const row = { id: 'ref_1', request_id: 'req_r', created_ms: 2, payment_id: 'cs_1', amount: 666, status: 'failed', attempt_id: 'att_r', idempotency_key: 'rk' };
  t.same(checkAnswers(state({ refunds: [row] }), [op], 0), [], 'refused by the bank, recorded as failed: true');
  t.match(checkAnswers(state({ refunds: [{ ...row, status: 'succeeded' }] }), [op], 0), [{ check: 'b' }], 'a refund that went through makes it a lie');
});

t.test('the ledger and the rows must agree: paid without money, money without a row, an open attempt', async (t) => {
  const v = checkLedger(state({
    payouts: [{ ...paidPayout, status: 'paid' }],
    attempts: new Map([['att_1', attempt], ['att_2', { ...attempt, id: 'att_2', status: 'started' }]]),
    ledger: [{ ...ledger, moved: false }, { key: 'att_9', operation: 'refund', amount: 100, moved: true, created_ms: 0 }],
  }));
  t.same(v.map((x) => x.cls).sort(), ['attempt left open', 'bank moved money no attempt knows', 'bank refund without a row', 'payout row and bank disagree']);
});
