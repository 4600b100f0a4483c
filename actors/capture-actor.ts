// Capture and void of an authorization (capture_method manual), run by the payment's actor. Both move
// money at the bank, so both follow the attempt protocol (attempt-protocol.ts): the attempt (capture
// or void, its amount) is recorded on the payment under its version check, the bank is called with
// the attempt id as its idempotency key, and its answer is recorded with the payment's move, the
// outbox event and the deliveries in one version-checked statement. Across processes the version
// check picks one of a racing capture and cancel; the other waits for that outcome and is refused by
// the state machine. A stuck attempt is settled by recovery asking the bank (recoverHoldAttempt).
import { setTimeout as sleep } from 'node:timers/promises';
import { CAPTURE_OPERATION, transition, VOID_OPERATION, type Payment, type TransitionErrorCode } from '../src/domain/payment.js';
import type { CaptureResult, UnknownAttempt } from '../src/connectors/types.js';
import { fail, type ApiFailure } from '../src/errors.js';
import { abandonAttempt, attemptKeyTaken, type Attempt, type AttemptKey } from '../src/store/attempts-repo.js';
import { findPayment, type AttemptSettlement } from '../src/store/payments-repo.js';
import { inScope, type PaymentScope } from '../src/domain/payment-scope.js';
import { startAttempt } from './attempt-protocol.js';
import { MAX_CONFLICT_RETRIES, markCommitted, remember, type ActorContext } from './context.js';
import type { CommandOf, Failed, ReplyOf } from './protocol.js';
import { clockNow } from './test-clocks/clock-now.js';

type HoldReply = ReplyOf<'payment.capture'>;
/** What the payment does once the bank has taken (or released) the hold. */
type HoldCommand = { type: 'capture'; amount?: number } | { type: 'void'; expired?: boolean };

/**
 * How long a capture or cancel waits for another attempt of the same payment in flight in another
 * process (this process's mailbox already serialises its own), before answering 409
 * payment_attempt_in_progress. Well under the actor command deadline.
 */
export const HOLD_WAIT_MS = 3_000;

const failed = (f: ApiFailure): Failed => ({ ok: false, failure: f });
const persisted = (): Failed => failed(fail('service_unavailable', null, 'version conflict persisted'));
/** The state machine's refusal; an amount over the authorization names the most that can be captured. */
const refusal = (code: TransitionErrorCode, p: Payment): Failed =>
  failed(code === 'capture_amount_invalid' ? fail(code, 'amount', `at most ${p.amount}`) : fail(code));

const settlementOf = (id: string, r: CaptureResult | UnknownAttempt): AttemptSettlement => ({
  id, result: r, status: r.kind === 'succeeded' ? 'succeeded' : r.kind === 'unknown_attempt' ? 'abandoned' : 'failed',
});

/** The reply for a bank answer that did not move the payment. */
function refused(cmd: HoldCommand, r: Exclude<CaptureResult, { kind: 'succeeded' }> | UnknownAttempt): Failed {
  if (r.kind === 'failed') return failed(fail(cmd.type === 'capture' ? 'capture_failed' : 'cancel_failed'));
  if (r.kind === 'unknown_attempt') return failed(fail('payment_attempt_interrupted'));
  return failed(fail(r.code));
}

/**
 * Step 3: records the bank's answer `r` to the attempt `attemptId` on the payment `cur` (which names
 * it): the capture or void when the bank did it, else the attempt released and the authorization as
 * it was. On a version conflict the payment is reloaded; if it no longer names the attempt, the
 * answer was recorded by someone else (recovery, with the bank's same answer) and is answered so.
 */
