// The typed messages of the actor runtime, shared by both threads (one file). Each aggregate kind
// has its command union and, per command, the result its reply carries; a failed command travels as
// data (ApiFailure), never as a thrown, structured-cloned error.
import type { ApiFailure } from '../src/errors.js';
import type { StoredAnswer } from '../src/store/replay-cache.js';
import type { CardSummary, CreateContext, FailureCode, NewPayment, Payment, PaymentCommand } from '../src/domain/payment.js';
import type { CheckoutState } from '../src/domain/checkout.js';
import type { CheckedCard } from '../src/domain/card.js';
import type { RedirectWallet } from '../src/domain/methods.js';
import type { WebhookConfig } from '../src/config.js';
import type { DbTimeouts } from '../src/store/db.js';
import type { AttemptKey } from '../src/store/attempts-repo.js';
import type { GatewayViewExtras } from '../src/store/attempt-reads.js';
import type { PaymentScope } from '../src/domain/payment-scope.js';
import type { Link, LinkCreateContext, NewLink } from '../src/domain/link.js';
import type { MetricsJson } from './worker-metrics.js';
import type { FeeSettings } from '../src/domain/money.js';
import type { Refund } from '../src/domain/refund.js';
import type { CheckedDestination, Payout as Payout_ } from '../src/domain/payout.js';

/** What the customer asked the checkout to start with a method other than a typed card. */
export type SubmitAction =
  | { method: 'sbp'; memberId: string | null }
  | { method: RedirectWallet; phone: string | null }
  | { method: 'apple_pay' | 'google_pay'; token: string }
  | { method: 'recurrent'; savedId: string };

/** Payment aggregate: creation and the plain state changes (expiry, forced outcomes). */
export type PaymentMessage =
  /**
   * `mailbox`: the idempotency scope of a create with a key (see mailboxOf). `answer`: render the
   * merchant API answer here (and, for a new payment with a key, write it to the replay cache when
   * this worker has Redis), so the main thread only sends bytes.
   */
  | { kind: 'payment.create'; id: string; input: NewPayment; ctx: CreateContext; mailbox?: string; answer?: AnswerRequest }
  /**
   * A direct card payment (POST /v2/payments): the create, its first attempt (one statement with the
   * row), the bank call and the outcome, in one command. A key found taken is answered as a replay
   * with `pay` null (the front end decides whether that payment still needs paying).
   */
  | { kind: 'payment.create_direct'; id: string; input: NewPayment; ctx: CreateContext; mailbox?: string; card: CheckedCard; summary: CardSummary }
  /** Plain state changes only: money moves (refunds, captures, voids) go through their own command and the attempt protocol. */
  | { kind: 'payment.apply'; id: string; command: Exclude<PaymentCommand, { type: 'refund' | 'capture' | 'void' | 'authorize' }> };

/**
 * Capture (`amount` null: all) and void of an authorization (capture_method manual), through the
 * attempt protocol (actors/capture-actor.ts). `expired`: the expiry sweep voids a lapsed hold.
 */
export type HoldMessage =
  | { kind: 'payment.capture'; id: string; amount: number | null; key?: AttemptKey; scope?: PaymentScope }
  | { kind: 'payment.void'; id: string; expired: boolean; key?: AttemptKey; scope?: PaymentScope };
/**
 * A capture or cancel's answer: the payment as it stands, and the request that made the change (a
 * key's first request, on a replay). `view`, when the command had a gateway scope: what the
 * gateway's view adds, read with the payment before the attempt (a capture or void changes none of it).
 */
export interface HoldResult { payment: Payment; replayed: boolean; requestId: string | null; view?: GatewayViewExtras }

