// Storage row of a refund and its mapping to the domain object (also used for the refund carried in
// a `refund.succeeded` event's data, which is the row as committed).
import type { Refund } from '../domain/refund.js';

export interface RefundRow {
  id: string; payment_id: string; merchant_id: string; livemode: boolean; amount: number | string; currency: string;
  status: string; reason: string | null; failure_code: string | null; attempt_id: string; connector_ref: string | null;
  request_id: string; idempotency_key: string | null; request_hash: string | null;
  created_at: Date | string; updated_at: Date | string;
}

const ms = (v: Date | string): number => (v instanceof Date ? v.getTime() : Date.parse(v));

export function rowToRefund(r: RefundRow): Refund {
  return {
    id: r.id, paymentId: r.payment_id, merchantId: r.merchant_id, livemode: r.livemode, amount: Number(r.amount),
    currency: r.currency, status: r.status as Refund['status'], reason: r.reason, failureCode: r.failure_code,
    attemptId: r.attempt_id, createdAt: ms(r.created_at), requestId: r.request_id,
    idempotencyKey: r.idempotency_key, requestHash: r.request_hash,
  };
}
