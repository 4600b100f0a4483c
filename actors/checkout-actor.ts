// The checkout side of the payment actor: the customer's card payment, the other methods, the
// answers of the bank's pages, the test helper's forced outcomes, and the recovery of an attempt
// whose outcome was never recorded. Every acquirer call follows the attempt protocol
// (attempt-protocol.ts): recorded on the payment row first, called with the attempt id as the
// idempotency key, its outcome written with the checkout step and the payment's move in one
// version-checked statement. Handlers are plain functions over the actor context.
import type { CardSummary, Payment, PaymentCommand } from '../src/domain/payment.js';
import { transition } from '../src/domain/payment.js';
import { checkoutStep, OPEN, type CheckoutCommand, type CheckoutState } from '../src/domain/checkout.js';
import type { CheckedCard } from '../src/domain/card.js';
import type { MethodCode } from '../src/domain/methods.js';
import type { ConnectorResult } from '../src/connectors/types.js';
import { fail, type ApiFailure } from '../src/errors.js';
import { abandonAttempt, findAttempt, type AttemptStart } from '../src/store/attempts-repo.js';
import { customerKeyOf, findSavedCard, loadCheckout, saveCard, type PaymentWithCheckout } from '../src/store/checkout-repo.js';
import type { AttemptSettlement } from '../src/store/payments-repo.js';
import { startAttempt, type AttemptPlan } from './attempt-protocol.js';
import { REFUND_OPERATION } from '../src/domain/refund.js';
import { recoverRefund } from './refund-actor.js';
import { recoverPayout } from './payout-actor.js';
import { PAYOUT_OPERATION } from '../src/domain/payout.js';
import { CAPTURE_OPERATION, VOID_OPERATION } from '../src/domain/payment.js';
import { recoverHoldAttempt } from './capture-actor.js';
import { MAX_CONFLICT_RETRIES, remember, type ActorContext } from './context.js';
import type { CheckoutMessage, CheckoutResult, CommandOf, Failed, ReplyOf, SubmitAction } from './protocol.js';
import { clockNow } from './test-clocks/clock-now.js';

type CheckoutReply = ReplyOf<'checkout.pay'>;

/** What an attempt must remember to turn the connector's answer into a checkout step. */
interface AttemptContext { method: MethodCode | null; card: CardSummary | null; callbackRef: string | null }

const failed = (f: ApiFailure): Failed => ({ ok: false, failure: f });
const persisted = (): Failed => failed(fail('service_unavailable', null, 'version conflict persisted'));

/** Why a payment cannot take a new checkout command now, or null when it can. */
function refusal(cur: PaymentWithCheckout | null): Failed | null {
  if (!cur) return failed(fail('payment_not_found', 'id'));
  if (cur.payment.status !== 'pending') return failed(fail('checkout_closed'));
  if (cur.payment.pendingAttempt) return failed({ ...fail('payment_attempt_in_progress'), retryAfterSeconds: 1 });
  return null;
}

/** Turns a connector's answer into the checkout command it means. */
function commandOf(r: Exclude<ConnectorResult, { kind: 'error' }>, c: AttemptContext): CheckoutCommand {
  const withCountry = (card: CardSummary | null, country: string | null) => (card ? { ...card, country: country ?? card.country } : null);
  const { method, card, callbackRef } = c;
  switch (r.kind) {
    case 'succeeded': return { type: 'settle', method, ref: callbackRef, outcome: 'succeeded', card: withCountry(card, r.country), token: r.token };
    case 'failed': return { type: 'settle', method, ref: callbackRef, outcome: 'failed', code: r.code, card };
    case 'three_ds': return { type: 'await', method: method ?? 'card', awaiting: 'three_ds', ref: r.ref, card: withCountry(card, r.country), token: r.token, action: { type: 'three_ds_challenge', acs_url: r.acsUrl, creq: r.creq } };
    case 'qr': return { type: 'await', method: method ?? 'sbp', awaiting: 'sbp', ref: r.ref, action: { type: 'show_qr', qr_image_url: null, qr_raw_payload: r.payload, deeplink: r.deeplink } };
    case 'redirect': return { type: 'await', method: method ?? 'card', awaiting: 'wallet', ref: r.ref, action: { type: 'redirect', redirect_url: r.url } };
  }
}

