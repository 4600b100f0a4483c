// The checkout state of a payment: which method the customer chose, what the browser must do next,
// and which connector attempt an outcome belongs to. A pure state machine beside the payment's:
// a settled attempt yields the payment command (succeed or fail) that moves the payment itself.
//
//   open --await(3ds|sbp|wallet|poll)--> awaiting_* --await--> awaiting_* (the customer switched method)
//     \                                    |
//      \--settle(direct)--> [payment succeeds or fails]  <--settle(callback with the attempt's ref)
//   any --expire--> [payment expires]; open|awaiting 3ds --cancel--> [session cancelled]; every command on a payment that is no longer pending: checkout_closed
import type { CardSummary, FailureCode, PaymentCommand, PaymentStatus } from './payment.js';
import { merchantMethodOf, type MethodCode, type NextAction } from './methods.js';

export type Awaiting = 'three_ds' | 'sbp' | 'wallet' | 'poll';

export interface CheckoutState {
  /** selected_method_code: the method last chosen or submitted. */
  method: MethodCode | null;
  awaiting: Awaiting | null;
  nextAction: NextAction | null;
  /** The connector's reference of the attempt in progress. */
  ref: string | null;
  attempts: number;
  /** Card of an attempt waiting for 3-D Secure, recorded on the payment when it settles. */
  card: CardSummary | null;
  /** Connector token of that card, saved for recurrent charges when the attempt succeeds. */
  token: string | null;
}

export const OPEN: CheckoutState = { method: null, awaiting: null, nextAction: null, ref: null, attempts: 0, card: null, token: null };

export type CheckoutCommand =
  | { type: 'await'; method: MethodCode; awaiting: Awaiting; action: NextAction; ref: string; card?: CardSummary | null; token?: string | null }
  /** ref null: a new attempt that settled at once; else the callback of the awaited attempt. */
  | { type: 'settle'; method: MethodCode | null; ref: string | null; outcome: 'succeeded'; card?: CardSummary | null; token?: string | null }
  | { type: 'settle'; method: MethodCode | null; ref: string | null; outcome: 'failed'; code: FailureCode; card?: CardSummary | null }
  | { type: 'expire' }
  /** The customer left through the page's cancel link (gateway sessions). */
  | { type: 'cancel' };

export type CheckoutErrorCode = 'checkout_closed' | 'checkout_action_stale' | 'checkout_not_cancellable';

export type CheckoutStep =
  | { ok: true; checkout: CheckoutState; payment: PaymentCommand | null; saveToken: string | null }
  | { ok: false; code: CheckoutErrorCode };

export function checkoutStep(status: PaymentStatus, c: CheckoutState, cmd: CheckoutCommand): CheckoutStep {
  if (status !== 'pending') return { ok: false, code: 'checkout_closed' };
  switch (cmd.type) {
    case 'await':
      return {
        ok: true, payment: null, saveToken: null,
        checkout: { method: cmd.method, awaiting: cmd.awaiting, nextAction: cmd.action, ref: cmd.ref, attempts: c.attempts + 1, card: cmd.card ?? null, token: cmd.token ?? null },
      };
    case 'settle': {
      const callback = cmd.ref !== null;
      if (callback && (c.awaiting === null || c.ref !== cmd.ref)) return { ok: false, code: 'checkout_action_stale' };
      const method = cmd.method ?? c.method ?? 'card';
      const card = cmd.card ?? (callback ? c.card : null);
      const checkout: CheckoutState = { method, awaiting: null, nextAction: null, ref: callback ? c.ref : null, attempts: callback ? c.attempts : c.attempts + 1, card: null, token: null };
      if (cmd.outcome === 'succeeded') {
        const token = cmd.token ?? (callback ? c.token : null);
        return { ok: true, checkout, saveToken: token, payment: { type: 'succeed', method: merchantMethodOf(method), card } };
      }
      return { ok: true, checkout, saveToken: null, payment: { type: 'fail', method: merchantMethodOf(method), code: cmd.code, card } };
    }
    case 'expire':
      return { ok: true, checkout: { ...c, awaiting: null, nextAction: null }, saveToken: null, payment: { type: 'expire' } };
    case 'cancel':
      // While the customer may be paying in a bank or wallet app, the outcome of that attempt decides first.
      if (c.awaiting === 'sbp' || c.awaiting === 'wallet' || c.awaiting === 'poll') return { ok: false, code: 'checkout_not_cancellable' };
      return { ok: true, checkout: { ...c, awaiting: null, nextAction: null }, saveToken: null, payment: { type: 'cancel' } };
  }
}

/** The gateway session status of a payment's checkout. */
export type SessionStatus = 'open' | 'processing' | 'requires_action' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

export function sessionStatus(status: PaymentStatus, c: CheckoutState): SessionStatus {
  switch (status) {
    case 'succeeded': case 'refunded': case 'partially_refunded': return 'succeeded';
    case 'failed': return 'failed';
    case 'expired': return 'expired';
    case 'cancelled': return 'cancelled';
    case 'review': case 'authorized': return 'processing';
    case 'pending':
      if (c.awaiting === null) return 'open';
      return c.awaiting === 'poll' ? 'processing' : 'requires_action';
  }
}
