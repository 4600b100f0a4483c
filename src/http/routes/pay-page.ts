// GET /pay/{id}: the hosted payment page of a payment (its checkout_url). Server-rendered in the
// payment's locale (switchable with ?lang=), with the methods of its effective catalog.
// Framable by the merchant's allowlisted origins only (frame-ancestors); `?origin=` (set by the
// embedded-form script) names the parent, and the page reports its outcome to it only when that
// origin is on the allowlist (src/domain/frame-origins.ts).
import { isCheckoutId } from '../../domain/ids.js';
import { findChannel } from '../../store/channels-repo.js';
import { customerKeyOf, listSavedCards, loadCheckout } from '../../store/checkout-repo.js';
import { newNonce } from '../../web/html.js';
import { AUTO_RETURN_MS, renderNotFound, renderPayPage } from '../../web/pay-view.js';
import { effectiveMethods } from '../catalog.js';
import type { Ctx } from '../context.js';
import { framingOf } from '../framing.js';
import { activeSbpMembers } from '../sbp-list.js';
import { pageLang, sendFramableHtml, sendHtml } from '../html-reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

async function payPage(ctx: Ctx, s: Services) {
  const id = ctx.params[0];
  const nonce = newNonce();
  const found = isCheckoutId(id) ? await loadCheckout(s.db, id) : null;
  if (!found) return sendHtml(ctx, 404, renderNotFound(pageLang(ctx, null), nonce), nonce);
  const { payment, checkout } = found;
  const asked = new URLSearchParams(ctx.query).get('origin');
  const { allowlist, parentOrigin } = await framingOf(s, payment.merchantId, asked);
  if (asked && !parentOrigin) {
    // The browser will show an empty frame and tell the page nothing: the log says why.
    s.log.warn({ requestId: ctx.requestId, paymentId: id, merchantId: payment.merchantId, origin: asked.slice(0, 200) },
      `hosted page framed from origin ${asked.slice(0, 200)}, which is not on merchant ${payment.merchantId}'s allowed_domains: the browser refuses the frame (frame-ancestors)`);
  }
  const lang = pageLang(ctx, payment.locale);
  const pending = payment.status === 'pending';
  const eff = pending ? await effectiveMethods(s, payment) : { methods: [], fallback: false };
  const has = (m: string) => eff.methods.some((x) => x.method === m);
  const customer = customerKeyOf(payment);
  const savedCards = has('recurrent') && customer ? await listSavedCards(s.db, payment.merchantId, payment.livemode, customer) : [];
  // Fails open (logged in sbp-list.ts): without the list the page shows the QR code alone.
  const sbpMembers = has('sbp') ? (await activeSbpMembers(s)).members : [];
  // A gateway session shows its channel's branding over the merchant's defaults.
  const channel = payment.channelId
    ? await findChannel(s.db, { merchantId: payment.merchantId, livemode: payment.livemode }, { by: 'id', value: payment.channelId }).catch(() => null)
    : null;
  const b = channel?.branding;
  const branding = b ? { logoUrl: b.logo_url ?? null, primaryColor: b.primary_color ?? null, customTitle: b.custom_title ?? null } : null;
  const html = renderPayPage({ payment, checkout, methods: eff.methods, fallback: eff.fallback, savedCards, sbpMembers, lang, nonce, autoReturnMs: AUTO_RETURN_MS, parentOrigin, branding,
    serviceOrigin: new URL(s.config.publicBaseUrl).origin });
  sendFramableHtml(ctx, 200, html, nonce, allowlist, branding?.logoUrl ? new URL(branding.logoUrl).origin : null);
}

export const payPageRoutes: Route[] = [
  { method: 'GET', path: '/pay/:id', api: 'web', auth: 'none', handler: payPage },
];