const settlementOf = (id: string, r: ConnectorResult): AttemptSettlement => ({
  id, result: r,
  status: r.kind === 'succeeded' ? 'succeeded' : r.kind === 'failed' || r.kind === 'error' ? 'failed' : 'action_required',
});

/**
 * Writes a checkout change of `cur` (its payment move, if any, and the attempt it settles) in one
 * version-checked statement. Null on a version conflict, with nothing written.
 */
async function write(ctx: ActorContext, cur: PaymentWithCheckout, step: { checkout: CheckoutState; payment: PaymentCommand | null; saveToken: string | null }, settle: AttemptSettlement | null): Promise<CheckoutReply | null> {
  const { payment } = cur;
  const now = payment.testClockId ? await clockNow(ctx, payment.testClockId) : ctx.now();
  let next: Payment = { ...payment, updatedAt: now, version: payment.version + 1 };
  let events: string[] = [];
  if (step.payment) {
    // A direct payment with capture_method manual: the bank's yes is an authorization, taken by capture.
    const cmd: PaymentCommand = step.payment.type === 'succeed' && payment.session?.captureMethod === 'manual'
      ? { type: 'authorize', method: step.payment.method, card: step.payment.card, holdSeconds: ctx.authorizationWindowSeconds } : step.payment;
    const moved = transition(payment, cmd, now);
    if (!moved.ok) return failed(fail('checkout_closed'));
    next = moved.state;
    events = moved.events;
  } else if (payment.session && step.checkout.awaiting === 'three_ds') {
    // Spec: payment.requires_action "fires when a 3DS challenge URL is available" (the event carries
    // it as next_action). An SBP QR or a wallet page sends no event: the payer acts in their bank or
    // wallet app, and the outcome event follows (docs/webhooks.md).
    events = ['payment.requires_action'];
  }
  if (settle) next = { ...next, pendingAttempt: null };
  const deliveries = await ctx.payments.updates.submit({ next, prev: payment, events, checkout: step.checkout, settle });
  if (deliveries === null) return null;
  remember(ctx.payments.cache, next.id, next, ctx.now());
  if (deliveries > 0) ctx.onDeliveries?.();
  const customer = customerKeyOf(next);
  if (step.saveToken && customer && next.status === 'succeeded') {
    // After the commit: a card not saved costs the customer a later re-entry, never this payment's answer.
    await saveCard(ctx.db, next, { customerKey: customer, connector: ctx.connectors(next.livemode).name, token: step.saveToken })
      .catch((err: Error) => ctx.log.error({ err, paymentId: next.id }, 'the card could not be saved for recurrent charges; the payment stands'));
  }
  return { ok: true, payment: next, checkout: step.checkout, replayed: false };
}

/** Releases the attempt in flight without moving the payment (the call reached no bank, or was refused). */
async function release(ctx: ActorContext, cur: PaymentWithCheckout, settle: AttemptSettlement): Promise<boolean> {
  const next: Payment = { ...cur.payment, pendingAttempt: null, version: cur.payment.version + 1 };
  const ok = (await ctx.payments.updates.submit({ next, prev: cur.payment, events: [], settle })) !== null;
  if (ok) remember(ctx.payments.cache, next.id, next, ctx.now());
  return ok;
}

/**
 * Step 3: records the connector's answer to `attemptId` on the payment that names it. When the
 * payment moved on meanwhile (recovery recorded the same answer first), answers its current state.
 */
