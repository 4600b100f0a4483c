// The acquirer side behind one interface. A connector only translates: it turns a request of the
// core into the acquirer's terms and the acquirer's answer into one of these results. The core
// (the payment's actor) decides when to call, records the outcome and owns any retry.
import type { CheckedCard } from '../domain/card.js';
import type { RedirectWallet } from '../domain/methods.js';
import type { FailureCode } from '../domain/payment.js';
import type { BankOperation } from '../domain/reconciliation.js';

export interface ConnectorRequest {
  /** The attempt's id: the acquirer's idempotency key for this call (DESIGN invariant 9). */
  attemptId: string;
  paymentId: string;
  amount: number;
  currency: string;
  livemode: boolean;
  /** Public base URL of this service: sandbox pages live under it. */
  baseUrl: string;
}

/** Refusals of the connector itself (not a decision of the card's bank). */
export type ConnectorErrorCode = 'connector_not_configured' | 'test_card_in_live_mode' | 'payment_attempt_interrupted';

export type ConnectorResult =
  | { kind: 'succeeded'; ref: string; country: string | null; token: string | null }
  | { kind: 'failed'; ref: string; code: FailureCode }
  | { kind: 'three_ds'; ref: string; acsUrl: string; creq: string; country: string | null; token: string | null }
  | { kind: 'qr'; ref: string; payload: string; deeplink: string }
  | { kind: 'redirect'; ref: string; url: string }
  | { kind: 'error'; code: ConnectorErrorCode };

/**
 * What a refund call answers: the money went back (`succeeded`), the bank refused to return it
 * (`failed`, `refund_declined`), or the connector refused before any bank saw it (`error`). A
 * refund is synchronous: an acquirer that answers "pending" is not wired yet (docs/decisions.md).
 */
export type RefundResult =
  | { kind: 'succeeded'; ref: string }
  | { kind: 'failed'; ref: string; code: 'refund_declined' }
  | { kind: 'error'; code: ConnectorErrorCode };

/**
 * What a payout call answers: the money left (`paid`), the receiving bank refused it (`failed`), or
 * the connector refused before any bank saw it (`error`). Synchronous, like a refund.
 */
export type PayoutResult =
  | { kind: 'succeeded'; ref: string }
  | { kind: 'failed'; ref: string; code: 'payout_declined' }
  | { kind: 'error'; code: ConnectorErrorCode };

/**
 * What a capture or a void of an authorization answers: done (`succeeded`; a partial capture
 * releases the rest of the hold, `released` in minor units), refused by the bank (`failed`: the
 * authorization stands as it was), or refused by the connector before any bank saw it (`error`).
 */
export type CaptureResult =
  | { kind: 'succeeded'; ref: string; released: number }
  | { kind: 'failed'; ref: string; code: 'capture_declined' | 'void_declined' }
  | { kind: 'error'; code: ConnectorErrorCode };

/** Where a payout goes, as the bank needs it (in memory only: never stored in full). */
export interface PayoutAccount { type: 'card' | 'iban' | 'sbp'; account: string; bic: string | null; memberId: string | null }

/** The answer to a status query for a key the acquirer never received: it will now refuse that key. */
export interface UnknownAttempt { kind: 'unknown_attempt' }

/** What the acquirer can be asked to do; every call carries its attempt id in `r.attemptId`. */
export interface BankOperations {
  /** Authorises a card payment: settles, or asks for a 3-D Secure challenge. */
  authorizeCard(r: ConnectorRequest, card: CheckedCard): Promise<ConnectorResult>;
  /** The result of the challenge (`cres` Y = passed, N = failed) for the attempt `ref`. */
  completeChallenge(r: ConnectorRequest, ref: string, cres: 'Y' | 'N'): Promise<ConnectorResult>;
  /** Starts an SBP payment: a QR payload and a deeplink, optionally for a chosen bank. */
  startSbp(r: ConnectorRequest, memberId: string | null): Promise<ConnectorResult>;
  /** Starts a wallet payment that continues on the wallet's page. */
  startWallet(r: ConnectorRequest, wallet: RedirectWallet, phone: string | null): Promise<ConnectorResult>;
  /** Charges a device-wallet token (Apple Pay, Google Pay). */
  chargeWalletToken(r: ConnectorRequest, token: string): Promise<ConnectorResult>;
  /** Charges a card saved on an earlier payment (merchant-initiated, no challenge). */
  chargeSaved(r: ConnectorRequest, token: string): Promise<ConnectorResult>;
  /** The answer of the bank or wallet page for the attempt `ref`. */
  resolveExternal(r: ConnectorRequest, ref: string, decision: 'approve' | 'decline'): Promise<ConnectorResult>;
  /**
   * Returns `r.amount` of the payment's charge `chargeRef` (the bank's reference of the charge that
   * succeeded: the `ref` in the result of the payment's succeeded attempt; null when the payment was
   * settled without a charge, by the test helper). Partial refunds of one charge each have their
   * own attempt id.
   */
  refund(r: ConnectorRequest, chargeRef: string | null): Promise<RefundResult>;
  /**
   * Takes `r.amount` (at most `authorized`) of the authorization `authRef` (the bank's reference in
   * the result of the payment's authorizing attempt); the rest of the hold is released.
   */
  capture(r: ConnectorRequest, authRef: string | null, authorized: number): Promise<CaptureResult>;
  /** Releases the whole authorization `authRef` (`r.amount` is the authorized amount). */
  void(r: ConnectorRequest, authRef: string | null): Promise<CaptureResult>;
  /** Pays `r.amount` out of the merchant's balance to `to` (r.paymentId is the payout's id). */
  payout(r: ConnectorRequest, to: PayoutAccount): Promise<PayoutResult>;
}

export interface Connector extends BankOperations {
  readonly name: string;
  /**
   * The outcome of the call made with `attemptId`, exactly as first given; for a key the acquirer
   * never received, `unknown_attempt`, after which a call with that key is refused. Recovery asks
   * this instead of repeating a call whose outcome it did not see.
   */
  lookup(attemptId: string): Promise<ConnectorResult | RefundResult | PayoutResult | CaptureResult | UnknownAttempt>;
  /**
   * The bank's own record of the operations it executed in [from, to) (epoch ms, by the bank's time),
   * each under the idempotency key it was sent with: the reconciler compares them with the engine's
   * attempts. The sandbox answers from its ledger; a live acquirer from its settlement file. A key
   * the bank only closed on a status query (never executed) is not an operation. Throws when the
   * report cannot be had (the reconciler then tries the window again later).
   */
  report(from: number, to: number): Promise<BankOperation[]>;
}