/** The checkout of a payment (addressed by the payment's id): every acquirer call goes through here. */
export type CheckoutMessage =
  /**
   * `seen`: the payment as the front end read it just before (the hosted page's pay): the actor starts
   * from it instead of reading the row again. Only a hint: the attempt's begin is version-checked, and
   * a refusal is never given on it (the actor reads the row and decides again).
   */
  | { kind: 'checkout.pay'; id: string; card: CheckedCard; summary: CardSummary; seen?: { payment: Payment; checkout: CheckoutState } }
  | { kind: 'checkout.submit'; id: string; action: SubmitAction }
  | { kind: 'checkout.callback'; id: string; ref: string; answer: 'Y' | 'N' | 'approve' | 'decline' }
  | { kind: 'checkout.complete'; id: string; outcome: 'succeeded' | 'failed' | 'expired'; failureCode: FailureCode | null }
  /** The hosted page's cancel link of a gateway checkout session. */
  | { kind: 'checkout.cancel'; id: string };

/** Recovery of a connector attempt whose outcome was never recorded (addressed by its aggregate's id). */
export type AttemptMessage = { kind: 'attempt.recover'; id: string; attemptId: string };

// -- Payment links (links): the link actor owns a link's holds and asks the payment actor for its payments.
/** What the link page passes along so that the link actor can create the payment without a lookup. */
export interface LinkPayContext { fees: FeeSettings; windowSeconds: number; requestId: string; locale: 'az' | 'ru' | 'en' | null }
export type LinkMessage =
  | { kind: 'link.create'; id: string; input: NewLink; ctx: LinkCreateContext; mailbox?: string }
  | { kind: 'link.deactivate'; id: string }
  | { kind: 'link.pay'; id: string; amount: number | null; ctx: LinkPayContext };
export interface LinkResult { link: Link; replayed: boolean }
export interface LinkPayResult { link: Link; payment: Payment }
// -- end of payment links

// Refunds (issue 10): run by the payment's actor (addressed by the payment's id), so the refund row,
// the payment's move and the attempt share the payment's mailbox and version check.
/** The refund's payment must be in `scope`'s merchant and mode (and gateway terms, when set), else it is not found. */
export interface RefundRequest {
  merchantId: string; livemode: boolean; gateway?: PaymentScope['gateway']; amount: number | null; reason: string | null;
  requestId: string; idempotencyKey: string | null; requestHash: string | null;
}
export type RefundMessage = { kind: 'payment.refund'; id: string; request: RefundRequest };
export interface RefundResultMsg { refund: Refund; payment: Payment; replayed: boolean }

// Payouts (issue 12): run by the actor of the payout's id (po_…, chosen by the front end).
export interface PayoutRequest {
  merchantId: string; livemode: boolean; amount: number; currency: string;
  /** The checked destination: the full account only in memory, on its way to the bank. */
  destination: CheckedDestination;
  metadata: Record<string, string>;
  requestId: string; idempotencyKey: string | null; requestHash: string | null;
}
/** `mailbox`: the key's scope when the payout has an Idempotency-Key (same-key payouts run one after another). */
export type PayoutMessage = { kind: 'payout.create'; id: string; request: PayoutRequest; mailbox?: string };
export interface PayoutResultMsg { payout: Payout_; replayed: boolean }

export type Command = PaymentMessage | HoldMessage | CheckoutMessage | AttemptMessage | LinkMessage | RefundMessage | PayoutMessage;
export type CommandKind = Command['kind'];

/**
 * The mailbox (and so the shard) a command runs in: its aggregate's id, except for a create that
 * carries an Idempotency-Key, which runs in the mailbox of its key's scope: creates with one key
 * run one after another in one process, and the later ones find the first's committed row.
 */
export const mailboxOf = (c: Command): string => ('mailbox' in c && c.mailbox ? c.mailbox : c.id);
export type CommandOf<K extends CommandKind> = Extract<Command, { kind: K }>;

/** What a create asks its worker to do with its answer: the replay cache's scope and request hash (null without a key). */
export interface AnswerRequest { scope: string | null; hash: string | null }
export interface PaymentResult { payment: Payment; replayed: boolean }
/** A direct card payment's create: `pay` is the pay's reply for a payment made now, null on a replay. */
export interface DirectCreateResult { payment: Payment; replayed: boolean; pay: ReplyOf<'checkout.pay'> | null }
/**
 * A create asked for its `answer`: only the bytes rendered by the worker come back (the payment
 * itself is not copied across the threads); `cached`: the worker wrote them to the replay cache.
 */
