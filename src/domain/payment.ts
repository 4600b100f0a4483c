// The payment aggregate: its domain shape and the pure state machine that moves it.
//   (none) --create--> pending --succeed--> succeeded --refund--> partially_refunded --refund--> refunded
//                       |  \--fail--> failed                  \---------refund (all)---------> refunded
//                       \--expire--> expired
//                       \--cancel--> cancelled   (gateway checkout sessions only: the page's cancel link)
//                       \--authorize--> authorized --capture--> succeeded; --void--> cancelled   (capture_method manual)
import { computeFee, type FeeSettings } from './money.js';
import { netAfter, planRefund } from './refund.js';
import type { GatewaySession } from './checkout-session.js';

import type { PaymentStatus } from './payment-status.js';

export { MERCHANT_PAYMENT_STATUSES, merchantStatus, PAYMENT_STATUSES, storedStatusesOf, type MerchantPaymentStatus, type PaymentStatus } from './payment-status.js';

export const FAILURE_CODES = ['authentication_failed', 'insufficient_funds', 'card_expired', 'limit_exceeded', 'card_declined', 'expired'] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export const FAILURE_MESSAGES: Record<FailureCode, string> = {
  authentication_failed: 'The customer did not pass 3-D Secure authentication.',
  insufficient_funds: 'The card has insufficient funds.',
  card_expired: 'The card has expired.',
  limit_exceeded: 'The card limit was exceeded.',
  card_declined: 'The card was declined.',
  expired: 'The payment window ended before the customer paid.',
};

export type PaymentMethod = 'card' | 'sbp';
export type Locale = 'az' | 'ru' | 'en';
export type PaymentSource = 'api' | 'link' | 'form' | 'insales' | 'gateway';

export interface Customer {
  email?: string; name?: string; phone?: string; ip?: string;
  country?: string; city?: string; address?: string; zip?: string;
}

export interface CardSummary { brand: string; last4: string; country: string | null; expMonth: number; expYear: number; fingerprint: string }

export interface Payment {
  id: string;
  merchantId: string;
  livemode: boolean;
  status: PaymentStatus;
  amount: number;
  currency: string;
  amountRefunded: number;
  fee: number;
  net: number;
  charged: { amount: number; currency: string } | null;
  orderId: string | null;
  description: string | null;
  metadata: Record<string, string>;
  /** The method the merchant asked for, or the one the customer paid with; null while open. */
  method: PaymentMethod | null;
  customer: Customer;
  card: CardSummary | null;
  failure: { code: FailureCode; message: string } | null;
  returnUrl: string | null;
  locale: Locale | null;
  source: PaymentSource;
  createdAt: number;
  paidAt: number | null;
  expiresAt: number;
  updatedAt: number;
  version: number;
  requestId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The connector attempt in flight (recorded, outcome not yet recorded): no other may start. */
  pendingAttempt: string | null;
  /** The payment link it was created for (source `link`), else null. */
  linkId: string | null;
  /** The gateway channel it was taken on (checkout sessions), else null. */
  channelId: string | null;
  /** What a gateway checkout session (`cs_…`, source `gateway`) adds; null for merchant API payments. */
  session: GatewaySession | null;
  /** The test clock it runs on (test mode only): its deadlines and its own times follow that clock. Absent: none. */
  testClockId?: string | null;
}

/** A validated create request, in domain terms. */
export interface NewPayment {
  amount: number;
  currency: string;
  orderId: string | null;
  description: string | null;
  metadata: Record<string, string>;
  method: PaymentMethod | null;
  customer: Customer;
  returnUrl: string | null;
  locale: Locale | null;
  source: PaymentSource;
  /** The payment link it is created for (absent: none). */
  linkId?: string | null;
  channelId?: string | null;
  session?: GatewaySession | null;
}

export interface CreateContext {
  id: string;
  merchantId: string;
  livemode: boolean;
  fees: FeeSettings;
  windowSeconds: number;
  requestId: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The test clock the payment is created on (test mode only; absent: none): `now` is then the clock's time. */
  testClockId?: string | null;
}

export function createPayment(input: NewPayment, ctx: CreateContext, now: number): Payment {
  const fee = computeFee(input.amount, ctx.fees);
  return {
    id: ctx.id, merchantId: ctx.merchantId, livemode: ctx.livemode, status: 'pending',
    amount: input.amount, currency: input.currency, amountRefunded: 0, fee, net: input.amount - fee,
    charged: null, orderId: input.orderId, description: input.description, metadata: input.metadata,
    method: input.method, customer: input.customer, card: null, failure: null,
    returnUrl: input.returnUrl, locale: input.locale, source: input.source,
    createdAt: now, paidAt: null, expiresAt: now + ctx.windowSeconds * 1000, updatedAt: now, version: 1,
    requestId: ctx.requestId, idempotencyKey: ctx.idempotencyKey, requestHash: ctx.requestHash, pendingAttempt: null,
    linkId: input.linkId ?? null, channelId: input.channelId ?? null, session: input.session ?? null,
    testClockId: ctx.testClockId ?? null,
  };
}

