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

/** The statuses whose net counts towards the merchant's balance (what payouts draw on): paid, then perhaps refunded. */
export const BALANCE_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_refunded', 'refunded'];

/** What a payment adds to its balance: its net once settled, nothing before (or if it never is). */
export const balanceShare = (p: { status: PaymentStatus; net: number }): number => (BALANCE_STATUSES.includes(p.status) ? p.net : 0);

/** How much a change of a payment moves its balance: the share after it less the share before. */
export const balanceDelta = (before: { status: PaymentStatus; net: number }, after: { status: PaymentStatus; net: number }): number =>
  balanceShare(after) - balanceShare(before);
