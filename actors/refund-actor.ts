// Refunds, run by the payment's actor (the command is addressed by the payment's id): the refund
// row, the payment's move and the connector attempt share the payment's mailbox and version check,
// so one refund at a time is in flight per payment, across every process. A refund follows the
// attempt protocol (attempt-protocol.ts): the attempt and the pending refund are recorded on the
// payment first, the bank is called with the attempt id as its idempotency key, and its answer is
// recorded with the payment's move, the outbox events and the deliveries in one statement.
import { setTimeout as sleep } from 'node:timers/promises';
import { prefixedId } from '../src/domain/ids.js';
import { currencyExponent } from '../src/domain/money.js';
import { transition, type Payment } from '../src/domain/payment.js';
import { planRefund, REFUND_OPERATION, remainingOf, type Refund } from '../src/domain/refund.js';
import type { RefundResult } from '../src/connectors/types.js';
import { fail, type ApiFailure } from '../src/errors.js';
import type { Attempt } from '../src/store/attempts-repo.js';
import { abandonAttempt } from '../src/store/attempts-repo.js';
import { findPayment } from '../src/store/payments-repo.js';
import { inScope } from '../src/domain/payment-scope.js';
import { dropRefund, findRefundByAttempt, refundKeyTaken } from '../src/store/refunds-repo.js';
import { startAttempt } from './attempt-protocol.js';
import { MAX_CONFLICT_RETRIES, markCommitted, remember, type ActorContext } from './context.js';
import type { CommandOf, Failed, ReplyOf, RefundRequest } from './protocol.js';

type RefundReply = ReplyOf<'payment.refund'>;

/**
 * How long a refund waits for another refund of the same payment that is in flight in another
 * process (this process's mailbox already serialises its own), before answering 409
 * refund_in_progress. Well under the actor command deadline.
 */
export const FOREIGN_ATTEMPT_WAIT_MS = 3_000;

const failed = (f: ApiFailure): Failed => ({ ok: false, failure: f });
const persisted = (): Failed => failed(fail('service_unavailable', null, 'version conflict persisted'));

/** An amount over what is left: the refusal names the remaining amount (the gateway shows it as fields too). */
const overRemaining = (p: Payment): ApiFailure => {
  const remaining = remainingOf(p);
  // Minor units, as every amount of the API, with the sum a person reads beside it.
  const major = (remaining / 10 ** currencyExponent(p.currency)).toFixed(currencyExponent(p.currency));
  return { ...fail('refund_amount_invalid', 'amount', `${remaining} remaining, in minor units (${major} ${p.currency})`), extra: { remaining, currency: p.currency } };
};

/** A payment that cannot be refunded now: the refusal names its status and what would allow it. */
const notRefundable = (p: Payment): ApiFailure => {
  const why = p.status === 'refunded' ? 'the payment is refunded: nothing is left to refund'
    : `the payment is ${p.status}: only a succeeded or partially_refunded payment can be refunded`;
  return fail('payment_not_payable', null, why);
};

/** The answer for a refund whose bank answer is recorded. */
async function answerFor(ctx: ActorContext, r: Refund, replayed: boolean): Promise<RefundReply> {
  if (r.status === 'failed') return failed(fail('refund_failed'));
  const payment = await findPayment(ctx.db, r.paymentId);
  if (!payment) return failed(fail('payment_not_found', 'id'));
  return { ok: true, refund: r, payment, replayed };
}

/**
 * Step 3: records the bank's answer `res` to the refund `r` on the payment `cur` (which names r's
 * attempt). On a version conflict the payment is reloaded; if it no longer names the attempt, the
 * answer was recorded by someone else (recovery) and the refund is answered as it stands.
 */
