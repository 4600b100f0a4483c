// Domain refund -> merchant API Refund resource (2026-09-22).
import type { Refund } from '../domain/refund.js';
import type { RefundResource } from './refunds.js';
import { isoInstant } from '../domain/instant.js';

export function toMerchantRefund(r: Refund): RefundResource {
  return {
    id: r.id, object: 'refund', payment_id: r.paymentId, amount: r.amount, currency: r.currency,
    status: r.status, reason: r.reason, created_at: isoInstant(r.createdAt),
  };
}