async function settle(ctx: ActorContext, cur: Payment | null, attemptId: string, cmd: HoldCommand, r: CaptureResult | UnknownAttempt, requestId: string | null = null): Promise<HoldReply> {
  for (let i = 0; cur && i <= MAX_CONFLICT_RETRIES; i++) {
    if (cur.pendingAttempt !== attemptId) return r.kind === 'succeeded' ? { ok: true, payment: cur, replayed: false, requestId } : refused(cmd, r);
    const now = cur.testClockId ? await clockNow(ctx, cur.testClockId) : ctx.now();
    let next: Payment = { ...cur, pendingAttempt: null, version: cur.version + 1 };
    let events: string[] = [];
    if (r.kind === 'succeeded') {
      const moved = transition(cur, cmd, now);
      if (!moved.ok) {
        // Cannot happen while the attempt is in flight (nothing else moves the payment); never hide it.
        ctx.log.error({ paymentId: cur.id, attemptId, code: moved.code }, 'the bank took a hold the payment cannot account for');
        return failed(fail('internal_error'));
      }
      next = { ...moved.state, pendingAttempt: null };
      events = moved.events;
    }
    const deliveries = await ctx.payments.updates.submit({ next, prev: cur, events, settle: settlementOf(attemptId, r) });
    if (deliveries !== null) {
      remember(ctx.payments.cache, next.id, next, ctx.now());
      if (deliveries > 0) ctx.onDeliveries?.();
      return r.kind === 'succeeded' ? { ok: true, payment: next, replayed: false, requestId } : refused(cmd, r);
    }
    cur = await findPayment(ctx.db, cur.id);
  }
  return cur ? persisted() : failed(fail('payment_not_found', 'id'));
}

/** The answer of a key whose attempt has its outcome: the change it made (the payment as it stands), or the bank's refusal. */
function answerOfKey(p: Payment, cmd: HoldCommand, a: Attempt): HoldReply {
  if (a.status === 'succeeded') return { ok: true, payment: p, replayed: true, requestId: a.requestId ?? null };
  const r = a.result as Exclude<CaptureResult, { kind: 'succeeded' }> | UnknownAttempt | null;
  return r && typeof r === 'object' && 'kind' in r ? refused(cmd, r) : failed(fail(cmd.type === 'capture' ? 'capture_failed' : 'cancel_failed'));
}

/**
 * Steps 1-3 for a capture or a void, waiting a little for an attempt of this payment in flight
 * elsewhere. A payment outside `scope` (when given) is not found, before anything is recorded.
 */
async function run(ctx: ActorContext, id: string, cmd: HoldCommand, key: AttemptKey | undefined, scope: PaymentScope | undefined): Promise<HoldReply> {
  const waitUntil = ctx.now() + HOLD_WAIT_MS;
  let conflicts = 0;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    // The payment, the key's attempt and the authorization's reference (and for the gateway what
    // its view adds): one read, one snapshot, grouped with the worker's other such reads
    // (store/attempt-reads.ts).
    const seen = await ctx.payments.reads.read({ paymentId: id, chargeRef: true, attemptScope: key?.scope, gatewayView: scope?.gateway !== undefined });
    if (!seen || (scope && !inScope(seen.payment, scope))) return failed(fail('payment_not_found', 'id'));
    const p = seen.payment;
    const viewed = (r: HoldReply): HoldReply => (r.ok && seen.view ? { ...r, view: seen.view } : r);
    // The key before any rule: an attempt already started with it is the answer. Its outcome and the
    // payment's move it made commit in one statement, so the payment of the same snapshot shows that
    // change (the simulator's seed 3 once saw a cancel replayed as authorized from two reads).
    const prior = seen.priorAttempt;
    if (prior) {
      if (prior.requestHash !== key!.hash || prior.aggregateId !== id) return failed(fail('idempotency_conflict', 'Idempotency-Key'));
      markCommitted(ctx); // the key holds an attempt: no later failure may say "nothing happened"
      if (prior.status !== 'started') return viewed(answerOfKey(p, cmd, prior));
      // The key's first request is still running (here or in another process), or awaits recovery.
      if (ctx.now() + pause > waitUntil) return failed({ ...fail('idempotency_key_in_use'), retryAfterSeconds: 1 });
      await sleep(pause);
      continue;
    }
    // The pure machine decides next: the wrong state or amount is refused with nothing recorded.
    const planned = transition(p, cmd, ctx.now());
    if (!planned.ok) return refusal(planned.code, p);
    if (!p.pendingAttempt) {
      const amount = cmd.type === 'capture' ? cmd.amount ?? p.amount : p.amount;
      const authRef = seen.chargeRef;
      let keyTaken = false;
      const started = await startAttempt<CaptureResult>(ctx, p, {
        operation: cmd.type === 'capture' ? CAPTURE_OPERATION : VOID_OPERATION, amount, currency: p.currency,
        context: { amount, authorized: p.amount, expired: cmd.type === 'void' && cmd.expired === true },
        call: (c, request) => (cmd.type === 'capture' ? c.capture(request, authRef, p.amount) : c.void(request, authRef)),
      }, async (version, start) => {
        // Grouped with the shard's other attempt starts (one statement, one commit for many).
        try {
          return await ctx.payments.attempts.submit({ paymentId: id, expectedVersion: version, attempt: start, key: key ?? null });
        } catch (err) {
          if (!attemptKeyTaken(err)) throw err;
          keyTaken = true;
          return false;
        }
      });
      if (started.kind === 'no_answer') return failed({ ...fail('outcome_unknown'), retryAfterSeconds: 2 });
      if (started.kind === 'answered') {
        return viewed(await settle(ctx, { ...p, version: p.version + 1, pendingAttempt: started.attemptId }, started.attemptId, cmd, started.result, key?.requestId ?? null));
      }
      // Lost the version race (or the key): decide again from what is now committed.
      if (!keyTaken && ++conflicts > MAX_CONFLICT_RETRIES) return persisted();
      continue;
    }
    // Another attempt of this payment is in flight (a racing capture or cancel in another process, or
    // one awaiting recovery): wait a little for its outcome, then let the client retry.
    if (ctx.now() + pause > waitUntil) return failed({ ...fail('payment_attempt_in_progress'), retryAfterSeconds: 1 });
    await sleep(pause);
  }
}