async function settle(ctx: ActorContext, cur: Payment | null, r: Refund, res: RefundResult): Promise<RefundReply> {
  for (let i = 0; cur && i <= MAX_CONFLICT_RETRIES; i++) {
    if (cur.pendingAttempt !== r.attemptId) {
      const now = await findRefundByAttempt(ctx.db, r.attemptId);
      return now && now.status !== 'pending' ? answerFor(ctx, now, false) : failed({ ...fail('outcome_unknown'), retryAfterSeconds: 2 });
    }
    if (res.kind === 'error') {
      // The connector refused before any bank saw it: no refund happened, the key is free again.
      if (await dropRefund(ctx.db, cur.id, cur.version, r.attemptId, 'failed', res)) {
        remember(ctx.payments.cache, cur.id, { ...cur, version: cur.version + 1, pendingAttempt: null }, ctx.now());
        return failed(fail(res.code));
      }
    } else {
      const now = ctx.now();
      let next: Payment = { ...cur, pendingAttempt: null, updatedAt: now, version: cur.version + 1 };
      let events: string[] = [];
      if (res.kind === 'succeeded') {
        const moved = transition(cur, { type: 'refund', amount: r.amount }, now);
        if (!moved.ok) {
          // Cannot happen while the attempt is in flight (nothing else moves the payment); never hide it.
          ctx.log.error({ paymentId: cur.id, refundId: r.id, code: moved.code }, 'the bank returned money the payment cannot account for');
          return failed(fail('internal_error'));
        }
        next = { ...moved.state, pendingAttempt: null };
        events = moved.events;
      }
      const status = res.kind === 'succeeded' ? 'succeeded' : 'failed';
      const deliveries = await ctx.payments.refundSettles.submit({
        next, prev: cur, events,
        refund: { id: r.id, status, failureCode: res.kind === 'failed' ? res.code : null, connectorRef: res.ref },
        attempt: { id: r.attemptId, status, result: res },
      });
      if (deliveries !== null) {
        remember(ctx.payments.cache, next.id, next, now);
        if (deliveries > 0) ctx.onDeliveries?.();
        if (status === 'failed') return failed(fail('refund_failed'));
        return { ok: true, refund: { ...r, status }, payment: next, replayed: false };
      }
    }
    cur = await findPayment(ctx.db, cur.id);
  }
  return cur ? persisted() : failed(fail('payment_not_found', 'id'));
}

function newRefund(p: Payment, q: RefundRequest, amount: number, attemptId: string, now: number): Refund {
  return {
    id: prefixedId('ref', 24), paymentId: p.id, merchantId: p.merchantId, livemode: p.livemode, amount, currency: p.currency,
    status: 'pending', reason: q.reason, failureCode: null, attemptId, createdAt: now, requestId: q.requestId,
    idempotencyKey: q.idempotencyKey, requestHash: q.requestHash,
  };
}

