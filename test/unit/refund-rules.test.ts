// The refund rules (src/domain/refund.ts): the amount a request refunds, for every payment status and
// every kind of amount, and net after a refund with the fee kept.
import t from 'tap';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../src/domain/payment.js';
import { netAfter, planRefund, remainingOf } from '../../src/domain/refund.js';

const AMOUNTS: Record<string, unknown> = {
  none: undefined, null: null, one: 1, part: 400, rest: 600, all: 1000, over: 1001, zero: 0, negative: -1,
  decimal: 10.5, string: '100', nan: NaN, infinity: Infinity, unsafe: 2 ** 53, boolean: true, object: { v: 1 },
};

// For a payment of 1000 with 400 already refunded when partially_refunded: the refunded amount, or the error.
const PAID: Record<string, number | string> = {
  // Spec, Known codes: amount_invalid "(amount not a positive integer, e.g. a decimal; param `amount`)",
  // refund_amount_invalid "(amount exceeds what is left)".
  none: 1000, null: 1000, one: 1, part: 400, rest: 600, all: 1000, over: 'refund_amount_invalid', zero: 'amount_invalid',
  negative: 'amount_invalid', decimal: 'amount_invalid', string: 'amount_invalid', nan: 'amount_invalid',
  infinity: 'amount_invalid', unsafe: 'refund_amount_invalid', boolean: 'amount_invalid', object: 'amount_invalid',
};
const PARTLY: Record<string, number | string> = { ...PAID, none: 600, null: 600, all: 'refund_amount_invalid' };

const TABLE: Record<PaymentStatus, Record<string, number | string>> = {
  succeeded: PAID,
  partially_refunded: PARTLY,
  pending: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  failed: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  expired: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  refunded: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  review: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  cancelled: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
  authorized: Object.fromEntries(Object.keys(AMOUNTS).map((k) => [k, 'payment_not_payable'])),
};

t.test('the table covers every status', async (t) => t.same(Object.keys(TABLE).sort(), [...PAYMENT_STATUSES].sort()));

for (const status of PAYMENT_STATUSES) {
  t.test(`refund of a ${status} payment`, async (t) => {
    const p = { status, amount: 1000, amountRefunded: status === 'partially_refunded' ? 400 : status === 'refunded' ? 1000 : 0 };
    for (const [name, amount] of Object.entries(AMOUNTS)) {
      const r = planRefund(p, amount);
      t.same(r.ok ? r.amount : r.code, TABLE[status][name], `${status} + ${name}`);
    }
  });
}

t.test('a payment with nothing left is not refundable whatever its status says', async (t) => {
  t.same(planRefund({ status: 'partially_refunded', amount: 1000, amountRefunded: 1000 }, undefined), { ok: false, code: 'payment_not_payable' });
  t.equal(remainingOf({ amount: 1000, amountRefunded: 250 }), 750);
});

t.test('net keeps the fee: amount - fee - refunded, -fee after a full refund', async (t) => {
  t.equal(netAfter({ amount: 1000, fee: 35 }, 0), 965);
  t.equal(netAfter({ amount: 1000, fee: 35 }, 400), 565);
  t.equal(netAfter({ amount: 1000, fee: 35 }, 1000), -35);
});
