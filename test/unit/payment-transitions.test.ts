// Every (status, command) pair of the payment state machine.
import t from 'tap';
import { createPayment, transition, PAYMENT_STATUSES, type Payment, type PaymentCommand, type PaymentStatus } from '../../src/domain/payment.js';

const base = (status: PaymentStatus, refunded = 0): Payment => ({
  ...createPayment(
    { amount: 1000, currency: 'AZN', orderId: null, description: null, metadata: {}, method: null, customer: {}, returnUrl: null, locale: null, source: 'api' },
    { id: 'EXZ-20261121-AAAAAAAAAA', merchantId: 'mer_1', livemode: false, fees: { feeBps: 250, feeFixed: 10 }, windowSeconds: 60, requestId: 'req_1', idempotencyKey: null, requestHash: null },
    1_000),
  status, amountRefunded: refunded,
});

const card = { brand: 'visa', last4: '4242', country: 'US', expMonth: 12, expYear: 2030, fingerprint: 'fp' };
const COMMANDS: Record<string, PaymentCommand> = {
  succeed: { type: 'succeed', method: 'card', card },
  fail: { type: 'fail', method: 'card', code: 'card_declined', card },
  expire: { type: 'expire' },
  cancel: { type: 'cancel' },
  refund_part: { type: 'refund', amount: 400 },
  refund_all: { type: 'refund', amount: 1000 },
  authorize: { type: 'authorize', method: 'card', card, holdSeconds: 600 },
  capture_all: { type: 'capture' },
  capture_part: { type: 'capture', amount: 600 },
  capture_over: { type: 'capture', amount: 1001 },
  capture_zero: { type: 'capture', amount: 0 },
  void: { type: 'void' },
  void_expired: { type: 'void', expired: true },
};

// Expected next status, or the domain error code.
const TABLE: Record<PaymentStatus, Record<string, string>> = {
  pending: { succeed: 'succeeded', fail: 'failed', expire: 'expired', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'authorized', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  succeeded: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'partially_refunded', refund_all: 'refunded', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  failed: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  expired: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  refunded: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  partially_refunded: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'refunded', refund_all: 'refund_amount_invalid', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  review: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  cancelled: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'payment_not_capturable', capture_part: 'payment_not_capturable', capture_over: 'payment_not_capturable', capture_zero: 'payment_not_capturable', void: 'payment_not_cancellable', void_expired: 'payment_not_cancellable' },
  authorized: { succeed: 'payment_not_payable', fail: 'payment_not_payable', expire: 'payment_not_payable', cancel: 'payment_not_payable', refund_part: 'payment_not_payable', refund_all: 'payment_not_payable', authorize: 'payment_not_payable', capture_all: 'succeeded', capture_part: 'succeeded', capture_over: 'capture_amount_invalid', capture_zero: 'capture_amount_invalid', void: 'cancelled', void_expired: 'cancelled' },
};

t.test('the table covers every status', async (t) => t.same(Object.keys(TABLE).sort(), [...PAYMENT_STATUSES].sort()));

for (const status of PAYMENT_STATUSES) {
  for (const [name, cmd] of Object.entries(COMMANDS)) {
    t.test(`${status} + ${name}`, async (t) => {
      const before = base(status, status === 'partially_refunded' ? 600 : 0);
      const frozen = JSON.stringify(before);
      const r = transition(before, cmd, 5_000);
      const want = TABLE[status][name];
      if (r.ok) {
        t.equal(r.state.status, want);
        t.equal(r.state.version, before.version + 1, 'version grows by one');
        t.equal(r.state.updatedAt, 5_000);
        t.same(r.events.length, name.startsWith('refund') ? 2 : name === 'authorize' ? 0 : 1, 'refund.succeeded and payment.refunded for a refund; none for an authorization');
      } else {
        t.equal(r.code, want);
      }
      t.equal(JSON.stringify(before), frozen, 'the input state is not mutated');
    });
  }
}

