// The payment actor: the single owner of one payment's state, for its creation and its plain state
// changes (expiry, forced outcomes). Its checkout and every acquirer call are in checkout-actor.ts.
// Handlers are plain async functions over the actor context, so tests can run them without threads.
import { fail } from '../src/errors.js';
import { toMerchantPayment } from '../src/api/merchant-payment-view.js';
import { createPayment, transition, type Payment } from '../src/domain/payment.js';
import { failpoint } from '../src/failpoints.js';
import { MAX_CONFLICT_RETRIES, loadPayment, markCommitted, remember, type ActorContext } from './context.js';
import type { CommandOf, ReplyOf } from './protocol.js';
import { payNewCard } from './checkout-actor.js';
import { clockNow } from './test-clocks/clock-now.js';

export async function handleCreate(ctx: ActorContext, m: CommandOf<'payment.create'>): Promise<ReplyOf<'payment.create'>> {
  const payment = createPayment(m.input, m.ctx, m.ctx.testClockId ? await clockNow(ctx, m.ctx.testClockId) : ctx.now());
  const out = await ctx.payments.creates.submit({ payment });
  markCommitted(ctx); // the payment exists now (made here, or found under the key)
  failpoint('after-create-commit');
  if (out.kind === 'existing' && out.payment.requestHash !== m.ctx.requestHash) {
    return { ok: false, failure: fail('idempotency_conflict', 'Idempotency-Key') };
  }
  // Cached only when the create ran in the payment's own mailbox; a create routed by its key may run on another shard.
  if (!m.mailbox) remember(ctx.payments.cache, out.payment.id, out.payment, ctx.now());
  const replayed = out.kind === 'existing';
  if (!m.answer) return { ok: true, payment: out.payment, replayed };
  // The merchant API answer, rendered here; a new payment's goes to the replay cache from here too.
  const p = out.payment;
  const answer = { status: 201, body: JSON.stringify(toMerchantPayment(p, ctx.publicBaseUrl, p.requestId)), requestId: p.requestId };
  const { scope, hash } = m.answer;
  const cached = !replayed && scope !== null && hash !== null && !!ctx.replays;
  if (cached) ctx.replays!.remember(scope!, hash!, answer);
  return { ok: true, replayed, answer, cached };
}

/**
 * A direct card payment: the row and its first attempt commit in one statement (grouped with other
 * creates), then the bank is called and the outcome recorded (checkout-actor.ts payNewCard). It runs
 * in its create's mailbox (the key's scope when it has one), so same-key requests still run one
 * after another; no other command can name the new id before this one answers, except recovery,
 * whose writes are version-checked like these. States written here are not kept in this shard's
 * cache when the mailbox is the key's: the payment's own actor may live on another shard.
 */
export async function handleCreateDirect(ctx: ActorContext, m: CommandOf<'payment.create_direct'>): Promise<ReplyOf<'payment.create_direct'>> {
  const payment = createPayment(m.input, m.ctx, m.ctx.testClockId ? await clockNow(ctx, m.ctx.testClockId) : ctx.now());
  let existing: Payment | null = null;
  const pay = await payNewCard(ctx, payment, m.card, m.summary, async (row, attempt) => {
    const out = await ctx.payments.creates.submit({ payment: row, attempt });
    markCommitted(ctx); // the payment and its attempt exist now (or the key was found holding a payment)
    failpoint('after-create-commit');
    if (out.kind === 'existing') existing = out.payment;
    return out.kind === 'created';
  });
  if (m.mailbox) ctx.payments.cache.delete(payment.id);
  if (pay === 'existing') {
    const found = existing!;
    if (found.requestHash !== m.ctx.requestHash) return { ok: false, failure: fail('idempotency_conflict', 'Idempotency-Key') };
    return { ok: true, payment: found, replayed: true, pay: null };
  }
  return { ok: true, payment: pay.ok ? pay.payment : payment, replayed: false, pay };
}

export async function handleApply(ctx: ActorContext, m: CommandOf<'payment.apply'>): Promise<ReplyOf<'payment.apply'>> {
  const { cache, updates } = ctx.payments;
  let fromCache = cache.has(m.id);
  let state = cache.get(m.id)?.state ?? (await loadPayment(ctx, m.id));
  for (let attempt = 0; state && attempt <= MAX_CONFLICT_RETRIES; attempt++) {
    const result = transition(state, m.command, state.testClockId ? await clockNow(ctx, state.testClockId) : ctx.now());
    // While a connector attempt is in flight its outcome decides first (expiry waits for it).
    const refused = !result.ok ? fail(result.code, null) : state.pendingAttempt ? { ...fail('payment_attempt_in_progress'), retryAfterSeconds: 1 } : null;
    if (refused || !result.ok) {
      // A cached state may be older than a write made by another process: confirm before refusing.
      if (fromCache) { fromCache = false; cache.delete(m.id); state = await loadPayment(ctx, m.id); continue; }
      return { ok: false, failure: refused! };
    }
    const deliveries = await updates.submit({ next: result.state, prev: state, events: result.events });
    if (deliveries !== null) {
      remember(cache, m.id, result.state, ctx.now());
      if (deliveries > 0) ctx.onDeliveries?.();
      return { ok: true, payment: result.state, replayed: false };
    }
    // Another process wrote this payment since we loaded it: reload and decide again.
    cache.delete(m.id);
    fromCache = false;
    state = await loadPayment(ctx, m.id);
  }
  if (!state) return { ok: false, failure: fail('payment_not_found', 'id') };
  return { ok: false, failure: fail('service_unavailable', null, 'version conflict persisted') };
}
