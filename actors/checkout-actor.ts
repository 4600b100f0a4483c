// The checkout side of the payment actor: the customer's card payment, the other methods, the
// answers of the bank's pages, and the test helper's forced outcomes. Each handler loads the
// payment with its checkout, asks the connector (the core performs every acquirer call), runs the
// pure checkout step and the payment transition, and writes all of it in one version-checked
// statement. Handlers are plain functions over the actor context, testable without threads.
import type { CardSummary, FailureCode, Payment } from '../src/domain/payment.js';
import { transition } from '../src/domain/payment.js';
import { checkoutStep, type CheckoutCommand, type CheckoutState } from '../src/domain/checkout.js';
import type { CheckedCard } from '../src/domain/card.js';
import type { RedirectWallet } from '../src/domain/methods.js';
import { connectorFor } from '../src/connectors/index.js';
import type { ConnectorRequest, ConnectorResult } from '../src/connectors/types.js';
import { fail, type ApiFailure } from '../src/errors.js';
import { customerKeyOf, findSavedCard, loadCheckout, recordSettledCheckout, saveCard, saveCheckout, type PaymentWithCheckout } from '../src/store/checkout-repo.js';
import type { ActorContext } from './payment-actor.js';
import type { Reply } from './protocol.js';

export type SubmitAction =
  | { method: 'sbp'; memberId: string | null }
  | { method: RedirectWallet; phone: string | null }
  | { method: 'apple_pay' | 'google_pay'; token: string }
  | { method: 'recurrent'; savedId: string };

export type CheckoutMessage =
  | { kind: 'checkout.pay'; id: string; card: CheckedCard; summary: CardSummary }
  | { kind: 'checkout.submit'; id: string; action: SubmitAction }
  | { kind: 'checkout.callback'; id: string; ref: string; answer: 'Y' | 'N' | 'approve' | 'decline' }
  | { kind: 'checkout.complete'; id: string; outcome: 'succeeded' | 'failed' | 'expired'; failureCode: FailureCode | null };

const MAX_CONFLICT_RETRIES = 5;
const failed = (f: ApiFailure): Reply => ({ ok: false, failure: f });

const request = (ctx: ActorContext, p: Payment): ConnectorRequest =>
  ({ paymentId: p.id, amount: p.amount, currency: p.currency, livemode: p.livemode, baseUrl: ctx.publicBaseUrl });

/** Applies a checkout command to the current row, retrying on a version conflict. */
async function apply(ctx: ActorContext, loaded: PaymentWithCheckout, cmd: CheckoutCommand): Promise<Reply> {
  let cur: PaymentWithCheckout | null = loaded;
  for (let attempt = 0; cur && attempt <= MAX_CONFLICT_RETRIES; attempt++) {
    const { payment, checkout } = cur;
    const step = checkoutStep(payment.status, checkout, cmd);
    if (!step.ok) return failed(fail(step.code));
    const now = ctx.now();
    let next: Payment = { ...payment, updatedAt: now, version: payment.version + 1 };
    let events: string[] = [];
    if (step.payment) {
      const moved = transition(payment, step.payment, now);
      if (!moved.ok) return failed(fail('checkout_closed'));
      next = moved.state;
      events = moved.events;
    }
    // A move of the payment goes through the payment's own update (outbox events and webhook
    // deliveries in one statement); the checkout column follows, keyed by the version it produced.
    const deliveries = step.payment
      ? await ctx.updates.submit({ next, expectedVersion: payment.version, events })
      : (await saveCheckout(ctx.db, next, payment.version, step.checkout)) ? 0 : null;
    if (deliveries !== null) {
      ctx.cache.delete(next.id);
      ctx.cache.set(next.id, { state: next, touched: now });
      if (step.payment) {
        await recordSettledCheckout(ctx.db, next.id, next.version, step.checkout);
        if (deliveries > 0) ctx.onDeliveries?.();
        const customer = customerKeyOf(next);
        if (step.saveToken && customer && next.status === 'succeeded') {
          await saveCard(ctx.db, next, { customerKey: customer, connector: connectorFor(next.livemode).name, token: step.saveToken });
        }
      }
      return { ok: true, payment: next, replayed: false, checkout: step.checkout };
    }
    ctx.cache.delete(payment.id);
    cur = await loadCheckout(ctx.db, payment.id);
  }
  if (!cur) return failed(fail('payment_not_found', 'id'));
  return failed(fail('service_unavailable', null, 'version conflict persisted'));
}

/** Loads the payment and refuses at once (before any connector call) when its checkout is closed. */
async function openCheckout(ctx: ActorContext, id: string): Promise<PaymentWithCheckout | Reply> {
  const loaded = await loadCheckout(ctx.db, id);
  if (!loaded) return failed(fail('payment_not_found', 'id'));
  if (loaded.payment.status !== 'pending') return failed(fail('checkout_closed'));
  return loaded;
}