async function settle(ctx: ActorContext, cur: PaymentWithCheckout | null, attemptId: string, c: AttemptContext, r: ConnectorResult): Promise<CheckoutReply> {
  for (let i = 0; cur && i <= MAX_CONFLICT_RETRIES; i++) {
    if (cur.payment.pendingAttempt !== attemptId) {
      // Someone else recorded this attempt's outcome (recovery asked the bank, which gave the same answer).
      return { ok: true, payment: cur.payment, checkout: cur.checkout, replayed: false };
    }
    let done: CheckoutReply | null;
    if (r.kind === 'error') {
      done = (await release(ctx, cur, settlementOf(attemptId, r))) ? failed(fail(r.code)) : null;
    } else {
      const step = checkoutStep(cur.payment.status, cur.checkout, commandOf(r, c));
      if (!step.ok) {
        ctx.log.error({ paymentId: cur.payment.id, attemptId, result: r.kind, code: step.code }, 'connector answer does not fit the checkout; attempt released');
        done = (await release(ctx, cur, settlementOf(attemptId, r))) ? failed(fail(step.code)) : null;
      } else {
        done = await write(ctx, cur, step, settlementOf(attemptId, r));
      }
    }
    if (done) return done;
    cur = await loadCheckout(ctx.db, cur.payment.id);
  }
  return cur ? persisted() : failed(fail('payment_not_found', 'id'));
}

/** Plans an acquirer call for the loaded payment, or refuses. */
type Planner = (cur: PaymentWithCheckout) => Promise<(AttemptPlan & { context: AttemptContext & Record<string, unknown> }) | Failed>;

type Planned = AttemptPlan & { context: AttemptContext & Record<string, unknown> };

/**
 * Steps 1-3 on `cur`: `begin` records the attempt (step 1); `recorded` is the payment's version once
 * it has. 'conflict' when step 1 lost the version race, with nothing written or called.
 */
async function carryOut(ctx: ActorContext, cur: PaymentWithCheckout, p: Planned, begin: (v: number, start: AttemptStart) => Promise<boolean>, recorded: number): Promise<CheckoutReply | 'conflict'> {
  const run = await startAttempt(ctx, cur.payment, p, begin);
  if (run.kind === 'conflict') return 'conflict';
  if (run.kind === 'no_answer') return failed({ ...fail('outcome_unknown'), retryAfterSeconds: 2 });
  const started: PaymentWithCheckout = { ...cur, payment: { ...cur.payment, version: recorded, pendingAttempt: run.attemptId } };
  const done = await settle(ctx, started, run.attemptId, p.context, run.result);
  const referenced = settlementOf(run.attemptId, run.result).status !== 'failed';
  return done.ok ? { ...done, bankReference: referenced ? run.attemptId : null } : done;
}

/**
 * Steps 1-3 for one checkout command, reloading on a version conflict. Step 1 goes through the
 * shard's attempts group writer. `seen` (a state read just before by the front end) stands in for
 * the first read: a begin on it applies only if the row still has its version, and a refusal found
 * on it is decided again on the row as it is now.
 */
async function attempt(ctx: ActorContext, id: string, plan: Planner, extraRefusal?: (cur: PaymentWithCheckout) => Failed | null, seen?: PaymentWithCheckout): Promise<CheckoutReply> {
  let hint = seen && seen.payment.id === id ? seen : null;
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = hint ?? await loadCheckout(ctx.db, id);
    const no = refusal(cur) ?? extraRefusal?.(cur!) ?? null;
    if (no && hint) { hint = null; i--; continue; }
    hint = null;
    if (no) return no;
    const p = await plan(cur!);
    if ('ok' in p) return p;
    const begin = (v: number, start: AttemptStart) => ctx.payments.attempts.submit({ paymentId: id, expectedVersion: v, attempt: start });
    const done = await carryOut(ctx, cur!, p, begin, cur!.payment.version + 1);
    if (done !== 'conflict') return done;
  }
  return persisted();
}

