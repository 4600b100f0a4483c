// Payouts, run by the actor of the payout's id. A payout follows the attempt protocol
// (attempt-protocol.ts): the amount is reserved on the balance's row for the currency and mode,
// and the pending payout and its attempt recorded, by one statement that holds that row's lock only
// until it commits (src/store/payouts-repo.ts; grouped with the shard's other payouts by
// `ctx.payouts.begins`); the bank is called after it, with the attempt id as its idempotency key,
// and its answer is recorded with the payout's move (a failure gives the reservation back), the
// outbox event and the deliveries in one statement (grouped too: `ctx.payouts.settles`), on the
// payout's status and attempt. Recovery asks the bank for an attempt's outcome instead of paying again.
import { setTimeout as sleep } from 'node:timers/promises';
import { payoutView } from '../src/api/payouts.js';
import { PAYOUT_OPERATION, transitionPayout, type Payout, type PayoutCommand, type PayoutRefusal } from '../src/domain/payout.js';
import type { PayoutResult } from '../src/connectors/types.js';
import { fail, type ApiFailure } from '../src/errors.js';
import { failpoint } from '../src/failpoints.js';
import { abandonAttempt, type Attempt, type AttemptStart } from '../src/store/attempts-repo.js';
import { ensureBalance, findPayout, findPayoutKey, payoutKeyTaken, type PayoutBegin } from '../src/store/payouts-repo.js';
import { startAttempt } from './attempt-protocol.js';
import { MAX_CONFLICT_RETRIES, markCommitted, type ActorContext } from './context.js';
import type { CommandOf, Failed, PayoutRequest, ReplyOf } from './protocol.js';

type PayoutReply = ReplyOf<'payout.create'>;

/** How long a request waits for a payout with its key that is in flight elsewhere before answering 409 idempotency_key_in_use. */
export const PAYOUT_WAIT_MS = 3_000;

const failed = (f: ApiFailure): Failed => ({ ok: false, failure: f });
const unknown = (): Failed => failed({ ...fail('outcome_unknown'), retryAfterSeconds: 2 });
const inProgress = (): Failed => failed({ ...fail('idempotency_key_in_use'), retryAfterSeconds: 1 });
/** The refusal for the balance; as a replay (`replayedFrom`: the request that was refused) when its key already held it. */
const refused = (r: PayoutRefusal, replay: boolean): Failed => ({
  ...failed({ ...fail('insufficient_balance', 'amount', `${r.available} ${r.currency} available`), extra: { available: r.available, currency: r.currency } }),
  ...(replay ? { replayedFrom: r.requestId } : {}),
});

/** The attempt's status and the payout's command for a bank answer. */
function commandOf(res: PayoutResult | { kind: 'unknown_attempt' }): { cmd: PayoutCommand; attempt: 'succeeded' | 'failed' | 'abandoned' } {
  switch (res.kind) {
    case 'succeeded': return { cmd: { type: 'pay', ref: res.ref }, attempt: 'succeeded' };
    case 'failed': return { cmd: { type: 'fail', code: res.code, ref: res.ref }, attempt: 'failed' };
    case 'error': return { cmd: { type: 'fail', code: res.code, ref: null }, attempt: 'failed' };
    // The bank never received it (and now refuses the key): nothing was paid.
    case 'unknown_attempt': return { cmd: { type: 'fail', code: 'payout_interrupted', ref: null }, attempt: 'abandoned' };
  }
}

/** Step 3: records the bank's answer on the pending payout `p`; the payout as it then stands. */
async function settle(ctx: ActorContext, p: Payout, res: PayoutResult | { kind: 'unknown_attempt' }): Promise<Payout | null> {
  const { cmd, attempt } = commandOf(res);
  const moved = transitionPayout(p, cmd, ctx.now());
  if (!moved.ok) return findPayout(ctx.db, p.id);
  const deliveries = await ctx.payouts.settles.submit({
    next: moved.state, attempt: { id: p.attemptId, status: attempt, result: res }, event: moved.events[0], data: payoutView(moved.state),
  });
  if (deliveries === null) return findPayout(ctx.db, p.id); // settled by someone else (recovery): as it stands
  if (deliveries > 0) ctx.onDeliveries?.();
  return moved.state;
}

function newPayout(id: string, q: PayoutRequest, attemptId: string, now: number): Payout {
  return {
    id, merchantId: q.merchantId, livemode: q.livemode, status: 'pending', amount: q.amount, currency: q.currency,
    destination: q.destination.masked, failure: null, metadata: q.metadata, attemptId, connectorRef: null,
    requestId: q.requestId, idempotencyKey: q.idempotencyKey, requestHash: q.requestHash, createdAt: now, updatedAt: now,
  };
}

/**
 * Step 1, grouped with the shard's other payouts (one statement, one commit for many). A key another
 * request bound (its payout or its refusal), found in the statement or breaking it on the key's
 * primary key, is `key_taken`; a
 * balance's first payout creates the balance's row and is submitted again.
 */
