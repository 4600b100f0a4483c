// Test helpers (test mode only; 404 with a live key): force the outcome of a pending payment as
// the sandbox bank would report it.
//   merchant API: POST /api/v2/test/payments/{id}/complete   with a svc_test_ key
//   gateway API:  POST /v2/test/checkout/{id}/complete       with a sk_test_ key (or rk_test_ with payments:write) of the same merchant
import { TestCompleteRequest, TEST_COMPLETE_FIELD_CODES } from '../../api/checkout.js';
import { checkoutStatusView } from '../../api/checkout-view.js';
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { compile } from '../../api/validate.js';
import { isCheckoutId } from '../../domain/ids.js';
import { fail } from '../../errors.js';
import { loadCheckout } from '../../store/checkout-repo.js';
import type { Principal } from '../auth.js';
import type { Ctx } from '../context.js';
import { gatewayRoute, principalOf } from '../gateway.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validate = compile(TestCompleteRequest, TEST_COMPLETE_FIELD_CODES);

async function complete(s: Services, merchantId: string, id: string, raw: unknown, api: 'merchant' | 'gateway') {
  const v = validate(raw);
  if (!v.ok) return { failure: v.failure };
  const found = isCheckoutId(id) ? await loadCheckout(s.db, id) : null;
  // A gateway session is not the merchant API's payment (the gateway helper completes both: the
  // hosted checkout of a merchant API payment is also the gateway's public checkout).
  const own = found !== null && (api === 'gateway' || found.payment.session === null);
  if (!found || !own || found.payment.merchantId !== merchantId || found.payment.livemode) return { failure: fail('payment_not_found', 'id') };
  const reply = await s.dispatcher.send({ kind: 'checkout.complete', id, outcome: v.value.outcome, failureCode: v.value.failure_code ?? null });
  if (!reply.ok) return { failure: reply.failure };
  return { reply };
}

async function merchantComplete(ctx: Ctx, s: Services, raw: unknown) {
  const who = ctx.auth as Principal;
  if (who.livemode) return sendFailure(ctx, fail('route_not_found', null, 'test helpers exist in test mode only'));
  const r = await complete(s, who.merchant.id, ctx.params[0], raw, 'merchant');
  if (r.failure) {
    // The merchant API names an unsuitable status payment_not_payable (409).
    return sendFailure(ctx, r.failure.code === 'checkout_closed' ? fail('payment_not_payable') : r.failure);
  }
  sendJson(ctx, 200, toMerchantPayment(r.reply!.payment, s.config.publicBaseUrl, ctx.requestId));
}

/** Behind the gateway gate: a secret key, or a restricted key with payments:write. */
async function gatewayComplete(ctx: Ctx, s: Services, raw: unknown) {
  const who = principalOf(ctx);
  if (who.livemode) return sendFailure(ctx, fail('route_not_found', null, 'test helpers exist in test mode only'));
  const r = await complete(s, who.merchant.id, ctx.params[0], raw, 'gateway');
  if (r.failure) return sendFailure(ctx, r.failure);
  sendJson(ctx, 200, checkoutStatusView(r.reply!.payment, r.reply!.checkout!, ctx.requestId));
}

export const checkoutTestRoutes: Route[] = [
  { method: 'POST', path: '/api/v2/test/payments/:id/complete', api: 'merchant', auth: 'merchant', body: true, handler: merchantComplete },
  gatewayRoute('POST', '/v2/test/checkout/:id/complete', 'payments:write', gatewayComplete, { body: true }),
];