/**
 * A new direct card payment (POST /v2/payments): its row and its first attempt are written by
 * `create` in one statement (the creates group writer), then the bank is called and the outcome
 * recorded as for any checkout pay. No load: the payment is the one just built. 'existing' when the
 * create found its Idempotency-Key taken (nothing written, nothing called).
 */
export async function payNewCard(ctx: ActorContext, payment: Payment, card: CheckedCard, summary: CardSummary,
  create: (payment: Payment, attempt: AttemptStart) => Promise<boolean>): Promise<CheckoutReply | 'existing'> {
  const p = plan(payment, 'authorize_card', { method: 'card', card: summary, callbackRef: null }, (c, r) => c.authorizeCard(r, card));
  const done = await carryOut(ctx, { payment, checkout: { ...OPEN } }, p, (_v, start) => create({ ...payment, pendingAttempt: start.id }, start), payment.version);
  return done === 'conflict' ? 'existing' : done;
}

const plan = (p: Payment, operation: string, context: AttemptContext, call: AttemptPlan['call']) =>
  ({ operation, amount: p.amount, currency: p.currency, context: { ...context }, call });

export function handleCheckoutPay(ctx: ActorContext, m: CommandOf<'checkout.pay'>): Promise<CheckoutReply> {
  return attempt(ctx, m.id, async (cur) => plan(cur.payment, 'authorize_card', { method: 'card', card: m.summary, callbackRef: null },
    (c, r) => c.authorizeCard(r, m.card)), undefined, m.seen);
}

export function handleCheckoutSubmit(ctx: ActorContext, m: CommandOf<'checkout.submit'>): Promise<CheckoutReply> {
  const a: SubmitAction = m.action;
  return attempt(ctx, m.id, async (cur) => {
    const p = cur.payment;
    const base = { method: a.method, card: null, callbackRef: null };
    switch (a.method) {
      case 'sbp': return plan(p, 'start_sbp', base, (c, r) => c.startSbp(r, a.memberId));
      case 'apple_pay': case 'google_pay': return plan(p, 'charge_wallet_token', base, (c, r) => c.chargeWalletToken(r, a.token));
      case 'recurrent': {
        const customer = customerKeyOf(p);
        const saved = customer ? await findSavedCard(ctx.db, a.savedId, p.merchantId, p.livemode, customer) : null;
        if (!saved || saved.connector !== ctx.connectors(p.livemode).name) return failed(fail('saved_payment_method_not_found', 'saved_payment_method_id'));
        return plan(p, 'charge_saved', { ...base, card: saved.card }, (c, r) => c.chargeSaved(r, saved.token));
      }
      default: return plan(p, 'start_wallet', base, (c, r) => c.startWallet(r, a.method, a.phone));
    }
  });
}

export function handleCheckoutCallback(ctx: ActorContext, m: CommandOf<'checkout.callback'>): Promise<CheckoutReply> {
  const challenge = m.answer === 'Y' || m.answer === 'N';
  const stale = (cur: PaymentWithCheckout): Failed | null => {
    const c = cur.checkout;
    const expected = challenge ? c.awaiting === 'three_ds' : c.awaiting === 'sbp' || c.awaiting === 'wallet';
    return !expected || c.ref !== m.ref ? failed(fail('checkout_action_stale')) : null;
  };
  return attempt(ctx, m.id, async (cur) => plan(cur.payment, challenge ? 'complete_challenge' : 'resolve_external',
    { method: cur.checkout.method, card: null, callbackRef: m.ref },
    async (c, r) => {
      const out = challenge ? await c.completeChallenge(r, m.ref, m.answer as 'Y' | 'N') : await c.resolveExternal(r, m.ref, m.answer as 'approve' | 'decline');
      // A bank page's decision settles the payment; anything else is not an answer to this step.
      return out.kind === 'succeeded' || out.kind === 'failed' || out.kind === 'error' ? out : { kind: 'failed', ref: m.ref, code: 'card_declined' };
    }), stale);
}

