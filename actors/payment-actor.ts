// The payment actor: the single owner of one payment's state. Handlers are plain async functions
// over an explicit context, so tests can run them without threads.
import type pg from 'pg';
import { fail } from '../src/errors.js';
import { createPayment, transition, type Payment, type PaymentCommand, type CreateContext, type NewPayment } from '../src/domain/payment.js';
import { findPayment, type InsertOutcome, type PaymentUpdate } from '../src/store/payments-repo.js';
import type { GroupWriter } from './group-writer.js';
import type { Reply } from './protocol.js';

export interface ActorContext {
  db: pg.Pool;
  /** Where the hosted pages live (connectors build 3-D Secure and bank-page URLs from it). */
  publicBaseUrl: string;
  /** Grouped inserts of new payments, and grouped version-checked updates (null: version conflict). */
  creates: GroupWriter<Payment, InsertOutcome>;
  updates: GroupWriter<PaymentUpdate, number | null>;
  /** Called when a committed change queued webhook deliveries (wakes the local dispatcher). */
  onDeliveries?: () => void;
  /** Cached states by id; only a hint: every write is conditional on the row version. */
  cache: Map<string, { state: Payment; touched: number }>;
  now: () => number;
}

const MAX_CONFLICT_RETRIES = 5;

export async function handleCreate(ctx: ActorContext, input: NewPayment, cc: CreateContext): Promise<Reply> {
  const payment = createPayment(input, cc, ctx.now());
  const out = await ctx.creates.submit(payment);
  if (out.kind === 'existing' && out.payment.requestHash !== cc.requestHash) {
    return { ok: false, failure: fail('idempotency_conflict', null) };
  }
  remember(ctx, out.payment);
  return { ok: true, payment: out.payment, replayed: out.kind === 'existing' };
}

function remember(ctx: ActorContext, p: Payment): void {
  ctx.cache.delete(p.id); // re-insert so that Map order stays least-recently-used first
  ctx.cache.set(p.id, { state: p, touched: ctx.now() });
}

export async function handleApply(ctx: ActorContext, id: string, command: PaymentCommand): Promise<Reply> {
  let fromCache = ctx.cache.has(id);
  let state = ctx.cache.get(id)?.state ?? (await findPayment(ctx.db, id));
  for (let attempt = 0; state && attempt <= MAX_CONFLICT_RETRIES; attempt++) {
    const result = transition(state, command, ctx.now());
    if (!result.ok) {
      // A cached state may be older than a write made by another process: confirm before refusing.
      if (fromCache) { fromCache = false; ctx.cache.delete(id); state = await findPayment(ctx.db, id); continue; }
      return { ok: false, failure: fail(result.code, null) };
    }
    const deliveries = await ctx.updates.submit({ next: result.state, expectedVersion: state.version, events: result.events });
    if (deliveries !== null) {
      remember(ctx, result.state);
      if (deliveries > 0) ctx.onDeliveries?.();
      return { ok: true, payment: result.state, replayed: false };
    }
    // Another process wrote this payment since we loaded it: reload and decide again.
    ctx.cache.delete(id);
    fromCache = false;
    state = await findPayment(ctx.db, id);
  }
  if (!state) return { ok: false, failure: fail('payment_not_found', 'id') };
  return { ok: false, failure: fail('service_unavailable', null, 'version conflict persisted') };
}

/** Drops actors idle for longer than `idleMs`, and the oldest beyond `max`. */
export function passivate(ctx: ActorContext, idleMs: number, max: number): number {
  const cutoff = ctx.now() - idleMs;
  let dropped = 0;
  for (const [id, a] of ctx.cache) if (a.touched < cutoff) { ctx.cache.delete(id); dropped++; }
  // Map iteration is insertion order; re-set on touch keeps it roughly least-recently-used first.
  for (const id of ctx.cache.keys()) {
    if (ctx.cache.size <= max) break;
    ctx.cache.delete(id); dropped++;
  }
  return dropped;
}