t.test('capture and void: a partial capture becomes the payment amount, the fee shrinks in proportion, the rest is released', async (t) => {
  const ok = (r: ReturnType<typeof transition>) => { if (!r.ok) throw new Error(r.code); return r; };
  const a = ok(transition(base('pending'), COMMANDS.authorize, 7));
  t.same(a.state.card, card);
  t.equal(a.state.paidAt, null, 'not paid until captured');
  const full = ok(transition(a.state, COMMANDS.capture_all, 8));
  t.same([full.state.amount, full.state.fee, full.state.net, full.state.paidAt], [1000, 35, 965, 8]);
  t.same(full.events, ['payment.succeeded']);
  const part = ok(transition(a.state, COMMANDS.capture_part, 8));
  t.same([part.state.amount, part.state.fee, part.state.net], [600, 21, 579]);
  t.equal(a.state.expiresAt, 7 + 600_000, 'the hold lapses holdSeconds after the authorization');
  const v = ok(transition(a.state, COMMANDS.void, 8));
  t.equal(v.state.status, 'cancelled');
  t.same(v.events, ['payment.cancelled']);
  t.equal(v.state.failure, null, "a merchant's cancel carries no failure");
  const lapsed = ok(transition(a.state, COMMANDS.void_expired, 8));
  t.same([lapsed.state.status, lapsed.state.failure?.code], ['cancelled', 'expired'], 'an expired hold: cancelled, error_code expired');
  t.same(lapsed.events, ['payment.cancelled'], 'the same event as a cancel');
  const refunded = ok(transition(part.state, { type: 'refund', amount: 600 }, 9));
  t.equal(refunded.state.status, 'refunded', 'a partial capture refunds up to what was captured');
  t.notOk(transition(part.state, { type: 'refund', amount: 601 }, 9).ok);
});

t.test('effects of each move', async (t) => {
  const ok = (r: ReturnType<typeof transition>) => { if (!r.ok) throw new Error(r.code); return r; };
  const s = ok(transition(base('pending'), COMMANDS.succeed, 7));
  t.equal(s.state.paidAt, 7);
  t.same(s.state.card, card);
  t.same(s.events, ['payment.succeeded']);
  const f = ok(transition(base('pending'), COMMANDS.fail, 7));
  t.same(f.state.failure, { code: 'card_declined', message: 'The card was declined.' });
  t.same(f.events, ['payment.failed']);
  const e = ok(transition(base('pending'), COMMANDS.expire, 7));
  t.equal(e.state.failure?.code, 'expired');
  t.same(e.events, ['payment.expired']);
  const r = ok(transition(base('succeeded'), COMMANDS.refund_part, 7));
  t.equal(r.state.amountRefunded, 400);
  t.equal(r.state.net, 1000 - 35 - 400, 'the fee is kept: net = amount - fee - amount_refunded');
  t.same(r.events, ['refund.succeeded', 'payment.refunded']);
  for (const bad of [0, -1, 1.5, 1001]) t.notOk(transition(base('succeeded'), { type: 'refund', amount: bad }, 7).ok, `refund ${bad}`);
});

t.test('creation computes fee and net and the window', async (t) => {
  const p = base('pending');
  t.equal(p.fee, 35); // 2.5% of 1000 = 25, plus 10
  t.equal(p.net, 965);
  t.equal(p.expiresAt, 61_000);
  t.equal(p.version, 1);
});

t.test('cancel: a pending gateway session only (a merchant API payment has no cancel link)', async (t) => {
  const session = { webhookUrl: null, successUrl: null, cancelUrl: 'https://shop.example/back', paymentMethods: null, buttonText: null, autoReturn: null, initialMethod: null };
  const r = transition({ ...base('pending'), session }, COMMANDS.cancel, 9);
  t.ok(r.ok);
  if (r.ok) { t.equal(r.state.status, 'cancelled'); t.same(r.events, ['payment.cancelled']); }
  for (const status of PAYMENT_STATUSES.filter((x) => x !== 'pending')) {
    const again = transition({ ...base(status), session }, COMMANDS.cancel, 9);
    t.equal(again.ok ? again.state.status : again.code, 'payment_not_payable', `${status} session + cancel`);
  }
});
