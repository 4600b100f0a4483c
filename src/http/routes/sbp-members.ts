// Public SBP bank lists of the gateway API (no auth, public rate limits), all `{data, count}`:
//   GET /sbp/members                          the full active list
//   GET /sbp/members/popular?limit=           popular banks by display order (default 6)
//   GET /checkout/{id}/sbp-members?limit=     the list for a payment, with currency_supported (RUB only)
// `limit` is an integer 1-100 (else 400 VALIDATION_ERROR, reason LIMIT_INVALID). Every lookup error or deadline answers an
// empty list (fail open, logged), never a 5xx; an unknown session id is still 404.
import { withDeadline } from '../../deadline.js';
import { isCheckoutId } from '../../domain/ids.js';
import { parseListLimit, type SbpMember } from '../../domain/sbp-member.js';
import { fail } from '../../errors.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import { activeSbpMembers, sbpMembersAnswer } from '../sbp-list.js';
import type { Services } from '../services.js';

/** The `limit` query parameter: undefined when absent, the number, or null with the 400 already sent. */
function limitOf(ctx: Ctx): number | undefined | null {
  const limit = parseListLimit(new URLSearchParams(ctx.query).getAll('limit'));
  if (limit === null) sendFailure(ctx, fail('limit_invalid', 'limit'));
  return limit;
}

async function all(ctx: Ctx, s: Services) {
  const a = await sbpMembersAnswer(s);
  sendJson(ctx, 200, { ...a.body, request_id: ctx.requestId }, [['Cache-Control', a.cacheControl]]);
}

async function popular(ctx: Ctx, s: Services) {
  const limit = limitOf(ctx);
  if (limit === null) return;
  const a = await sbpMembersAnswer(s, { popular: true, limit });
  sendJson(ctx, 200, { ...a.body, request_id: ctx.requestId }, [['Cache-Control', a.cacheControl]]);
}

async function forCheckout(ctx: Ctx, s: Services) {
  const limit = limitOf(ctx);
  if (limit === null) return;
  const id = ctx.params[0];
  if (!isCheckoutId(id)) return sendFailure(ctx, fail('payment_not_found', 'id'));
  // Per payment: never kept by a shared cache.
  const answer = (data: SbpMember[], supported: boolean) =>
    sendJson(ctx, 200, { data, count: data.length, currency_supported: supported, request_id: ctx.requestId }, [['Cache-Control', 'no-store']]);
  const found = await withDeadline(s.reads.checkout(id), s.config.sbpLookupDeadlineMs);
  if (found.timedOut || found.error !== undefined) {
    s.metrics.sbpListFailOpen.inc();
    s.log.warn({ requestId: ctx.requestId, paymentId: id, err: found.timedOut ? 'deadline' : (found.error as Error)?.message },
      'payment lookup for the SBP list failed; answering an empty list');
    return answer([], false);
  }
  if (!found.value) return sendFailure(ctx, fail('payment_not_found', 'id'));
  if (found.value.payment.currency !== 'RUB') return answer([], false);
  const { members } = await activeSbpMembers(s);
  answer(limit ? members.slice(0, limit) : members, true);
}

export const sbpMemberRoutes: Route[] = [
  { method: 'GET', path: '/sbp/members', api: 'gateway', auth: 'none', handler: all },
  { method: 'GET', path: '/sbp/members/popular', api: 'gateway', auth: 'none', handler: popular },
  { method: 'GET', path: '/checkout/:id/sbp-members', api: 'gateway', auth: 'none', handler: forCheckout },
];