async function reserve(ctx: ActorContext, payout: Payout, attempt: AttemptStart): Promise<PayoutBegin> {
  for (let i = 0; ; i++) {
    let begun: PayoutBegin;
    try {
      begun = await ctx.payouts.begins.submit({ payout, attempt });
    } catch (err) {
      if (payoutKeyTaken(err)) return { kind: 'key_taken' };
      throw err;
    }
    if (begun.kind !== 'no_balance') return begun;
    // Rows are never deleted: once created, the next statement (a later snapshot) sees it.
    if (i > 0) throw new Error(`payout ${payout.id}: its balance row is still missing after it was created`);
    await ensureBalance(ctx.db, payout);
  }
}

export async function handlePayoutCreate(ctx: ActorContext, m: CommandOf<'payout.create'>): Promise<PayoutReply> {
  const q = m.request;
  const waitUntil = ctx.now() + PAYOUT_WAIT_MS;
  for (let i = 0, pause = 5; ; i++, pause = Math.min(pause * 2, 100)) {
    // A key already bound is answered by what it holds (Postgres is the arbiter): the payout as it
    // stands, or the refusal its first request got. The first try reads no key: the reservation
    // checks the key before the balance and does nothing when it is bound (key_taken); the key is
    // read on every try after that.
    const held = q.idempotencyKey && i > 0 ? await findPayoutKey(ctx.db, q.merchantId, q.livemode, q.idempotencyKey) : null;
    if (held && held.requestHash !== q.requestHash) return failed(fail('idempotency_conflict', 'Idempotency-Key'));
    if (held && 'refusal' in held) return refused(held.refusal, true);
    const prior = held?.payout ?? null;
    // The key holds a payout: whatever fails from here on, this request's answer is not "nothing happened".
    if (prior) markCommitted(ctx);
    if (prior && prior.status !== 'pending') return { ok: true, payout: prior, replayed: true };
    if (prior) {
      // In flight in another process, or awaiting recovery: wait a little for its outcome, then
      // tell the client the key's request is still running (retry the same key later).
      if (ctx.now() + pause > waitUntil) return inProgress();
      await sleep(pause);
      continue;
    }
    if (i > MAX_CONFLICT_RETRIES) return failed(fail('service_unavailable', null, 'idempotency key race persisted'));
    const to = q.destination;
    const st: { payout?: Payout; refusal?: Failed } = {};
    const run = await startAttempt<PayoutResult>(ctx, { id: m.id, version: 0, livemode: q.livemode }, {
      operation: PAYOUT_OPERATION, amount: q.amount, currency: q.currency, context: { payoutId: m.id, destination: to.masked.type },
      call: (c, request) => c.payout(request, {
        type: to.masked.type, account: to.account,
        bic: to.masked.type === 'iban' ? to.masked.bic : null, memberId: to.masked.type === 'sbp' ? to.masked.member_id : null,
      }),
    }, async (_version, start) => {
      const payout = st.payout = newPayout(m.id, q, start.id, ctx.now());
      const begun = await reserve(ctx, payout, start);
      // Refused for the balance. A keyed refusal is bound to its key by the same statement: a
      // same-key twin in any process is answered by it, and one that bound the key first made this
      // row key_taken instead.
      if (begun.kind === 'insufficient') {
        st.refusal = refused({ code: 'insufficient_balance', available: begun.available, currency: q.currency, requestId: q.requestId }, false);
        // Committed: the key holds the refusal; a retry after a death here is answered by it.
        if (q.idempotencyKey) failpoint('after-refusal-recorded');
      }
      return begun.kind === 'started';
    });
    if (st.refusal) return st.refusal;
    if (run.kind === 'conflict') continue; // the key was taken meanwhile: answer as that payout stands
    if (run.kind === 'no_answer') return unknown();
    const now = await settle(ctx, st.payout!, run.result);
    return now ? { ok: true, payout: now, replayed: false } : failed(fail('payout_not_found', 'id'));
  }
}

/**
 * Recovery of a payout attempt whose outcome was never recorded: asks the bank for that attempt's
 * outcome and records it. A key the bank never received is closed by the question, so the payout is
 * failed (`payout_interrupted`) knowing nothing was paid: never paid twice, never paid blind.
 */
export async function recoverPayout(ctx: ActorContext, payoutId: string, a: Attempt): Promise<ReplyOf<'attempt.recover'>> {
  const p = await findPayout(ctx.db, payoutId);
  if (!p || p.status !== 'pending' || p.attemptId !== a.id) {
    await abandonAttempt(ctx.db, a.id, 'its payout no longer names it');
    return { ok: true, attemptId: a.id, outcome: 'abandoned' };
  }
  const r = await ctx.connectors(p.livemode).lookup(a.id);
  if (r.kind !== 'succeeded' && r.kind !== 'failed' && r.kind !== 'error' && r.kind !== 'unknown_attempt') {
    ctx.log.error({ payoutId, attemptId: a.id, result: r.kind }, 'the bank answered a payout attempt with a payment result; left for an operator');
    return failed(fail('internal_error'));
  }
  const done = await settle(ctx, p, r as PayoutResult | { kind: 'unknown_attempt' });
  ctx.log.warn({ payoutId, attemptId: a.id, result: r.kind, status: done?.status }, 'recovered payout: outcome asked of the bank and recorded');
  return { ok: true, attemptId: a.id, outcome: r.kind === 'unknown_attempt' ? 'abandoned' : 'settled' };
}