export type PaymentCommand =
  | { type: 'succeed'; method: PaymentMethod; card: CardSummary | null }
  | { type: 'fail'; method: PaymentMethod | null; code: FailureCode; card: CardSummary | null }
  | { type: 'expire' }
  | { type: 'cancel' }
  | { type: 'refund'; amount: number }
  /**
   * The bank held the money (capture_method manual): pending -> authorized. The hold lapses after
   * `holdSeconds`: the payment's `expiresAt` becomes that moment (the expiry sweep voids it then).
   */
  | { type: 'authorize'; method: PaymentMethod; card: CardSummary | null; holdSeconds: number }
  /** Take `amount` (absent: all) of an authorization; the rest is released. */
  | { type: 'capture'; amount?: number }
  /** Release an uncaptured authorization: authorized -> cancelled (`expired`: the expiry sweep, when the hold lapsed). */
  | { type: 'void'; expired?: boolean };

/** The connector operations of a manual capture (attempt rows and the sandbox ledger name them so). */
export const CAPTURE_OPERATION = 'capture';
export const VOID_OPERATION = 'void';

/** The failure an authorization voided by the expiry sweep carries (code `expired`, its own message). */
export const AUTHORIZATION_EXPIRED = { code: 'expired', message: 'The authorization lapsed before it was captured; the hold was released.' } as const;

/** `payment.refunded` is the gateway API's event for a refund (one per refund), recorded beside the merchant API's `refund.succeeded`. */
export type PaymentEventType = 'payment.succeeded' | 'payment.failed' | 'payment.expired' | 'payment.cancelled' | 'refund.succeeded' | 'payment.refunded';

export interface TransitionOk { ok: true; state: Payment; events: PaymentEventType[] }
export type TransitionErrorCode = 'payment_not_payable' | 'amount_invalid' | 'refund_amount_invalid' | 'payment_not_capturable' | 'capture_amount_invalid' | 'payment_not_cancellable';
export interface TransitionError { ok: false; code: TransitionErrorCode }
export type TransitionResult = TransitionOk | TransitionError;

const moved = (p: Payment, patch: Partial<Payment>, now: number, events: PaymentEventType[]): TransitionOk =>
  ({ ok: true, state: { ...p, ...patch, updatedAt: now, version: p.version + 1 }, events });

export function transition(p: Payment, cmd: PaymentCommand, now: number): TransitionResult {
  switch (cmd.type) {
    case 'succeed':
      if (p.status !== 'pending') return { ok: false, code: 'payment_not_payable' };
      return moved(p, { status: 'succeeded', method: cmd.method, card: cmd.card, paidAt: now, failure: null }, now, ['payment.succeeded']);
    case 'fail':
      if (p.status !== 'pending') return { ok: false, code: 'payment_not_payable' };
      return moved(p, {
        status: 'failed', method: cmd.method ?? p.method, card: cmd.card ?? p.card,
        failure: { code: cmd.code, message: FAILURE_MESSAGES[cmd.code] },
      }, now, ['payment.failed']);
    case 'expire':
      if (p.status !== 'pending') return { ok: false, code: 'payment_not_payable' };
      return moved(p, { status: 'expired', failure: { code: 'expired', message: FAILURE_MESSAGES.expired } }, now, ['payment.expired']);
    case 'cancel':
      // Only a gateway session has a cancel link; a merchant API payment ends by paying or expiring.
      if (p.status !== 'pending' || p.session === null) return { ok: false, code: 'payment_not_payable' };
      return moved(p, { status: 'cancelled' }, now, ['payment.cancelled']);
    case 'refund': {
      // The same rules as a refund request with an explicit amount (src/domain/refund.ts); the fee stays.
      const plan = planRefund(p, cmd.amount);
      if (!plan.ok) return plan;
      const refunded = p.amountRefunded + plan.amount;
      return moved(p, {
        amountRefunded: refunded, net: netAfter(p, refunded), status: refunded === p.amount ? 'refunded' : 'partially_refunded',
      }, now, ['refund.succeeded', 'payment.refunded']);
    }
    case 'authorize':
      if (p.status !== 'pending') return { ok: false, code: 'payment_not_payable' };
      return moved(p, { status: 'authorized', method: cmd.method, card: cmd.card, failure: null, expiresAt: now + cmd.holdSeconds * 1000 }, now, []);
    case 'capture': {
      if (p.status !== 'authorized') return { ok: false, code: 'payment_not_capturable' };
      const amount = cmd.amount ?? p.amount;
      if (!Number.isSafeInteger(amount) || amount < 1 || amount > p.amount) return { ok: false, code: 'capture_amount_invalid' };
      // A partial capture: the payment becomes the captured amount, the fee shrinks in proportion.
      const fee = amount === p.amount ? p.fee : Math.min(amount, Math.round((p.fee * amount) / p.amount));
      return moved(p, { status: 'succeeded', amount, fee, net: amount - fee - p.amountRefunded, paidAt: now }, now, ['payment.succeeded']);
    }
    case 'void':
      if (p.status !== 'authorized') return { ok: false, code: 'payment_not_cancellable' };
      // The same event as a merchant's cancel; an expired hold says so in its failure (error_code expired).
      return moved(p, { status: 'cancelled', ...(cmd.expired ? { failure: { ...AUTHORIZATION_EXPIRED } } : {}) }, now, ['payment.cancelled']);
  }
}
