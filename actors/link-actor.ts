// The link actor: the single owner of one payment link's state (its holds and its active flag).
// Paying a link reserves one use under the link row's version, then asks the payment actor to create
// the payment for it (link -> payment only; the payment never asks the link: its settling statement
// spends or returns the hold itself, see payments-repo UPDATE_SQL). The link is always loaded from
// Postgres, since that statement changes it outside this actor.
import { fail, type ErrorCode } from '../src/errors.js';
import { createLink, deactivate, release, reserve, staleHolds, type Link } from '../src/domain/link.js';
import { paymentId } from '../src/domain/ids.js';
import { existingPayments, findLink, insertLink, updateLink } from '../src/store/links-repo.js';
import { MAX_CONFLICT_RETRIES, type ActorContext } from './context.js';
import type { CommandOf, Failed, ReplyOf } from './protocol.js';
import { clockNow } from './test-clocks/clock-now.js';

const failed = (code: ErrorCode, param: string | null = null): Failed => ({ ok: false, failure: fail(code, param) });
const persisted = (): Failed => ({ ok: false, failure: { ...fail('service_unavailable', null, 'version conflict persisted'), retryAfterSeconds: 1 } });

export async function handleLinkCreate(ctx: ActorContext, m: CommandOf<'link.create'>): Promise<ReplyOf<'link.create'>> {
  const now = m.ctx.testClockId ? await clockNow(ctx, m.ctx.testClockId) : ctx.now();
  const out = await insertLink(ctx.db, createLink(m.input, m.ctx, now));
  if (out.kind === 'existing' && out.link.requestHash !== m.ctx.requestHash) return failed('idempotency_conflict', 'Idempotency-Key');
  return { ok: true, link: out.link, replayed: out.kind === 'existing' };
}

export async function handleLinkDeactivate(ctx: ActorContext, m: CommandOf<'link.deactivate'>): Promise<ReplyOf<'link.deactivate'>> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const link = await findLink(ctx.db, m.id);
    if (!link) return failed('link_not_found', 'id');
    const next = deactivate(link, ctx.now());
    if (!next) return { ok: true, link, replayed: false };
    if (await updateLink(ctx.db, next, link.version)) return { ok: true, link: next, replayed: false };
  }
  return persisted();
}

/**
 * Holds older than STALE_HOLD_MS whose payment does not exist were left by a process that died between
 * the reservation and the create (or a create refused after its deadline): they are returned.
 */
async function dropStaleHolds(ctx: ActorContext, link: Link): Promise<boolean> {
  const stale = staleHolds(link, ctx.now());
  if (stale.length === 0) return false;
  const exist = await existingPayments(ctx.db, stale);
  const next = release(link, stale.filter((id) => !exist.has(id)), ctx.now());
  if (!next) return false;
  const ok = await updateLink(ctx.db, next, link.version);
  if (ok) ctx.log.warn({ linkId: link.id, released: stale.filter((id) => !exist.has(id)) }, 'stale link holds without a payment returned');
  return ok;
}

/** Returns the use held for a payment that was certainly not created. */
async function returnHold(ctx: ActorContext, linkId: string, pid: string): Promise<void> {
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const link = await findLink(ctx.db, linkId);
    const next = link && release(link, [pid], ctx.now());
    if (!link || !next || (await updateLink(ctx.db, next, link.version))) return;
  }
  ctx.log.error({ linkId, paymentId: pid }, 'could not return a link hold (version conflicts); the stale-hold sweep will');
}

export async function handleLinkPay(ctx: ActorContext, m: CommandOf<'link.pay'>): Promise<ReplyOf<'link.pay'>> {
  const pid = paymentId(ctx.now());
  let repaired = false;
  for (let i = 0; i <= MAX_CONFLICT_RETRIES; i++) {
    const link = await findLink(ctx.db, m.id);
    if (!link) return failed('link_not_found', 'id');
    const r = reserve(link, pid, m.amount, link.testClockId ? await clockNow(ctx, link.testClockId) : ctx.now());
    if (!r.ok) {
      if (r.code === 'link_busy' && !repaired) { repaired = true; if (await dropStaleHolds(ctx, link)) continue; }
      if (r.code === 'link_busy') return { ok: false, failure: { ...fail('link_busy'), retryAfterSeconds: 30 } };
      return failed(r.code, r.code === 'amount_invalid' ? 'amount' : null);
    }
    // The use is reserved before the payment exists: a second payer (any process) sees it at once.
    if (!(await updateLink(ctx.db, r.state, link.version))) continue;
    const reply = await ctx.ask({
      kind: 'payment.create', id: pid,
      input: {
        amount: r.amount, currency: link.currency, orderId: null, description: link.description, metadata: {}, method: null,
        customer: {}, returnUrl: null, locale: m.ctx.locale, source: 'link', linkId: link.id,
      },
      ctx: {
        id: pid, merchantId: link.merchantId, livemode: link.livemode, fees: m.ctx.fees, windowSeconds: m.ctx.windowSeconds,
        requestId: m.ctx.requestId, idempotencyKey: null, requestHash: null, testClockId: link.testClockId ?? null,
      },
    });
    if (reply.ok) return { ok: true, link: r.state, payment: reply.payment };
    // Refused before it was queued: certainly not created, the hold goes back. Any other failure
    // (a deadline, an unknown outcome) may still create it; the hold stays until it is proven stale.
    if (reply.failure.code === 'service_unavailable') await returnHold(ctx, link.id, pid);
    else ctx.log.warn({ linkId: link.id, paymentId: pid, code: reply.failure.code }, 'link payment create has an unknown outcome; its hold stays');
    return reply;
  }
  return persisted();
}
