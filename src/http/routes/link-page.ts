// The payment link page (`url` of a payment link): GET shows the link; its form POSTs here, which asks
// the link's actor for a payment (source `link`) and continues in the hosted checkout (/pay/{id}).
// A link that cannot be paid (deactivated, expired, every use paid or held) says so and creates nothing.
import { linkUrl } from '../../api/links.js';
import { LINK_ID_RE } from '../../domain/ids.js';
import { refusalOf, showsQrCode, type Link, type LinkRefusal } from '../../domain/link.js';
import { parseMajorAmount } from '../../domain/money.js';
import { qrSvgDataUrl } from '../../domain/qr.js';
import { ERRORS, messageFor } from '../../errors.js';
import { findLink } from '../../store/links-repo.js';
import { getMerchant, type Merchant } from '../../store/merchants-repo.js';
import { escapeHtml, layout, newNonce } from '../../web/html.js';
import { isPageLang, LINK_TEXTS, type PageLang } from '../../web/i18n.js';
import { renderLinkNotFound, renderLinkPage } from '../../web/link-view.js';
import { CSS } from '../../web/style.js';
import { readBody, type Ctx } from '../context.js';
import { pageLang, redirect, sendHtml } from '../html-reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';
import { nowFor } from '../test-clock-ref.js';

const FORM_LIMIT = 2048;
const REFUSALS = new Set(['link_inactive', 'link_expired', 'link_exhausted', 'link_busy']);

async function load(ctx: Ctx, s: Services, lang: PageLang): Promise<{ link: Link; merchant: Merchant } | null> {
  const id = ctx.params[0];
  const link = LINK_ID_RE.test(id) ? await findLink(s.db, id) : null;
  const merchant = link ? await getMerchant(s.db, link.merchantId) : null;
  if (!link || !merchant) {
    const nonce = newNonce();
    sendHtml(ctx, 404, renderLinkNotFound(lang, nonce), nonce);
    return null;
  }
  return { link, merchant };
}

function show(ctx: Ctx, s: Services, status: number, link: Link, merchantName: string, lang: PageLang,
  refusal: LinkRefusal | null, typed: string | null = null, amountError = false): void {
  const nonce = newNonce();
  const qr = showsQrCode(link) && !refusal ? qrSvgDataUrl(linkUrl(s.config.publicBaseUrl, link.id)) : null;
  sendHtml(ctx, status, renderLinkPage({ link, merchantName, lang, nonce, refusal, typed, amountError, qr }), nonce);
}

async function linkPage(ctx: Ctx, s: Services): Promise<void> {
  const lang = pageLang(ctx, null);
  const found = await load(ctx, s, lang);
  if (found) show(ctx, s, 200, found.link, found.merchant.name, lang, refusalOf(found.link, await nowFor(s, found.link.testClockId)));
}

function payLink(ctx: Ctx, s: Services): Promise<void> {
  const bodyP = readBody(ctx, FORM_LIMIT); // subscribed synchronously, before any await
  return (async () => {
    const raw = await bodyP;
    if (raw === 'aborted') return;
    if (raw === 'too_large') {
      // The body may be left unread: answer and close the connection; nothing is created.
      const lang = pageLang(ctx, null);
      const nonce = newNonce();
      return sendHtml(ctx, 413, layout(lang, LINK_TEXTS[lang].title, nonce, CSS,
        `<main><div class="box"><p id="link-error" data-code="body_too_large" role="alert">${escapeHtml(messageFor('body_too_large', lang))}</p></div></main>`), nonce, true);
    }
    const form = new URLSearchParams(raw);
    const asked = form.get('lang');
    const lang = isPageLang(asked) ? asked : pageLang(ctx, null);
    const found = await load(ctx, s, lang);
    if (!found) return;
    const { link, merchant } = found;
    const merchantName = merchant.name;
    const typed = form.get('amount');
    let amount: number | null = null;
    if (link.amount === null) {
      amount = typed === null ? null : parseMajorAmount(typed, link.currency);
      const refusal = refusalOf(link, await nowFor(s, link.testClockId));
      if (amount === null && !refusal) return show(ctx, s, 422, link, merchantName, lang, null, typed?.slice(0, 20) ?? '', true);
    }
    const reply = await s.dispatcher.send({
      kind: 'link.pay', id: link.id, amount,
      ctx: { fees: { feeBps: merchant.feeBps, feeFixed: merchant.feeFixed }, windowSeconds: s.config.paymentWindowSeconds, requestId: ctx.requestId, locale: lang },
    });
    s.log.info({ requestId: ctx.requestId, linkId: link.id, ok: reply.ok, result: reply.ok ? reply.payment.id : reply.failure.code }, 'payment link paid');
    if (reply.ok) return redirect(ctx, `/pay/${encodeURIComponent(reply.payment.id)}`);
    const code = reply.failure.code;
    if (REFUSALS.has(code)) return show(ctx, s, ERRORS[code].status, link, merchantName, lang, code as LinkRefusal);
    if (code === 'amount_invalid') return show(ctx, s, 422, link, merchantName, lang, null, typed?.slice(0, 20) ?? '', true);
    const nonce = newNonce();
    const headers = reply.failure.retryAfterSeconds ? ` data-retry-after="${reply.failure.retryAfterSeconds}"` : '';
    sendHtml(ctx, ERRORS[code].status, layout(lang, LINK_TEXTS[lang].title, nonce, CSS,
      `<main><div class="box"><h1>${LINK_TEXTS[lang].title}</h1><p id="link-error" data-code="${code}"${headers} role="alert">${escapeHtml(messageFor(code, lang))}</p></div></main>`), nonce);
  })();
}

export const linkPageRoutes: Route[] = [
  { method: 'GET', path: '/link/:id', api: 'web', auth: 'none', handler: linkPage },
  { method: 'POST', path: '/link/:id', api: 'web', auth: 'none', handler: payLink },
];
