// The gateway API's Payment resource and refund request/response (typebox: the types and the OpenAPI
// schemas). Never shows the internal connector.
import { Type, type Static } from '@sinclair/typebox';
import type { CheckoutState } from '../domain/checkout.js';
import { GATEWAY_PAYMENT_STATUSES, gatewayPaymentStatus } from '../domain/gateway-payment.js';
import type { Payment } from '../domain/payment.js';
import type { Refund } from '../domain/refund.js';
import { remainingOf } from '../domain/refund.js';
import type { ErrorCode } from '../errors.js';

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
}, { $id: 'GatewayPayment', additionalProperties: false });
export type GatewayPaymentView = Static<typeof GatewayPayment>;

export const GatewayPaymentList = Type.Object({
  object: Type.Literal('list'), data: Type.Array(Type.Ref('GatewayPayment')), total: Type.Integer(), limit: Type.Integer(),
  offset: Type.Integer(), has_more: Type.Boolean(),
}, { $id: 'GatewayPaymentList' });

export const GatewayRefundRequest = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, description: 'Minor units; omit for the whole remaining balance' })),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
  idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Replays the first answer for 24 hours' })),
}, { $id: 'GatewayRefundRequest', additionalProperties: false });
export type GatewayRefundRequestBody = Static<typeof GatewayRefundRequest>;
export const GATEWAY_REFUND_FIELD_CODES: Record<string, ErrorCode> = { amount: 'refund_amount_invalid' };

export const GatewayRefundResponse = Type.Object({
  id: Str, payment_id: Str, status: Type.Union([Type.Literal('refunded'), Type.Literal('partially_refunded')]),
  amount_refunded: Type.Integer({ description: 'This refund' }), total_refunded: Type.Integer(), remaining: Type.Integer(), reason: NullStr,
}, { $id: 'GatewayRefundResponse' });

export function toGatewayPayment(p: Payment, c: CheckoutState, extra: { refundCount: number; connectorTransactionId: string | null }): GatewayPaymentView {
  return {
    id: p.id, payment_id: p.id, order_id: p.orderId, checkout_session_id: p.id, amount: p.amount, currency: p.currency,
    status: gatewayPaymentStatus(p.status, c), payment_method: c.method ?? p.method, source: 'checkout',
    card_last4: p.card?.last4 ?? null, card_brand: p.card?.brand ?? null, customer_email: p.customer.email ?? null,
    error_code: p.failure?.code ?? null, error_message: p.failure?.message ?? null, metadata: p.metadata,
    created_at: new Date(p.createdAt).toISOString(), updated_at: new Date(p.updatedAt).toISOString(),
    connector_transaction_id: extra.connectorTransactionId, refunded_amount: p.amountRefunded, refund_count: extra.refundCount,
  };
}

export function toGatewayRefund(r: Refund, p: Payment) {
  return {
    id: r.id, payment_id: p.id, status: p.amountRefunded >= p.amount ? 'refunded' as const : 'partially_refunded' as const,
    amount_refunded: r.amount, total_refunded: p.amountRefunded, remaining: remainingOf(p), reason: r.reason,
  };
}
