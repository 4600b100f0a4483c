// Merchant API (2026-09-22): refund request and resources, the only source of their types.
import { Type, type Static } from '@sinclair/typebox';
import { REFUND_STATUSES } from '../domain/refund.js';
import { Timestamp } from './common.js';
import { PaymentResource } from './merchant-payments.js';

export const REFUND_REASON_MAX = 500;

export const CreateRefundRequest = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, description: 'Minor units; omitted or null: the whole remaining sum' })),
  reason: Type.Optional(Type.String({ maxLength: REFUND_REASON_MAX, description: 'Free text kept with the refund' })),
}, { additionalProperties: false, $id: 'CreateRefundRequest' });
export type CreateRefundRequest = Static<typeof CreateRefundRequest>;

/**
 * Which error code a schema failure under each top-level field maps to. Spec, Known codes: amount_invalid
 * is "amount not a positive integer, e.g. a decimal"; refund_amount_invalid (more than is left) is the
 * refund rule's (src/domain/refund.ts).
 */
export const CREATE_REFUND_FIELD_CODES = { amount: 'amount_invalid', reason: 'refund_reason_invalid' } as const;

export const RefundResource = Type.Object({
  id: Type.String({ pattern: '^ref_[0-9A-Za-z]{24}$' }),
  object: Type.Literal('refund'),
  payment_id: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  status: Type.Union(REFUND_STATUSES.map((s) => Type.Literal(s)), { description: 'succeeded; failed when the bank refused it; pending while the bank is being asked' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
}, { $id: 'Refund' });
export type RefundResource = Static<typeof RefundResource>;

export const RefundResultResource = Type.Object({
  object: Type.Literal('refund_result'),
  refund: RefundResource,
  payment: PaymentResource,
  request_id: Type.String(),
}, { $id: 'RefundResult' });
export type RefundResultResource = Static<typeof RefundResultResource>;

export const RefundList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(RefundResource),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.String(),
}, { $id: 'RefundList' });