export async function handleRefund(ctx: ActorContext, m: CommandOf<'payment.refund'>): Promise<RefundReply> {
  const q = m.request;
  const waitUntil = ctx.now() + FOREIGN_ATTEMPT_WAIT_MS;
  let conflicts = 0;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    // The payment, the key's refund, the connector's terms and the charge's reference: one read,
    // one snapshot, grouped with the worker's other such reads (store/attempt-reads.ts).
    const seen = await ctx.payments.reads.read({
      paymentId: m.id, chargeRef: true, refundTermsOf: ctx.connectors(q.livemode).name,
      refundKey: q.idempotencyKey ? { merchantId: q.merchantId, livemode: q.livemode, key: q.idempotencyKey } : undefined,
    });
    // A payment outside the request's scope is not found, before anything is recorded.
    if (!seen || !inScope(seen.payment, q)) return failed(fail('payment_not_found', 'id'));
    const p = seen.payment;
    // The key before any rule: a refund already made with it is the answer (Postgres is the
    // arbiter). Read in the payment's snapshot, so that a refund whose effect the payment already
    // shows (committed by another process) is surely found here: its row commits with it.
    const prior = seen.priorRefund;
    if (prior && (prior.requestHash !== q.requestHash || prior.paymentId !== m.id)) return failed(fail('idempotency_conflict', 'Idempotency-Key'));
    if (prior) markCommitted(ctx); // the key holds a refund: no later failure may say "nothing happened"
    if (prior && prior.status !== 'pending') return answerFor(ctx, prior, true);
    const plan = prior ? null : planRefund(p, q.amount);
    if (plan && !plan.ok) return failed(plan.code === 'refund_amount_invalid' ? overRemaining(p) : plan.code === 'amount_invalid' ? fail('amount_invalid', 'amount') : notRefundable(p));
    if (plan && !p.pendingAttempt) {
      const chargeRef = seen.chargeRef;
      if (!seen.refundSupported) return failed(fail('refund_not_supported'));
      let refund: Refund | null = null;
      let keyTaken = false;
      const run = await startAttempt<RefundResult>(ctx, p, {
        operation: REFUND_OPERATION, amount: plan.amount, currency: p.currency, context: { chargeRef },
        call: (c, request) => c.refund(request, chargeRef),
      }, async (version, start) => {
        refund = newRefund(p, q, plan.amount, start.id, ctx.now());
        start.context = { ...start.context, refundId: refund.id };
        // Grouped with the shard's other refund starts (one statement, one commit for many).
        try {
          return await ctx.payments.refunds.submit({ expectedVersion: version, attempt: start, refund });
        } catch (err) {
          if (!refundKeyTaken(err)) throw err;
          keyTaken = true;
          return false;
        }
      });
      if (run.kind === 'no_answer') return failed({ ...fail('outcome_unknown'), retryAfterSeconds: 2 });
      if (run.kind === 'answered') {
        const started: Payment = { ...p, version: p.version + 1, pendingAttempt: run.attemptId };
        return settle(ctx, started, refund!, run.result);
      }
      // Lost the version race (or the key): decide again from what is now committed.
      if (!keyTaken && ++conflicts > MAX_CONFLICT_RETRIES) return persisted();
      continue;
    }
    // Another refund of this payment (or this very key's) is in flight in another process, or awaits
    // recovery: wait for its outcome a little, then let the client retry.
    if (ctx.now() + pause > waitUntil) return failed({ ...fail('refund_in_progress'), retryAfterSeconds: 1 });
    await sleep(pause);
  }
}

/**
 * Recovery of a refund attempt whose outcome was never recorded: asks the bank for that attempt's
 * outcome and records it (exactly one refund row, the one recorded with the attempt), or drops the
 * pending refund when the bank never received it.
 */
export async function recoverRefund(ctx: ActorContext, paymentId: string, a: Attempt): Promise<ReplyOf<'attempt.recover'>> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = await findPayment(ctx.db, paymentId);
    const refund = await findRefundByAttempt(ctx.db, a.id);
    if (!cur || cur.pendingAttempt !== a.id || !refund) {
      ctx.log.error({ paymentId, attemptId: a.id, refundId: refund?.id }, 'refund attempt not named by its payment; closed without asking the bank');
      await abandonAttempt(ctx.db, a.id, 'its payment no longer names it');
      return { ok: true, attemptId: a.id, outcome: 'abandoned' };
    }
    const r = await ctx.connectors(cur.livemode).lookup(a.id);
    if (r.kind === 'unknown_attempt') {
      if (await dropRefund(ctx.db, cur.id, cur.version, a.id, 'abandoned', r)) {
        ctx.log.warn({ paymentId, attemptId: a.id, refundId: refund.id }, 'recovered refund never reached the bank; dropped, nothing was returned');
        return { ok: true, attemptId: a.id, outcome: 'abandoned' };
      }
      continue;
    }
    if (r.kind !== 'succeeded' && r.kind !== 'failed' && r.kind !== 'error') {
      ctx.log.error({ paymentId, attemptId: a.id, result: r.kind }, 'the bank answered a refund attempt with a payment result; left for an operator');
      return failed(fail('internal_error'));
    }
    const done = await settle(ctx, cur, refund, r as RefundResult);
    ctx.log.warn({ paymentId, attemptId: a.id, refundId: refund.id, result: r.kind, ok: done.ok }, 'recovered refund: outcome asked of the bank and recorded');
    if (done.ok || done.failure.code !== 'service_unavailable') return { ok: true, attemptId: a.id, outcome: 'settled' };
    return done;
  }
  return persisted();
}