/** The test helper's forced outcome: no acquirer call, the payment simply settles or expires. */
export async function handleCheckoutComplete(ctx: ActorContext, m: CommandOf<'checkout.complete'>): Promise<CheckoutReply> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = await loadCheckout(ctx.db, m.id);
    const no = refusal(cur);
    if (no) return no;
    const method = cur!.checkout.method ?? cur!.payment.method ?? 'card';
    const cmd: CheckoutCommand = m.outcome === 'expired' ? { type: 'expire' }
      : m.outcome === 'succeeded' ? { type: 'settle', method, ref: null, outcome: 'succeeded' }
        : { type: 'settle', method, ref: null, outcome: 'failed', code: m.failureCode ?? 'card_declined' };
    const step = checkoutStep(cur!.payment.status, cur!.checkout, cmd);
    if (!step.ok) return failed(fail(step.code));
    const done = await write(ctx, cur!, step, null);
    if (done) return done;
  }
  return persisted();
}

/** The hosted page's cancel link (gateway sessions): no acquirer call; refused while an external payment may be under way. */
export async function handleCheckoutCancel(ctx: ActorContext, m: CommandOf<'checkout.cancel'>): Promise<CheckoutReply> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = await loadCheckout(ctx.db, m.id);
    const no = refusal(cur);
    if (no) return no;
    if (!cur!.payment.session) return failed(fail('checkout_session_not_found', 'id'));
    const step = checkoutStep(cur!.payment.status, cur!.checkout, { type: 'cancel' });
    if (!step.ok) return failed(fail(step.code));
    const done = await write(ctx, cur!, step, null);
    if (done) return done;
  }
  return persisted();
}

/**
 * Recovery of an attempt whose outcome was never recorded: asks the connector for the outcome of
 * that attempt id and records it, or releases the attempt when the connector never received it.
 */
export async function handleAttemptRecover(ctx: ActorContext, m: CommandOf<'attempt.recover'>): Promise<ReplyOf<'attempt.recover'>> {
  const a = await findAttempt(ctx.db, m.attemptId);
  if (!a || a.status !== 'started') return { ok: true, attemptId: m.attemptId, outcome: 'already_settled' };
  if (a.operation === REFUND_OPERATION) return recoverRefund(ctx, m.id, a);
  if (a.operation === PAYOUT_OPERATION) return recoverPayout(ctx, m.id, a);
  if (a.operation === CAPTURE_OPERATION || a.operation === VOID_OPERATION) return recoverHoldAttempt(ctx, m.id, a);
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = await loadCheckout(ctx.db, m.id);
    if (!cur || cur.payment.pendingAttempt !== a.id) {
      await abandonAttempt(ctx.db, a.id, 'its payment no longer names it');
      return { ok: true, attemptId: a.id, outcome: 'abandoned' };
    }
    const r = await ctx.connectors(cur.payment.livemode).lookup(a.id);
    if (r.kind === 'unknown_attempt') {
      if (await release(ctx, cur, { id: a.id, status: 'abandoned', result: r })) {
        ctx.log.warn({ paymentId: m.id, attemptId: a.id }, 'recovered attempt never reached the connector; released, nothing was charged');
        return { ok: true, attemptId: a.id, outcome: 'abandoned' };
      }
      continue;
    }
    const done = await settle(ctx, cur, a.id, a.context as unknown as AttemptContext, r as ConnectorResult);
    ctx.log.warn({ paymentId: m.id, attemptId: a.id, result: r.kind, ok: done.ok }, 'recovered attempt: outcome asked of the connector and recorded');
    // A refusal here (the bank refused the key, the answer did not fit) was recorded with the release.
    if (done.ok || done.failure.code !== 'service_unavailable') return { ok: true, attemptId: a.id, outcome: 'settled' };
    return done;
  }
  return persisted();
}

export type { CheckoutMessage, CheckoutResult };
