// The gateway API's Payment resource and refund request/response (typebox: the types and the OpenAPI
// schemas). Never shows the internal connector.
import { Type, type Static } from '@sinclair/typebox';
import { GatewayCustomer } from './checkout-sessions.js';
import { Currency, Metadata } from './common.js';
import { TestClockRef } from './test-clocks.js';
import { nextActionView } from './checkout-view.js';
import { MAX_AMOUNT } from '../domain/money.js';
import type { CheckoutState } from '../domain/checkout.js';
import { GATEWAY_PAYMENT_STATUSES, gatewayPaymentStatus } from '../domain/gateway-payment.js';
import type { Payment } from '../domain/payment.js';
import type { Refund } from '../domain/refund.js';
import { remainingOf } from '../domain/refund.js';
import type { ErrorCode } from '../errors.js';
import { isoInstant } from '../domain/instant.js';

const Str = Type.String();
const NullStr = Type.Union([Type.String(), Type.Null()]);

export const GatewayPayment = Type.Object({
  id: Str,
  payment_id: Type.String({ description: 'Equals the checkout session id (cs_…)' }),
  order_id: NullStr,
  checkout_session_id: Str,
  amount: Type.Integer({ description: 'Minor units; after a partial capture, the captured amount' }),
  currency: Str,
  status: Type.Union(GATEWAY_PAYMENT_STATUSES.map((s) => Type.Literal(s))),
  payment_method: NullStr,
  source: Type.String({ description: 'checkout (paid on the hosted page or the widget)' }),
  card_last4: NullStr,
  card_brand: NullStr,
  customer_email: NullStr,
  error_code: NullStr,
  error_message: NullStr,
  metadata: Type.Record(Type.String(), Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  connector_transaction_id: Type.Union([Type.String(), Type.Null()], { description: 'The bank reference of the payment (a GET by it finds the payment)' }),
  refunded_amount: Type.Integer(),
  refund_count: Type.Integer(),
  livemode: Type.Boolean(),
  next_action: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Only in requires_action: what the customer must do (three_ds_challenge: acs_url, creq)' })),
}, { $id: 'GatewayPayment', additionalProperties: false });

const Digits = (min: number, max: number, description: string) => Type.String({ pattern: `^[0-9]{${min},${max}}$`, description });
export const DirectCard = Type.Object({
  number: Type.String({ minLength: 12, maxLength: 23, description: 'Only for merchants allowed to send card data (PCI)' }),
  exp_month: Digits(1, 2, 'MM'),
  exp_year: Digits(2, 2, 'YY: two digits'),
  cvc: Digits(3, 4, 'CVC'),
  holder: Type.Optional(Type.String({ maxLength: 100 })),
}, { additionalProperties: false });

export const CreateGatewayPaymentRequest = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units' }),
  currency: Currency,
  payment_method: Type.Optional(Type.Union([Type.Literal('card'), Type.Literal('token'), Type.Literal('wallet')], { description: 'Default card' })),
  card: Type.Optional(DirectCard),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'payment_method token: a saved card (saved_payment_method_id) of this customer' })),
  wallet: Type.Optional(Type.Object({
    type: Type.Union([Type.Literal('apple_pay'), Type.Literal('google_pay')]), token: Type.String({ minLength: 1, maxLength: 8192 }),
  }, { additionalProperties: false, description: 'payment_method wallet: the wallet token' })),
  capture_method: Type.Optional(Type.Union([Type.Literal('automatic'), Type.Literal('manual')])),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  customer: Type.Optional(GatewayCustomer),
  webhook_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, format: 'uri' })),
  metadata: Type.Optional(Metadata),
  channel_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  test_clock: Type.Optional(TestClockRef),
}, { additionalProperties: false, $id: 'CreateGatewayPaymentRequest' });
export type CreateGatewayPaymentBody = Static<typeof CreateGatewayPaymentRequest>;
export const CREATE_PAYMENT_FIELD_CODES: Record<string, ErrorCode> = {
  amount: 'amount_invalid', currency: 'currency_invalid', description: 'description_invalid', order_id: 'order_id_invalid',
  customer: 'customer_invalid', metadata: 'metadata_invalid', webhook_url: 'webhook_url_invalid', channel_id: 'parameter_invalid',
  card: 'parameter_invalid', token: 'parameter_invalid', wallet: 'parameter_invalid', test_clock: 'test_clock_not_found',
};

export const CaptureRequest = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'At most the authorized amount; the rest is released' })),
}, { additionalProperties: false, $id: 'CaptureRequest' });
export type GatewayPaymentView = Static<typeof GatewayPayment>;

export const GatewayPaymentList = Type.Object({
  object: Type.Literal('list'), data: Type.Array(Type.Ref('GatewayPayment')), total: Type.Integer(), limit: Type.Integer(),
  offset: Type.Integer(), has_more: Type.Boolean(),
}, { $id: 'GatewayPaymentList' });

export const GatewayRefundRequest = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units; omit for the whole remaining balance' })),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
  idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Replays the first answer for 24 hours' })),
}, { $id: 'GatewayRefundRequest', additionalProperties: false });
export type GatewayRefundRequestBody = Static<typeof GatewayRefundRequest>;
export const GATEWAY_REFUND_FIELD_CODES: Record<string, ErrorCode> = { amount: 'refund_amount_invalid' };

export const GatewayRefundResponse = Type.Object({
  id: Str, payment_id: Str, status: Type.Union([Type.Literal('refunded'), Type.Literal('partially_refunded')]),
  amount_refunded: Type.Integer({ description: 'This refund' }), total_refunded: Type.Integer(), remaining: Type.Integer(), reason: NullStr,
  livemode: Type.Boolean(),
}, { $id: 'GatewayRefundResponse' });

export function toGatewayPayment(p: Payment, c: CheckoutState, extra: { refundCount: number; connectorTransactionId: string | null }): GatewayPaymentView {
  return {
    id: p.id, payment_id: p.id, order_id: p.orderId, checkout_session_id: p.id, amount: p.amount, currency: p.currency,
    status: gatewayPaymentStatus(p.status, c), payment_method: c.method ?? p.method, source: p.session?.captureMethod ? 'api' : 'checkout',
    card_last4: p.card?.last4 ?? null, card_brand: p.card?.brand ?? null, customer_email: p.customer.email ?? null,
    error_code: p.failure?.code ?? null, error_message: p.failure?.message ?? null, metadata: p.metadata,
    created_at: isoInstant(p.createdAt), updated_at: isoInstant(p.updatedAt),
    connector_transaction_id: extra.connectorTransactionId, refunded_amount: p.amountRefunded, refund_count: extra.refundCount, livemode: p.livemode,
    ...(c.awaiting !== null && c.awaiting !== 'poll' && p.status === 'pending' ? { next_action: (nextActionView(c.nextAction) ?? {}) as Record<string, unknown> } : {}),
  };
}

export function toGatewayRefund(r: Refund, p: Payment) {
  return {
    id: r.id, payment_id: p.id, status: p.amountRefunded >= p.amount ? 'refunded' as const : 'partially_refunded' as const,
    amount_refunded: r.amount, total_refunded: p.amountRefunded, remaining: remainingOf(p), reason: r.reason, livemode: p.livemode,
  };
}
