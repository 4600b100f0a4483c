// What every actor handler is given: the shard's runtime (database, clock, connectors, logger, the
// way to ask another actor) and the per-aggregate stores. Handlers are plain functions over it, so
// tests can run them without threads.
import type pg from 'pg';
import type { Logger } from '../src/log.js';
import type { Payment } from '../src/domain/payment.js';
import type { Connectors } from '../src/connectors/index.js';
import type { InsertOutcome, PaymentCreate, PaymentUpdate } from '../src/store/payments-repo.js';
import type { PaymentAttemptBegin } from '../src/store/attempts-repo.js';
import type { RefundBegin, RefundSettlement } from '../src/store/refunds-repo.js';
import type { AttemptReads } from '../src/store/attempt-reads.js';
import type { PayoutBegin, PayoutSettlement, PayoutStart } from '../src/store/payouts-repo.js';
import type { GroupWriter } from './group-writer.js';
import type { ReplayCache } from '../src/store/replay-cache.js';
import type { Command, ReplyTo } from './protocol.js';

/** Latest states an actor wrote, by id: only a hint, since every write is version-checked. */
export type StateCache<S> = Map<string, { state: S; touched: number }>;

export interface PaymentStore {
  cache: StateCache<Payment>;
  /**
   * Grouped inserts of new payments (a direct card payment's with its first attempt), and grouped
   * version-checked updates (null: version conflict).
   */
  creates: GroupWriter<PaymentCreate, InsertOutcome>;
  updates: GroupWriter<PaymentUpdate, number | null>;
  /** Grouped starts of connector attempts on existing payments (false: version conflict or an attempt in flight). */
  attempts: GroupWriter<PaymentAttemptBegin, boolean>;
  /** Grouped refund starts: attempt, pending refund and the payment's move (false: version conflict or an attempt in flight). */
  refunds: GroupWriter<RefundBegin, boolean>;
  /** Grouped refund outcomes (the deliveries queued; null: version conflict). */
  refundSettles: GroupWriter<RefundSettlement, number | null>;
  /** Grouped reads of payments the actors do not hold: alone (loadPayment), or with what a refund, capture or void needs first. */
  reads: AttemptReads;
}

/**
 * The payment as Postgres holds it now, for an actor that does not hold it: through the shard's
 * grouped reads (an expiry sweep hands a shard hundreds at once), each statement sent after the
 * load was asked for, so it sees every write committed before.
 */
export async function loadPayment(ctx: ActorContext, id: string): Promise<Payment | null> {
  return (await ctx.payments.reads.read({ paymentId: id, chargeRef: false }))?.payment ?? null;
}

export interface PayoutStore {
  /** Grouped payout starts: reservation, attempt and pending payout (payouts-repo.ts beginPayouts). */
  begins: GroupWriter<PayoutStart, PayoutBegin>;
  /** Grouped payout outcomes (the deliveries queued; null: no longer pending on that attempt). */
  settles: GroupWriter<PayoutSettlement, number | null>;
}

export interface ActorContext {
  db: pg.Pool;
  now: () => number;
  log: Logger;
  /** Where the hosted pages live (connectors build 3-D Secure and bank-page URLs from it). */
  publicBaseUrl: string;
  connectors: Connectors;
  /** How long one connector call may take before its outcome is left to recovery. */
  connectorTimeoutMs: number;
  /** How long an authorization (capture_method manual) is held before the expiry sweep voids it. */
  authorizationWindowSeconds: number;
  /**
   * Sends a command to the actor that owns `cmd.id` and waits for its reply. Commands one actor asks
   * of another are delivered in the order it sent them. Asks must not form a cycle (a refund asks
   * its payment, a link asks its payments; never the other way round), or both wait until the deadline.
   */
  ask<C extends Command>(cmd: C): Promise<ReplyTo<C>>;
  /** Called when a committed change queued webhook deliveries (wakes the local dispatcher). */
  onDeliveries?: () => void;
  payments: PaymentStore;
  payouts: PayoutStore;
  /** The Idempotency-Key replay cache, when this worker reaches the shared store (Redis). */
  replays?: ReplayCache | null;
  /**
   * What the command being run has done so far (the shard gives each command its own): once any of
   * it has committed, or its key was found holding an object, a later failure is answered as an
   * unknown outcome, never as "nothing committed" (DESIGN invariant 11).
   */
  progress?: CommandProgress;
}

export interface CommandProgress { committed: boolean }

/** Records that the running command has committed something (an attempt, a row) or found its key taken. */
export function markCommitted(ctx: ActorContext): void {
  if (ctx.progress) ctx.progress.committed = true;
}

/**
 * The most states one worker's cache holds. `remember` keeps it a true bound (the least recently
 * used state goes when a new one comes), so a burst of new ids between two idle sweeps cannot grow
 * the heap past it.
 */
export const MAX_CACHED_STATES = 10_000;

export function remember<S>(cache: StateCache<S>, id: string, state: S, now: number, max = MAX_CACHED_STATES): void {
  cache.delete(id); // re-insert so that Map order stays least-recently-used first
  cache.set(id, { state, touched: now });
  if (cache.size > max) cache.delete(cache.keys().next().value as string);
}

/** Drops cached states idle for longer than `idleMs` (the bound on their number is `remember`'s). */
export function passivate<S>(cache: StateCache<S>, now: number, idleMs: number): number {
  const cutoff = now - idleMs;
  let dropped = 0;
  for (const [id, a] of cache) if (a.touched < cutoff) { cache.delete(id); dropped++; }
  return dropped;
}

export const MAX_CONFLICT_RETRIES = 5;
