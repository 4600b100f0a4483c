// The refund aggregate and its pure rules. A refund is created by its payment's actor: the amount is
// decided here from the payment as loaded, the bank is asked (the attempt protocol), and the payment
// moves with `transition(payment, {type: 'refund'})`. A refund's own state is final once the bank
// answered: succeeded (money returned) or failed (the bank refused); pending only while the attempt
// is in flight. Pure.
import type { PaymentStatus } from './payment-status.js';

/** What the refund rules read of a payment. */
interface RefundablePayment { status: PaymentStatus; amount: number; amountRefunded: number; fee: number }

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** The connector operation (attempt `operation`, sandbox ledger `operation`) of a refund. */
export const REFUND_OPERATION = 'refund';

export interface Refund {
  id: string;
  paymentId: string;
  merchantId: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  /** Why the bank refused it (status failed), else null. */
  failureCode: string | null;
  /** The connector attempt that carries it. */
  attemptId: string;
  createdAt: number;
  requestId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export type RefundRuleCode = 'payment_not_payable' | 'amount_invalid' | 'refund_amount_invalid';
export type RefundPlan = { ok: true; amount: number } | { ok: false; code: RefundRuleCode };

/** Payment statuses that hold money that can still be returned. */
export const REFUNDABLE: readonly PaymentStatus[] = ['succeeded', 'partially_refunded'];

export const remainingOf = (p: Pick<RefundablePayment, 'amount' | 'amountRefunded'>): number => p.amount - p.amountRefunded;

/**
 * How much a refund request returns: no amount (undefined or null) returns the whole remaining sum;
 * an amount must be a whole number of minor units from 1 to what is left. A payment that was never
 * paid, or has nothing left, is not refundable (that check comes first). Merchant spec, Known codes:
 * `amount_invalid` for an amount that is not a positive integer (zero, negative, a decimal, not a
 * number, Infinity), `refund_amount_invalid` for one that exceeds what is left (however large).
 */
export function planRefund(p: Pick<RefundablePayment, 'status' | 'amount' | 'amountRefunded'>, requested: unknown): RefundPlan {
  const remaining = remainingOf(p);
  if (!REFUNDABLE.includes(p.status) || remaining <= 0) return { ok: false, code: 'payment_not_payable' };
  if (requested === undefined || requested === null) return { ok: true, amount: remaining };
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 1) return { ok: false, code: 'amount_invalid' };
  if (requested > remaining) return { ok: false, code: 'refund_amount_invalid' };
  return { ok: true, amount: requested };
}

/**
 * The service fee is not returned on a refund: it paid for the charge, which happened. So `net`,
 * what the merchant keeps, is amount - fee - amount_refunded, and is -fee after a full refund.
 */
export const netAfter = (p: Pick<RefundablePayment, 'amount' | 'fee'>, amountRefunded: number): number => p.amount - p.fee - amountRefunded;
