// The statuses of a payment, on their own so that the payment and refund rules can both name them
// without importing each other.

/** `authorized`: a gateway direct payment with capture_method manual, held by the bank and not yet captured. */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'expired', 'refunded', 'partially_refunded', 'review', 'cancelled', 'authorized'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
