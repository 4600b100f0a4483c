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

/** The merchant-API statuses a gateway status filter selects (list filter). */
export function paymentStatusesOf(s: GatewayPaymentStatus): PaymentStatus[] {
  switch (s) {
    case 'pending': case 'requires_action': return ['pending'];
    case 'processing': return ['pending', 'review'];
    default: return [s];
  }
}
