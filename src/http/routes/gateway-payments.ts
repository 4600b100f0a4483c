// Gateway payments: GET /v2/payments (payments:read; limit 1-100 default 20, offset, status, from, to),
// GET /v2/payments/{id} (by payment_id = cs_ session id, order_id or connector_transaction_id) and
// POST /v2/payments/{id}/refund (refunds:write), which runs the merchant API's refund machinery: the
// payment's actor (actors/refund-actor.ts), one refunds table. docs/decisions.md "Gateway direct payments".
import { GATEWAY_REFUND_FIELD_CODES, GatewayRefundRequest, toGatewayPayment, toGatewayRefund } from '../../api/gateway-payments.js';
import { compile, dropNulls } from '../../api/validate.js';
import { parseDateTimeBound } from '../../domain/date-filter.js';
import { GATEWAY_PAYMENT_STATUSES, paymentStatusesOf, type GatewayPaymentStatus } from '../../domain/gateway-payment.js';
import { remainingOf } from '../../domain/refund.js';
import { fail, type ApiFailure } from '../../errors.js';
import { findGatewayPayment, listGatewayPayments, type GatewayPaymentRead, type GatewayScope } from '../../store/gateway-payments-repo.js';
import type { Ctx } from '../context.js';
import { gatewayRoute, principalOf } from '../gateway.js';
import { idempotencyOf, runIdempotent, type StoredAnswer } from '../idempotent.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateRefund = compile(GatewayRefundRequest, GATEWAY_REFUND_FIELD_CODES);
const KEY_RE = /^[\x21-\x7e]{1,128}$/;

function scopeOfCtx(ctx: Ctx): GatewayScope {
  const who = principalOf(ctx);
  return { merchantId: who.merchant.id, livemode: who.livemode, channelId: who.key.channelId };
}

const view = (r: GatewayPaymentRead) => toGatewayPayment(r.payment, r.checkout, r);

/** The key's payment by any of its names; a channel-scoped key sees only its channel's (others are not found). */
async function lookup(ctx: Ctx, s: Services): Promise<GatewayPaymentRead | ApiFailure> {
  const key = ctx.params[0];
  const scope = scopeOfCtx(ctx);
  if (!key || !KEY_RE.test(key)) return fail('payment_not_found', 'id');
  const r = await findGatewayPayment(s.db, scope, key);
  if (!r || (scope.channelId !== null && r.payment.channelId !== scope.channelId)) return fail('payment_not_found', 'id');
  return r;
}

async function list(ctx: Ctx, s: Services) {
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (!['limit', 'offset', 'status', 'from', 'to'].includes(k)) return sendFailure(ctx, fail('parameter_unknown', k));
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
  if (status !== null && !(GATEWAY_PAYMENT_STATUSES as readonly string[]).includes(status)) {
    return sendFailure(ctx, fail('status_invalid', 'status', GATEWAY_PAYMENT_STATUSES.join(', ')));
  }
  const bounds: { from?: number; to?: number } = {};
  for (const name of ['from', 'to'] as const) {
    if (!q.has(name)) continue;
    const b = parseDateTimeBound(q.get(name)!);
    if (!b) return sendFailure(ctx, fail('date_invalid', name));
    if (name === 'from') bounds.from = b.start; else bounds.to = b.end;
  }
  if (bounds.from !== undefined && bounds.to !== undefined && bounds.to <= bounds.from) return sendFailure(ctx, fail('date_invalid', 'to', 'to is before from'));
  const page = await listGatewayPayments(s.db, {
    ...scopeOfCtx(ctx), ...bounds, limit, offset, statuses: status ? paymentStatusesOf(status as GatewayPaymentStatus) : null,
  });
  // requires_action and pending share the payment status pending: the checkout's wait tells them apart.
  const data = page.payments.map(view).filter((p) => status === null || status === 'processing' || p.status === status);
  sendJson(ctx, 200, { object: 'list', data, total: page.total, limit, offset, has_more: offset + page.payments.length < page.total });
}

async function get(ctx: Ctx, s: Services) {
  const r = await lookup(ctx, s);
  if ('code' in r) return sendFailure(ctx, r);
  sendJson(ctx, 200, view(r));
}

async function refund(ctx: Ctx, s: Services, raw: unknown) {
  const who = principalOf(ctx);
  const found = await lookup(ctx, s);
  if ('code' in found) return sendFailure(ctx, found);
  const p = found.payment;
  const body = dropNulls(raw ?? {});
  const v = validateRefund(body);
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  // A sure overshoot is answered here with the remaining balance; the actor re-checks under its lock.
  if (b.amount !== undefined && (p.status === 'succeeded' || p.status === 'partially_refunded') && b.amount > remainingOf(p)) {
    return sendFailure(ctx, refundAbove(remainingOf(p), p.currency));
  }
  // The spec carries the key in the body; the Idempotency-Key header is accepted too (the body's wins).
  if (b.idempotency_key !== undefined) ctx.headers['idempotency-key'] = b.idempotency_key;
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'refund', `/v2/payments/${p.id}/refund`, body);
  if ('code' in idem) return sendFailure(ctx, idem);
  const render = (r: Parameters<typeof toGatewayRefund>[0], after: Parameters<typeof toGatewayRefund>[1]): StoredAnswer =>
    ({ status: 200, requestId: r.requestId, body: JSON.stringify(toGatewayRefund(r, after)) });
  await runIdempotent(ctx, s, idem, async () => {
    const reply = await s.dispatcher.send({
      kind: 'payment.refund', id: p.id,
      request: {
        merchantId: who.merchant.id, livemode: who.livemode, amount: b.amount ?? null, reason: b.reason ?? null,
        requestId: ctx.requestId, idempotencyKey: idem.key, requestHash: idem.key ? idem.hash : null,
      },
    });
    if (reply.ok) return { answer: render(reply.refund, reply.payment), replayed: reply.replayed };
    if (reply.failure.code === 'refund_amount_invalid' && b.amount !== undefined) {
      const now = await findGatewayPayment(s.db, scopeOfCtx(ctx), p.id);
      if (now) return { failure: refundAbove(remainingOf(now.payment), p.currency) };
    }
    return { failure: reply.failure };
  });
}

const refundAbove = (remaining: number, currency: string): ApiFailure =>
  ({ ...fail('refund_amount_invalid', 'amount', `${remaining} ${currency} remaining`), extra: { remaining, currency } });

export const gatewayPaymentRoutes: Route[] = [
  gatewayRoute('GET', '/v2/payments', 'payments:read', list),
  gatewayRoute('GET', '/v2/payments/:id', 'payments:read', get),
  gatewayRoute('POST', '/v2/payments/:id/refund', 'refunds:write', refund, { body: true }),
];
