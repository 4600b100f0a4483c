// The status of a payment as the gateway API's Payment resource shows it. One state machine moves
// every payment (src/domain/payment.ts); this is its gateway view. Pure.
//
//   pending --authorize--> authorized --capture--> succeeded --refund--> partially_refunded --refund--> refunded
//      |                       \--void--> cancelled
//      |--succeed--> succeeded (capture_method automatic)
//      |--fail--> failed;  --expire--> expired;  --cancel (hosted page link)--> cancelled
//   pending while the customer must act (3-D Secure, SBP, wallet) reads requires_action.
import type { CheckoutState } from './checkout.js';
import type { PaymentStatus } from './payment.js';

export const GATEWAY_PAYMENT_STATUSES = [
  'pending', 'requires_action', 'processing', 'authorized', 'succeeded', 'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded',
] as const;
export type GatewayPaymentStatus = (typeof GATEWAY_PAYMENT_STATUSES)[number];

export function gatewayPaymentStatus(status: PaymentStatus, c: Pick<CheckoutState, 'awaiting'>): GatewayPaymentStatus {
  switch (status) {
    case 'pending':
      if (c.awaiting === null) return 'pending';
      return c.awaiting === 'poll' ? 'processing' : 'requires_action';
    case 'review': return 'processing';
    case 'authorized': case 'succeeded': case 'failed': case 'cancelled': case 'expired': case 'partially_refunded': case 'refunded':
      return status;
  }
}

/**
 * What a gateway status filter selects in storage: (stored status, checkout wait) pairs, the exact
 * inverse of gatewayPaymentStatus, so that the list filters in SQL and its pages and total agree.
 * `wait`: none (no wait), action (the customer must act: 3-D Secure, SBP, wallet), poll, or any.
 */
export interface StoredStatus { status: PaymentStatus; wait: 'none' | 'action' | 'poll' | 'any' }

export function storedStatusesOf(s: GatewayPaymentStatus): StoredStatus[] {
  switch (s) {
    case 'pending': return [{ status: 'pending', wait: 'none' }];
    case 'requires_action': return [{ status: 'pending', wait: 'action' }];
    case 'processing': return [{ status: 'pending', wait: 'poll' }, { status: 'review', wait: 'any' }];
    default: return [{ status: s, wait: 'any' }];
  }
}
