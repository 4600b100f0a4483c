// The statuses of a payment, on their own so that the payment and refund rules can both name them
// without importing each other.

/** `authorized`: a gateway direct payment with capture_method manual, held by the bank and not yet captured. */
export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'expired', 'refunded', 'partially_refunded', 'review', 'cancelled', 'authorized'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The merchant API's statuses: exactly its spec's seven ("States"). `cancelled` and `authorized` belong
 * to gateway payments (a session's cancel link, a manual-capture hold), which the merchant API never
 * reads; the mapping below keeps a merchant API answer inside the seven whatever a row holds.
 */
export const MERCHANT_PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'expired', 'refunded', 'partially_refunded', 'review'] as const;
export type MerchantPaymentStatus = (typeof MERCHANT_PAYMENT_STATUSES)[number];

/** A status as the merchant API shows it: a hold not yet captured is still `pending`; a cancelled payment ended unpaid, `failed`. */
export function merchantStatus(status: PaymentStatus): MerchantPaymentStatus {
  switch (status) {
    case 'authorized': return 'pending';
    case 'cancelled': return 'failed';
    default: return status;
  }
}

/** The stored statuses a merchant API status stands for (a list filter on `status` matches them all). */
export const storedStatusesOf = (status: MerchantPaymentStatus): PaymentStatus[] =>
  PAYMENT_STATUSES.filter((s) => merchantStatus(s) === status);
