// The merchant API shows only its spec's seven statuses ("Payment statuses: pending, succeeded,
// failed, expired, refunded, partially_refunded, review"), whatever status a payment row holds.
import t from 'tap';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MERCHANT_PAYMENT_STATUSES, merchantStatus, PAYMENT_STATUSES, storedStatusesOf, type Payment } from '../../src/domain/payment.js';
import { PaymentResource } from '../../src/api/merchant-payments.js';
import { toMerchantPayment } from '../../src/api/merchant-payment-view.js';
import { merchantPaymentObject } from '../../src/api/webhook-envelopes.js';

const SPEC = ['pending', 'succeeded', 'failed', 'expired', 'refunded', 'partially_refunded', 'review'];

t.test('spec: "Payment statuses: pending, succeeded, failed, expired, refunded, partially_refunded, review": exactly these', async (t) => {
  t.same([...MERCHANT_PAYMENT_STATUSES], SPEC);
  for (const s of SPEC) t.equal(merchantStatus(s as never), s, `${s} shows as itself`);
  t.equal(merchantStatus('authorized'), 'pending', 'a hold not yet captured is pending');
  t.equal(merchantStatus('cancelled'), 'failed', 'a cancelled payment ended unpaid');
  for (const s of PAYMENT_STATUSES) t.ok(SPEC.includes(merchantStatus(s)), `${s} maps inside the spec's set`);
});

t.test('a list filter on a spec status matches every stored status shown as it, each stored status once', async (t) => {
  t.same(storedStatusesOf('pending'), ['pending', 'authorized']);
  t.same(storedStatusesOf('failed'), ['failed', 'cancelled']);
  t.same(storedStatusesOf('review'), ['review']);
  t.same(MERCHANT_PAYMENT_STATUSES.flatMap(storedStatusesOf).sort(), [...PAYMENT_STATUSES].sort());
});

t.test('the rendered resource validates against the Payment schema for every stored status', async (t) => {
  const check = TypeCompiler.Compile(PaymentResource);
  const enumOf = (PaymentResource.properties.status as unknown as { anyOf: { const: string }[] }).anyOf.map((x) => x.const);
  t.same(enumOf, SPEC, 'the schema (and the OpenAPI document made from it) says exactly the spec\'s set');
  const base = {
    id: 'EXZ-20261126-0000000000', merchantId: 'mer_1', livemode: false, amount: 100, currency: 'AZN', amountRefunded: 0, fee: 0, net: 100,
    charged: null, orderId: null, description: null, metadata: {}, method: null, customer: {}, card: null, failure: null, returnUrl: null,
    source: 'api', createdAt: 0, paidAt: null, requestId: 'req_1',
  } as unknown as Payment;
  for (const status of PAYMENT_STATUSES) {
    const view = toMerchantPayment({ ...base, status }, 'https://pay.example', 'req_1');
    t.ok(check.Check(view), `${status}: ${JSON.stringify([...check.Errors(view)].slice(0, 1))}`);
    t.equal(view.status, merchantStatus(status));
    t.equal(merchantPaymentObject({ ...base, status }, 'https://pay.example').status, merchantStatus(status), `${status}: a merchant webhook body's data.object too`);
  }
});
