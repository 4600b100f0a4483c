// Merchant API payment endpoints: create, retrieve (by id or order_id), list, ping.
import { CreatePaymentRequest, CREATE_PAYMENT_FIELD_CODES } from '../../api/merchant-payments.js';
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { compile, dropNulls } from '../../api/validate.js';
import { PAYMENT_ID_RE, paymentId } from '../../domain/ids.js';
import { applyPaymentRules, type PaymentInput } from '../../domain/payment-rules.js';
import { fail } from '../../errors.js';
import { findPaymentByOrder } from '../../store/payments-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { createMailbox, idempotencyOf, runIdempotent } from '../idempotent.js';
import { clockForCreate } from '../test-clock-ref.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import { listPaymentsHandler } from './merchant-payments-list.js';

export const API_VERSION = '2026-09-22';

const validateCreate = compile(CreatePaymentRequest, CREATE_PAYMENT_FIELD_CODES);

async function createPayment(ctx: Ctx, s: Services, raw: unknown): Promise<void> {
  const who = ctx.auth as Principal;
  const body = dropNulls(raw);
  const checked = validateCreate(body);
  if (!checked.ok) return sendFailure(ctx, checked.failure);
  // Test mode on the embedded default also takes a loopback return_url, as webhooks do there.
  const rules = applyPaymentRules(checked.value as PaymentInput, who.merchant, 'api', { loopbackReturnUrl: !who.livemode && s.config.webhooks.allowLoopbackTest === true });
  if (!rules.ok) return sendFailure(ctx, fail(rules.code, rules.param, rules.detail));
  const clock = await clockForCreate(s, who, checked.value.test_clock);
  if ('code' in clock) return sendFailure(ctx, clock);

  const idem = idempotencyOf(ctx, { merchantId: who.merchant.id, livemode: who.livemode }, 'payment', '/api/v2/payments', body);
  if ('code' in idem) return sendFailure(ctx, idem);
  const idemKey = idem.key;
  const hash = idemKey ? idem.hash : null;
  await runIdempotent(ctx, s, idem, async () => {
    const id = paymentId(Date.now());
    const reply = await s.dispatcher.send({
      kind: 'payment.create', id, input: rules.value, mailbox: createMailbox(idem), answer: { scope: idemKey ? idem.scope : null, hash },
      ctx: {
        id, merchantId: who.merchant.id, livemode: who.livemode,
        fees: { feeBps: who.merchant.feeBps, feeFixed: who.merchant.feeFixed },
        windowSeconds: s.config.paymentWindowSeconds, requestId: ctx.requestId,
        idempotencyKey: idemKey, requestHash: hash, testClockId: clock.testClockId,
      },
    });
    // replayed: Postgres already held the key for this request.
    return reply.ok ? { answer: reply.answer, replayed: reply.replayed, cached: reply.cached } : { failure: reply.failure };
  });
}

async function getPayment(ctx: Ctx, s: Services): Promise<void> {
  const who = ctx.auth as Principal;
  const ref = ctx.params[0];
  if (!ref || ref.length > 128) return sendFailure(ctx, fail('payment_not_found', 'id'));
  // By id through the grouped reads (one statement for the id reads that arrive together); another
  // merchant's or mode's payment is not found. Else the latest payment with that order number.
  let p = PAYMENT_ID_RE.test(ref) ? await s.reads.payment(ref) : null;
  if (p && (p.merchantId !== who.merchant.id || p.livemode !== who.livemode)) p = null;
  p ??= await findPaymentByOrder(s.db, who.merchant.id, who.livemode, ref);
  if (!p) return sendFailure(ctx, fail('payment_not_found', 'id'));
  sendJson(ctx, 200, toMerchantPayment(p, s.config.publicBaseUrl, ctx.requestId));
}

function ping(ctx: Ctx): void {
  const who = ctx.auth as Principal;
  sendJson(ctx, 200, { object: 'ping', ok: true, livemode: who.livemode, merchant_id: who.merchant.id, api_version: API_VERSION, request_id: ctx.requestId });
}

export const merchantPaymentRoutes: Route[] = [
  { method: 'POST', path: '/api/v2/payments', api: 'merchant', auth: 'merchant', body: true, handler: createPayment },
  { method: 'GET', path: '/api/v2/payments', api: 'merchant', auth: 'merchant', handler: listPaymentsHandler },
  { method: 'GET', path: '/api/v2/payments/:id', api: 'merchant', auth: 'merchant', handler: getPayment },
  { method: 'GET', path: '/api/v2/ping', api: 'merchant', auth: 'merchant', handler: ping },
];
