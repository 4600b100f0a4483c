// Test helpers (test mode only; 404 with a live key): force the outcome of a pending payment as
// the sandbox bank would report it.
//   merchant API: POST /api/v2/test/payments/{id}/complete   with a svc_test_ key
//   gateway API:  POST /v2/test/checkout/{id}/complete       with a sk_test_ secret key of the same merchant
import { TestCompleteRequest, TEST_COMPLETE_FIELD_CODES } from '../../api/checkout.js';
import { checkoutStatusView } from '../../api/checkout-view.js';
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { compile } from '../../api/validate.js';
import { hashKey, PAYMENT_ID_RE } from '../../domain/ids.js';
import { fail, type ApiFailure } from '../../errors.js';
import { loadCheckout } from '../../store/checkout-repo.js';
import { findActiveKey } from '../../store/merchants-repo.js';
import { bearer, type Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validate = compile(TestCompleteRequest, TEST_COMPLETE_FIELD_CODES);

async function complete(s: Services, merchantId: string, id: string, raw: unknown) {
  const v = validate(raw);
  if (!v.ok) return { failure: v.failure };
  const found = PAYMENT_ID_RE.test(id) ? await loadCheckout(s.db, id) : null;
  if (!found || found.payment.merchantId !== merchantId || found.payment.livemode) return { failure: fail('payment_not_found', 'id') };
  const reply = await s.dispatcher.send({ kind: 'checkout.complete', id, outcome: v.value.outcome, failureCode: v.value.failure_code ?? null });
  if (!reply.ok) return { failure: reply.failure };
  return { reply };
}

async function merchantComplete(ctx: Ctx, s: Services, raw: unknown) {
  const who = ctx.auth as Principal;
  if (who.livemode) return sendFailure(ctx, fail('route_not_found', null, 'test helpers exist in test mode only'));
  const r = await complete(s, who.merchant.id, ctx.params[0], raw);
  if (r.failure) {
    // The merchant API names an unsuitable status payment_not_payable (409).
    return sendFailure(ctx, r.failure.code === 'checkout_closed' ? fail('payment_not_payable') : r.failure);
  }
  sendJson(ctx, 200, toMerchantPayment(r.reply!.payment, s.config.publicBaseUrl, ctx.requestId));
}

/** A gateway secret key (sk_test_ / sk_live_): the gateway's own authentication arrives with its endpoints. */
async function secretKey(s: Services, authorization: string | undefined): Promise<{ merchantId: string; livemode: boolean } | ApiFailure> {
  const key = bearer(authorization);
  if (!key) return fail('authentication_required');
  if (!/^sk_(test|live)_[0-9A-Za-z]{1,100}$/.test(key)) return fail('api_key_invalid');
  const found = await findActiveKey(s.db, hashKey(key));
  if (!found || found.key.kind !== 'secret') return fail('api_key_invalid');
  return { merchantId: found.merchant.id, livemode: found.key.mode === 'live' };
}

async function gatewayComplete(ctx: Ctx, s: Services, raw: unknown) {
  const who = await secretKey(s, ctx.headers.authorization);
  if ('code' in who) return sendFailure(ctx, who);
  if (who.livemode) return sendFailure(ctx, fail('route_not_found', null, 'test helpers exist in test mode only'));
  const r = await complete(s, who.merchantId, ctx.params[0], raw);
  if (r.failure) return sendFailure(ctx, r.failure);
  sendJson(ctx, 200, checkoutStatusView(r.reply!.payment, r.reply!.checkout!, ctx.requestId));
}

export const checkoutTestRoutes: Route[] = [
  { method: 'POST', path: '/api/v2/test/payments/:id/complete', api: 'merchant', auth: 'merchant', body: true, handler: merchantComplete },
  { method: 'POST', path: '/v2/test/checkout/:id/complete', api: 'gateway', auth: 'none', body: true, handler: gatewayComplete },
];
