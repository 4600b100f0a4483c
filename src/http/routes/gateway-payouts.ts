// Gateway payouts and balance: POST /v2/payouts (secret key, or restricted key with payouts:write;
// Idempotency-Key as for payments), GET /v2/payouts/{id} and GET /v2/payouts (payouts:read), and
// GET /v2/balance (payouts:read). A payout is created by the actor of its id (actors/payout-actor.ts),
// which checks the balance under the merchant's balance lock; docs/decisions.md "Payouts and balance".
import { CREATE_PAYOUT_FIELD_CODES, CreatePayoutRequest, payoutView } from '../../api/payouts.js';
import { compile, dropNulls } from '../../api/validate.js';
import { prefixedId } from '../../domain/ids.js';
import { currencyRefusal } from '../../domain/money.js';
import { checkDestination, PAYOUT_ID_RE, PAYOUT_STATUSES, type Payout, type PayoutStatus } from '../../domain/payout.js';
import { fail, type ApiFailure } from '../../errors.js';
import { balanceOf, findPayout, findPayoutKey, listPayouts } from '../../store/payouts-repo.js';
import { isActiveSbpMember } from '../../store/sbp-members-repo.js';
import type { Ctx } from '../context.js';
import { accountWideRefusal, gatewayRoute, principalOf, scopeOf } from '../gateway.js';
import { createMailbox, idempotencyOf, runIdempotent, type StoredAnswer } from '../idempotent.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateCreate = compile(CreatePayoutRequest, CREATE_PAYOUT_FIELD_CODES);

/**
 * Payouts and the balance belong to the whole account: a key pinned to one channel gets 403
 * CHANNEL_FORBIDDEN for all four routes (it is for that channel's traffic, not the merchant's money).
 */
function accountOnly(handler: Route['handler']): Route['handler'] {
  return (ctx, s, body) => {
    const refused = accountWideRefusal(principalOf(ctx));
    return refused ? sendFailure(ctx, refused) : handler(ctx, s, body);
  };
}

const render = (p: Payout): StoredAnswer => ({ status: 200, requestId: p.requestId, body: JSON.stringify(payoutView(p)) });

async function create(ctx: Ctx, s: Services, raw: unknown) {
  const p = principalOf(ctx);
  const body = dropNulls(raw);
  const v = validateCreate(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  const currency = b.currency.toUpperCase();
  const checked = checkDestination(b.destination, s.config.cardFingerprintKey);
  if (!checked.ok) return sendFailure(ctx, fail(checked.code, checked.param));
  const dest = checked.destination;
  const scope = scopeOf(p);
  const idem = idempotencyOf(ctx, scope, 'payout', '/v2/payouts', body);
  if ('code' in idem) return sendFailure(ctx, idem);
  // Rules on state that can change (the merchant's currencies, the SBP list) refuse only a key that
  // holds nothing: a bound key is answered by what it holds (the actor replays it), never refused anew.
  let refusal: ApiFailure | null = null;
  if (!p.merchant.currencies.includes(currency)) refusal = fail('currency_not_enabled', 'currency', currencyRefusal(currency, p.merchant.currencies));
  else if (dest.masked.type === 'sbp' && dest.masked.member_id !== null && !(await isActiveSbpMember(s.db, dest.masked.member_id))) {
    refusal = fail('sbp_member_invalid', 'destination.member_id', 'not an active bank of the SBP list');
  }
  if (refusal && (idem.key === null || !(await findPayoutKey(s.db, scope.merchantId, scope.livemode, idem.key)))) return sendFailure(ctx, refusal);
  await runIdempotent(ctx, s, idem, async () => {
    const reply = await s.dispatcher.send({
      kind: 'payout.create', id: prefixedId('po', 24), mailbox: createMailbox(idem),
      request: {
        merchantId: scope.merchantId, livemode: scope.livemode, amount: b.amount, currency, destination: dest, metadata: b.metadata ?? {},
        requestId: ctx.requestId, idempotencyKey: idem.key, requestHash: idem.key ? idem.hash : null,
      },
    });
    return reply.ok ? { answer: render(reply.payout), replayed: reply.replayed } : { failure: reply.failure, replayedFrom: reply.replayedFrom };
  });
}

async function get(ctx: Ctx, s: Services) {
  const scope = scopeOf(principalOf(ctx));
  const id = ctx.params[0] ?? '';
  const payout = PAYOUT_ID_RE.test(id) ? await findPayout(s.db, id) : null;
  if (!payout || payout.merchantId !== scope.merchantId || payout.livemode !== scope.livemode) return sendFailure(ctx, fail('payout_not_found', 'id'));
  sendJson(ctx, 200, payoutView(payout));
}

/** The payments list's page shape: limit 1-100 (default 20) and offset >= 0, newest first, with the total. */
async function list(ctx: Ctx, s: Services) {
  const scope = scopeOf(principalOf(ctx));
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (k !== 'limit' && k !== 'offset' && k !== 'status') return sendFailure(ctx, fail('parameter_unknown', k));
  const int = (name: string, def: number, min: number, max: number): number | null => {
    const raw = q.get(name);
    if (raw === null) return def;
    const n = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : NaN;
    return n >= min && n <= max ? n : null;
  };
  const limit = int('limit', 20, 1, 100);
  if (limit === null) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  const offset = int('offset', 0, 0, 100_000_000);
  if (offset === null) return sendFailure(ctx, fail('parameter_invalid', 'offset', 'an integer >= 0'));
  const status = q.get('status');
  if (status !== null && !PAYOUT_STATUSES.includes(status as PayoutStatus)) return sendFailure(ctx, fail('status_invalid', 'status', 'pending, paid or failed'));
  const page = await listPayouts(s.db, { ...scope, status: status as PayoutStatus | null, limit, offset });
  sendJson(ctx, 200, {
    object: 'list', data: page.payouts.map(payoutView), total: page.total, limit, offset, has_more: offset + page.payouts.length < page.total,
  });
}

async function balance(ctx: Ctx, s: Services) {
  const p = principalOf(ctx);
  const rows = await balanceOf(s.db, p.merchant.id, p.livemode);
  // Every currency the merchant takes is listed, with zeros when nothing happened in it yet.
  const currencies = [...new Set([...p.merchant.currencies, ...rows.map((r) => r.currency)])].sort();
  const of = (c: string) => rows.find((r) => r.currency === c);
  sendJson(ctx, 200, {
    object: 'balance', livemode: p.livemode,
    available: currencies.map((c) => ({ currency: c, amount: of(c)?.available ?? 0 })),
    pending: currencies.map((c) => ({ currency: c, amount: of(c)?.pending ?? 0 })),
  });
}

export const gatewayPayoutRoutes: Route[] = [
  gatewayRoute('POST', '/v2/payouts', 'payouts:write', accountOnly(create), { body: true }),
  gatewayRoute('GET', '/v2/payouts', 'payouts:read', accountOnly(list)),
  gatewayRoute('GET', '/v2/payouts/:id', 'payouts:read', accountOnly(get)),
  gatewayRoute('GET', '/v2/balance', 'payouts:read', accountOnly(balance)),
];