export function handleCapture(ctx: ActorContext, m: CommandOf<'payment.capture'>): Promise<HoldReply> {
  return run(ctx, m.id, m.amount === null ? { type: 'capture' } : { type: 'capture', amount: m.amount }, m.key, m.scope);
}

export function handleVoid(ctx: ActorContext, m: CommandOf<'payment.void'>): Promise<ReplyOf<'payment.void'>> {
  return run(ctx, m.id, { type: 'void', expired: m.expired }, m.key, m.scope);
}

/** The command a recorded capture or void attempt stands for (from its stored context). */
function commandOfAttempt(a: Attempt): HoldCommand {
  const c = a.context as { amount?: number; expired?: boolean };
  return a.operation === CAPTURE_OPERATION ? { type: 'capture', amount: c.amount } : { type: 'void', expired: c.expired === true };
}

/**
 * Recovery of a capture or void attempt whose outcome was never recorded: asks the bank for that
 * attempt's outcome and records it (the capture or void happens once), or releases the attempt when
 * the bank never received it (the authorization stands; the key is closed at the bank).
 */
export async function recoverHoldAttempt(ctx: ActorContext, paymentId: string, a: Attempt): Promise<ReplyOf<'attempt.recover'>> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const cur = await findPayment(ctx.db, paymentId);
    if (!cur || cur.pendingAttempt !== a.id) {
      await abandonAttempt(ctx.db, a.id, 'its payment no longer names it');
      return { ok: true, attemptId: a.id, outcome: 'abandoned' };
    }
    const r = await ctx.connectors(cur.livemode).lookup(a.id);
    if (r.kind !== 'succeeded' && r.kind !== 'failed' && r.kind !== 'error' && r.kind !== 'unknown_attempt') {
      ctx.log.error({ paymentId, attemptId: a.id, result: r.kind }, 'the bank answered a capture or void with another result; left for an operator');
      return failed(fail('internal_error'));
    }
    const done = await settle(ctx, cur, a.id, commandOfAttempt(a), r as CaptureResult | UnknownAttempt);
    ctx.log.warn({ paymentId, attemptId: a.id, operation: a.operation, result: r.kind, ok: done.ok }, 'recovered capture/void: outcome asked of the bank and recorded');
    if (done.ok || done.failure.code !== 'service_unavailable') {
      return { ok: true, attemptId: a.id, outcome: r.kind === 'unknown_attempt' ? 'abandoned' : 'settled' };
    }
  }
  return persisted();
}