const isReply = (x: PaymentWithCheckout | Reply): x is Reply => 'ok' in x;

/** Turns a connector's answer into the checkout command it means. */
function commandOf(r: Exclude<ConnectorResult, { kind: 'error' }>, method: CheckoutState['method'], card: CardSummary | null, callbackRef: string | null): CheckoutCommand {
  const withCountry = (c: CardSummary | null, country: string | null) => (c ? { ...c, country: country ?? c.country } : null);
  switch (r.kind) {
    case 'succeeded': return { type: 'settle', method, ref: callbackRef, outcome: 'succeeded', card: withCountry(card, r.country), token: r.token };
    case 'failed': return { type: 'settle', method, ref: callbackRef, outcome: 'failed', code: r.code, card };
    case 'three_ds': return { type: 'await', method: method ?? 'card', awaiting: 'three_ds', ref: r.ref, card: withCountry(card, r.country), token: r.token, action: { type: 'three_ds_challenge', acs_url: r.acsUrl, creq: r.creq } };
    case 'qr': return { type: 'await', method: method ?? 'sbp', awaiting: 'sbp', ref: r.ref, action: { type: 'show_qr', qr_image_url: null, qr_raw_payload: r.payload, deeplink: r.deeplink } };
    case 'redirect': return { type: 'await', method: method ?? 'card', awaiting: 'wallet', ref: r.ref, action: { type: 'redirect', redirect_url: r.url } };
  }
}

export async function handleCheckoutPay(ctx: ActorContext, id: string, card: CheckedCard, summary: CardSummary): Promise<Reply> {
  const loaded = await openCheckout(ctx, id);
  if (isReply(loaded)) return loaded;
  const r = await connectorFor(loaded.payment.livemode).authorizeCard(request(ctx, loaded.payment), card);
  if (r.kind === 'error') return failed(fail(r.code));
  return apply(ctx, loaded, commandOf(r, 'card', summary, null));
}

export async function handleCheckoutSubmit(ctx: ActorContext, id: string, action: SubmitAction): Promise<Reply> {
  const loaded = await openCheckout(ctx, id);
  if (isReply(loaded)) return loaded;
  const p = loaded.payment;
  const connector = connectorFor(p.livemode);
  const req = request(ctx, p);
  let r: ConnectorResult;
  let card: CardSummary | null = null;
  switch (action.method) {
    case 'sbp': r = await connector.startSbp(req, action.memberId); break;
    case 'apple_pay': case 'google_pay': r = await connector.chargeWalletToken(req, action.token); break;
    case 'recurrent': {
      const customer = customerKeyOf(p);
      const saved = customer ? await findSavedCard(ctx.db, action.savedId, p.merchantId, p.livemode, customer) : null;
      if (!saved || saved.connector !== connector.name) return failed(fail('saved_payment_method_not_found', 'saved_payment_method_id'));
      card = saved.card;
      r = await connector.chargeSaved(req, saved.token);
      break;
    }
    default: r = await connector.startWallet(req, action.method, action.phone);
  }
  if (r.kind === 'error') return failed(fail(r.code));
  return apply(ctx, loaded, commandOf(r, action.method, card, null));
}

export async function handleCheckoutCallback(ctx: ActorContext, id: string, ref: string, answer: 'Y' | 'N' | 'approve' | 'decline'): Promise<Reply> {
  const loaded = await openCheckout(ctx, id);
  if (isReply(loaded)) return loaded;
  const c = loaded.checkout;
  const challenge = answer === 'Y' || answer === 'N';
  const expected = challenge ? c.awaiting === 'three_ds' : c.awaiting === 'sbp' || c.awaiting === 'wallet';
  if (!expected || c.ref !== ref) return failed(fail('checkout_action_stale'));
  const connector = connectorFor(loaded.payment.livemode);
  const req = request(ctx, loaded.payment);
  const r = challenge ? await connector.completeChallenge(req, ref, answer) : await connector.resolveExternal(req, ref, answer);
  if (r.kind === 'error') return failed(fail(r.code));
  if (r.kind !== 'succeeded' && r.kind !== 'failed') return failed(fail('checkout_action_stale'));
  return apply(ctx, loaded, commandOf(r, c.method, null, ref));
}

export async function handleCheckoutComplete(ctx: ActorContext, id: string, outcome: 'succeeded' | 'failed' | 'expired', code: FailureCode | null): Promise<Reply> {
  const loaded = await openCheckout(ctx, id);
  if (isReply(loaded)) return loaded;
  const method = loaded.checkout.method ?? loaded.payment.method ?? 'card';
  const cmd: CheckoutCommand = outcome === 'expired' ? { type: 'expire' }
    : outcome === 'succeeded' ? { type: 'settle', method, ref: null, outcome: 'succeeded' }
      : { type: 'settle', method, ref: null, outcome: 'failed', code: code ?? 'card_declined' };
  return apply(ctx, loaded, cmd);
}
