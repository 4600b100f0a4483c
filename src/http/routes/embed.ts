// The embedded form: its script (GET /js/v1/checkout.js), the check it makes at mount (GET
// /checkout/{id}/embed-check: may this page's origin frame the payment?) and, in development only,
// the demo merchant page (GET /demo) with the endpoint its buttons use (POST /demo/payments).
import { toMerchantPayment } from '../../api/merchant-payment-view.js';
import { isCheckoutId, paymentId } from '../../domain/ids.js';
import { applyPaymentRules } from '../../domain/payment-rules.js';
import { fail } from '../../errors.js';
import { findDemoMerchant, type Merchant } from '../../store/merchants-repo.js';
import { newNonce } from '../../web/html.js';
import { demoHeaders, renderDemoPage } from '../../web/demo-page.js';
import { checkoutScript } from '../../web/embed-script.js';
import { widgetScript } from '../../web/widget-script.js';
import { send, type Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import { framingOf } from '../framing.js';

/** The origin of the checkout pages (checkout_url is built from PUBLIC_BASE_URL). */
const serviceOrigin = (s: Services): string => new URL(s.config.publicBaseUrl).origin;

let script: { origin: string; text: string } | null = null;
function checkoutJs(ctx: Ctx, s: Services): void {
  const origin = serviceOrigin(s);
  if (script?.origin !== origin) script = { origin, text: checkoutScript(origin) };
  send(ctx, 200, script.text, 'text/javascript; charset=utf-8', [
    ['Cache-Control', 'public, max-age=300'],
    ['X-Content-Type-Options', 'nosniff'],
    ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ]);
}

/** The demo merchant when the demo is enabled (DEMO_MERCHANT), else null: /demo is then not found. */
let widget: { origin: string; text: string } | null = null;

/** GET /widget/v1/widget.js: the payment widget (src/web/widget-script.ts). */
function widgetJs(ctx: Ctx, s: Services): void {
  const origin = serviceOrigin(s);
  if (widget?.origin !== origin) widget = { origin, text: widgetScript(origin) };
  send(ctx, 200, widget.text, 'text/javascript; charset=utf-8', [
    ['Cache-Control', 'public, max-age=300'],
    ['X-Content-Type-Options', 'nosniff'],
    ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ]);
}

/**
 * GET /checkout/{id}/embed-check: 200 when the requesting page's origin (the Origin header a browser
 * sets, else ?origin=) is on the payment's merchant's allowed_domains, else 403 ORIGIN_NOT_ALLOWED
 * naming the origin, logged with why. Readable from any origin: the answer tells only what the
 * hosted page's own frame-ancestors header already tells anyone holding the payment id.
 */
async function embedCheck(ctx: Ctx, s: Services): Promise<void> {
  ctx.extraHeaders.push(['Access-Control-Allow-Origin', '*'], ['Cache-Control', 'no-store']);
  const id = ctx.params[0];
  const found = isCheckoutId(id) ? await s.reads.checkout(id) : null;
  if (!found) return sendFailure(ctx, fail('payment_not_found', 'id'));
  const origin = (ctx.headers.origin ?? new URLSearchParams(ctx.query).get('origin') ?? '').slice(0, 200);
  if (!origin) return sendFailure(ctx, fail('parameter_missing', 'origin', 'the Origin header or ?origin= of the embedding page'));
  const merchantId = found.payment.merchantId;
  const { parentOrigin } = await framingOf(s, merchantId, origin);
  if (!parentOrigin) {
    s.log.warn({ requestId: ctx.requestId, paymentId: id, merchantId, origin },
      `embedded form refused: origin ${origin} is not on merchant ${merchantId}'s allowed_domains, so the browser will not show the checkout in its frame`);
    return sendFailure(ctx, fail('origin_not_allowed', 'Origin', `${origin} is not on the merchant's allowed_domains`));
  }
  sendJson(ctx, 200, { origin: parentOrigin, allowed: true, request_id: ctx.requestId });
}

async function demoMerchant(s: Services): Promise<Merchant | null> {
  return s.config.demoMerchant ? findDemoMerchant(s.db) : null;
}

async function demoPage(ctx: Ctx, s: Services): Promise<void> {
  const m = await demoMerchant(s);
  if (!m) return sendFailure(ctx, fail('route_not_found', null, `${ctx.method} ${ctx.path}`));
  const nonce = newNonce();
  const origin = serviceOrigin(s);
  send(ctx, 200, renderDemoPage(nonce, origin, m.name), 'text/html; charset=utf-8', demoHeaders(nonce, origin));
}

async function demoPayment(ctx: Ctx, s: Services): Promise<void> {
  const m = await demoMerchant(s);
  if (!m) return sendFailure(ctx, fail('route_not_found', null, `${ctx.method} ${ctx.path}`));
  const rules = applyPaymentRules({ amount: 4900, currency: 'AZN', description: 'Demo order' }, m, 'api');
  if (!rules.ok) return sendFailure(ctx, fail(rules.code, rules.param));
  const id = paymentId(Date.now());
  const reply = await s.dispatcher.send({
    kind: 'payment.create', id, input: rules.value,
    ctx: {
      id, merchantId: m.id, livemode: false, fees: { feeBps: m.feeBps, feeFixed: m.feeFixed },
      windowSeconds: s.config.paymentWindowSeconds, requestId: ctx.requestId, idempotencyKey: null, requestHash: null,
    },
  });
  if (!reply.ok) return sendFailure(ctx, reply.failure);
  sendJson(ctx, 201, toMerchantPayment(reply.payment, s.config.publicBaseUrl, ctx.requestId));
}

export const embedRoutes: Route[] = [
  { method: 'GET', path: '/js/v1/checkout.js', api: 'gateway', auth: 'none', handler: checkoutJs },
  { method: 'GET', path: '/widget/v1/widget.js', api: 'gateway', auth: 'none', handler: widgetJs },
  { method: 'GET', path: '/checkout/:id/embed-check', api: 'gateway', auth: 'none', handler: embedCheck },
  { method: 'GET', path: '/demo', api: 'gateway', auth: 'none', handler: demoPage },
  { method: 'POST', path: '/demo/payments', api: 'gateway', auth: 'none', handler: demoPayment },
];