export interface AnsweredCreate { replayed: boolean; answer: StoredAnswer; cached: boolean }
/**
 * `bankReference`: the id of the acquirer attempt this command made, when the bank accepted it or
 * asked for an action (the gateway's connector_transaction_id), so the answer needs no read after it.
 */
export interface CheckoutResult { payment: Payment; checkout: CheckoutState; replayed: boolean; bankReference?: string | null }
export interface RecoverResult { attemptId: string; outcome: 'settled' | 'abandoned' | 'already_settled' }

/** The result each command's reply carries when it succeeds. */
export interface Results {
  'payment.create': PaymentResult | AnsweredCreate;
  'payment.create_direct': DirectCreateResult;
  'payment.apply': PaymentResult;
  'payment.capture': HoldResult;
  'payment.void': HoldResult;
  'checkout.pay': CheckoutResult;
  'checkout.submit': CheckoutResult;
  'checkout.callback': CheckoutResult;
  'checkout.complete': CheckoutResult;
  'checkout.cancel': CheckoutResult;
  'attempt.recover': RecoverResult;
  'link.create': LinkResult;
  'link.deactivate': LinkResult;
  'link.pay': LinkPayResult;
  'payment.refund': RefundResultMsg;
  'payout.create': PayoutResultMsg;
}

/** `replayedFrom`: the failure is what the request's Idempotency-Key holds, from that earlier request (its id). */
export type Failed = { ok: false; failure: ApiFailure; replayedFrom?: string };
export type ReplyOf<K extends CommandKind> = ({ ok: true } & Results[K]) | Failed;
/** The reply to a command, typed by the command (a create with `answer` gets the answer, else the payment). */
export type ReplyTo<C extends Command> = C extends { kind: 'payment.create' }
  ? ({ ok: true } & (C extends { answer: AnswerRequest } ? AnsweredCreate : PaymentResult)) | Failed
  : ReplyOf<C['kind']>;
/** Any reply (as it crosses the thread boundary). */
export type Reply = ReplyOf<CommandKind>;

export interface WorkerStats {
  shard: number; mailboxDepth: number; actors: number; processed: number;
  /** The worker's prom-client registry as JSON (worker-metrics.ts), when asked for. */
  metrics?: MetricsJson;
}

/** Main thread -> worker. `answer` carries the reply to an actor-to-actor `ask` of this worker. */
export type ToWorker =
  | { t: 'cmd'; rid: number; cmd: Command }
  | { t: 'answer'; rid: number; reply: Reply }
  | { t: 'stats'; rid: number; metrics?: boolean }
  | { t: 'drain' };

/** Worker -> main thread. `ask` is a command one actor sends another (routed to its shard). */
export type FromWorker =
  | { t: 'reply'; rid: number; reply: Reply }
  | { t: 'ask'; rid: number; cmd: Command }
  | { t: 'stats'; rid: number; stats: WorkerStats };

export interface WorkerInit {
  shard: number;
  databaseUrl: string;
  poolSize: number;
  /** Connections of the sandbox bank's own pool (0: the bank uses the actors' pool). */
  bankPoolSize: number;
  /** Connections of the worker's webhook dispatcher pool, the deadlines and the pools' name prefix. */
  hooksPoolSize: number;
  dbTimeouts: DbTimeouts;
  appName: string;
  mailboxLimit: number;
  /** Commands queued for one aggregate id beyond which new ones are refused (one hot id cannot take the shard). */
  mailboxPerIdLimit: number;
  logLevel: string;
  publicBaseUrl: string;
  /** The replay cache's Redis (null: the front end's in-process store, which only the main thread reaches). */
  redisUrl?: string | null;
  kvPrefix?: string;
  /** How long one connector call may take before its outcome is left to recovery. */
  connectorTimeoutMs: number;
  /** How long an authorization (capture_method manual) is held before the expiry sweep voids it. */
  authorizationWindowSeconds: number;
  webhooks: WebhookConfig;
}
