// Merchant API refund endpoints: POST /api/v2/payments/{id}/refunds (Idempotency-Key, through the
// payment's actor) and GET /api/v2/payments/{id}/refunds (newest first, in the list envelope).
import { CreateRefundRequest, CREATE_REFUND_FIELD_CODES } from '../../api/refunds.js';
import { toMerchantRefund } from '../../api/refund-view.js';
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { compile, dropNulls } from '../../api/validate.js';
import { PAYMENT_ID_RE } from '../../domain/ids.js';
import type { Payment } from '../../domain/payment.js';
import type { Refund } from '../../domain/refund.js';
import { fail, type ApiFailure } from '../../errors.js';
import { listRefunds } from '../../store/refunds-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { idempotencyOf, runIdempotent, type StoredAnswer } from '../idempotent.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateCreate = compile(CreateRefundRequest, CREATE_REFUND_FIELD_CODES);

/** The merchant's own payment with this id, or null (another merchant's or mode's is not found). */
async function ownPayment(ctx: Ctx, s: Services): Promise<Payment | null> {
  const who = ctx.auth as Principal;
  const id = ctx.params[0];
  if (!id || !PAYMENT_ID_RE.test(id)) return null;
  const p = await s.reads.payment(id);
  return p && p.merchantId === who.merchant.id && p.livemode === who.livemode ? p : null;
}

async function createRefund(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const who = ctx.auth as Principal;
  const id = ctx.params[0];
  if (!id || !PAYMENT_ID_RE.test(id)) return sendFailure(ctx, fail('payment_not_found', 'id'));
  // The payment's actor checks that the payment is this merchant's (in this mode) on its own read,
  // so the payment is read here only when the request is refused, to answer 404 before 400.
  const body = dropNulls(raw);
  const checked = validateCreate(body);
  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'refund', `/api/v2/payments/${id}/refunds`, body);
  if (!checked.ok || 'code' in idem) {
    if (!await ownPayment(ctx, s)) return sendFailure(ctx, fail('payment_not_found', 'id'));
    return sendFailure(ctx, !checked.ok ? checked.failure : idem as ApiFailure);
  }
  const idemKey = idem.key;
  const hash = idemKey ? idem.hash : null;
  const base = s.config.publicBaseUrl;
  // request_id, here and in the nested payment, names the request that made the refund (replays too).
  const render = (r: Refund, p: Payment): StoredAnswer => ({
    status: 201, requestId: r.requestId,
    body: JSON.stringify({ object: 'refund_result', refund: toMerchantRefund(r), payment: toMerchantPayment(p, base, r.requestId), request_id: r.requestId }),
  });
  // Refunds run in their payment's mailbox (the payment's actor arbitrates the key in Postgres).
  await runIdempotent(ctx, s, idem, async () => {
    const reply = await s.dispatcher.send({
      kind: 'payment.refund', id,
      request: {
        merchantId: who.merchant.id, livemode: who.livemode, amount: checked.value.amount ?? null, reason: checked.value.reason ?? null,
        requestId: ctx.requestId, idempotencyKey: idemKey, requestHash: hash,
      },
    });
    // The merchant API's error object has no extra fields (the gateway's refusal lists the remaining amount).
    return reply.ok ? { answer: render(reply.refund, reply.payment), replayed: reply.replayed } : { failure: { ...reply.failure, extra: undefined } };
  });
}

async function listPaymentRefunds(ctx: Ctx, s: Services): Promise<void> {
  const payment = await ownPayment(ctx, s);
  if (!payment) return sendFailure(ctx, fail('payment_not_found', 'id'));
  const q = new URLSearchParams(ctx.query);
  for (const k of q.keys()) if (k !== 'limit' && k !== 'starting_after') return sendFailure(ctx, fail('parameter_unknown', k));
  let limit = 25;
  if (q.has('limit')) {
    const rawLimit = q.get('limit')!;
    limit = /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= 100)) return sendFailure(ctx, fail('limit_invalid', 'limit'));
  }
  const after = q.get('starting_after');
  const notOurs = fail('cursor_invalid', 'starting_after', 'not a refund of this payment');
  if (after !== null && !/^ref_[0-9A-Za-z]{1,60}$/.test(after)) return sendFailure(ctx, notOurs);
  const page = await listRefunds(s.db, payment.id, limit, after);
  if (!page) return sendFailure(ctx, notOurs);
  sendJson(ctx, 200, {
    object: 'list',
    data: page.refunds.map(toMerchantRefund),
    has_more: page.hasMore,
    next_cursor: page.hasMore ? page.refunds[page.refunds.length - 1].id : null,
    request_id: ctx.requestId,
  });
}

export const merchantRefundRoutes: Route[] = [
  { method: 'POST', path: '/api/v2/payments/:id/refunds', api: 'merchant', auth: 'merchant', body: true, handler: createRefund },
  { method: 'GET', path: '/api/v2/payments/:id/refunds', api: 'merchant', auth: 'merchant', handler: listPaymentRefunds },
];
