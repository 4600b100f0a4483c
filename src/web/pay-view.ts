// The markup of the hosted payment page: header, language switch, method tabs and their panels,
// and the outcome screens. Server-rendered; the script only adds behaviour.
import { nextActionView } from '../api/checkout-view.js';
import type { EffectiveMethod } from '../domain/catalog.js';
import { OPEN, sessionStatus, type CheckoutState } from '../domain/checkout.js';
import { DEFAULT_AUTO_RETURN_SECONDS, sessionReturnUrl } from '../domain/checkout-session.js';
import { merchantStatus, type Payment } from '../domain/payment.js';
import { messageFor } from '../errors.js';
import { frameHeightTags } from './frame-height.js';
import { escapeHtml, formatAmount, jsonForHtml, layout } from './html.js';
import { brandName, FAILURE_TEXTS, METHOD_NAMES, PAGE_LANGS, TEXTS, type PageLang } from './i18n.js';
import { PAY_SCRIPT } from './pay-script.js';
import { tabRowClasses } from './tab-rows.js';
import { CSS } from './style.js';

/** A bank of the SBP list, as the page shows it. */
export interface SbpBank { member_id: string; name: Record<PageLang, string> }

export interface PayPageModel {
  payment: Payment;
  checkout: CheckoutState;
  methods: EffectiveMethod[];
  fallback: boolean;
  savedCards: { id: string; card: { brand: string; last4: string } }[];
  sbpMembers: SbpBank[];
  lang: PageLang;
  nonce: string;
  autoReturnMs: number;
  /** The allowlisted origin of the merchant page framing this one (embedded form), else null. */
  parentOrigin: string | null;
  /** The service's own origin (PUBLIC_BASE_URL's): its next-action pages (the sandbox bank's) get the page's language. */
  serviceOrigin: string;
  /** A gateway session's channel branding (over the merchant's defaults), else null. */
  branding?: { logoUrl: string | null; primaryColor: string | null; customTitle: string | null } | null;
}

export const AUTO_RETURN_MS = 5000;

/** return_url with payment_id and status added (display only: the webhook or a status read is the truth). */
export function returnLink(p: Payment): string | null {
  const paid = p.status === 'succeeded' || p.status === 'refunded' || p.status === 'partially_refunded';
  // A gateway session: success_url after a success, cancel_url after anything else.
  const target = p.session ? sessionReturnUrl(p.session, paid) : p.returnUrl;
  if (!target) return null;
  try {
    const u = new URL(target);
    u.searchParams.set(p.session ? 'session_id' : 'payment_id', p.id);
    // Each API's own status words: the session's for a gateway session, the merchant API's seven otherwise.
    u.searchParams.set('status', p.session ? sessionStatus(p.status, OPEN) : merchantStatus(p.status));
    return u.toString();
  } catch { return null; }
}

function langSwitch(id: string, lang: PageLang, parentOrigin: string | null): string {
  const t = TEXTS[lang];
  const embed = parentOrigin ? `&amp;origin=${encodeURIComponent(parentOrigin)}` : '';
  return `<nav class="langs" aria-label="${t.language}">${PAGE_LANGS.map((l) =>
    `<a href="/pay/${encodeURIComponent(id)}?lang=${l}${embed}" hreflang="${l}" lang="${l}"${l === lang ? ' aria-current="true"' : ''}>${l.toUpperCase()}</a>`).join('')}</nav>`;
}

function outcome(p: Payment, lang: PageLang, framed: boolean): string {
  const t = TEXTS[lang];
  const ok = p.status === 'succeeded' || p.status === 'refunded' || p.status === 'partially_refunded';
  const title = ok ? t.succeeded : p.status === 'failed' ? t.failed : p.status === 'expired' ? t.expired : p.status === 'cancelled' ? t.cancelled : t.closed;
  const detail = ok && p.card ? `<p class="muted">${t.paidWith} ${escapeHtml(brandName(p.card.brand, lang))} •••• ${escapeHtml(p.card.last4)}</p>`
    : p.failure ? `<p id="failure" data-code="${p.failure.code}">${escapeHtml(FAILURE_TEXTS[lang][p.failure.code])}</p>` : '';
  const back = returnLink(p);
  return `<section class="outcome ${ok ? 'ok' : 'bad'}" id="outcome" data-status="${p.status}" role="status" aria-live="polite">
<div class="icon" aria-hidden="true">${ok ? '✓' : '✕'}</div><h2>${title}</h2>${detail}
${back ? `<p class="muted">${t.returnIn}</p><a class="primary" id="return" href="${escapeHtml(back)}"${framed ? ' target="_top"' : ''}>${t.returnNow}</a>` : ''}</section>`;
}

/** Where the card form's own check says what is wrong with one field (filled by the page script). */
const fieldError = (input: string) => `<p class="error field-error" id="${input}-error" hidden></p>`;

function panel(m: EffectiveMethod, model: PayPageModel, first: boolean): string {
  const t = TEXTS[model.lang];
  const name = METHOD_NAMES[model.lang][m.method];
  const amount = escapeHtml(formatAmount(model.payment.amount, model.payment.currency, model.lang));
  const head = `<div role="tabpanel" id="panel-${m.method}" aria-labelledby="tab-${m.method}"${first ? '' : ' hidden'}>`;
  switch (m.method) {
    case 'card':
      return `${head}<form id="card-form" novalidate autocomplete="on">
<label for="cc-number">${t.cardNumber}</label><input id="cc-number" name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" required aria-describedby="cc-number-error">${fieldError('cc-number')}
<div class="row"><div><label for="cc-exp">${t.expiry}</label><input id="cc-exp" name="exp" inputmode="numeric" autocomplete="cc-exp" placeholder="${t.expiryPlaceholder}" maxlength="7" required aria-describedby="cc-exp-error">${fieldError('cc-exp')}</div>
<div><label for="cc-cvc">${t.cvc}</label><input id="cc-cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required aria-describedby="cc-cvc-error">${fieldError('cc-cvc')}</div></div>
<label for="cc-holder">${t.holder}</label><input id="cc-holder" name="holder" autocomplete="cc-name" maxlength="100">
<button class="primary" type="submit" id="pay-card">${model.payment.session?.buttonText ? escapeHtml(model.payment.session.buttonText) : `${t.pay} ${amount}`}</button></form></div>`;
    case 'sbp':
      return `${head}<form data-method="sbp"><button class="primary" type="submit" id="sbp-start">${t.showQr}</button></form>
<div id="sbp-qr" hidden><p>${t.scan}</p><img id="qr-img" class="qr" alt="${t.qrAlt}">
<ul class="banks" id="banks">${model.sbpMembers.map((b) => `<li><a data-member="${b.member_id}" href="#">${escapeHtml(b.name[model.lang])}</a></li>`).join('')}</ul></div></div>`;
    case 'sberpay': case 'tpay': case 'yoomoney':
      return `${head}<form data-method="${m.method}">${m.method === 'yoomoney' ? '' : `<label for="phone-${m.method}">${t.phone}</label><input id="phone-${m.method}" name="phone" type="tel" autocomplete="tel" placeholder="+79001234567" maxlength="16">`}
<button class="primary" type="submit" id="go-${m.method}">${t.continueTo.replace('{name}', name)}</button></form></div>`;
    case 'recurrent':
      return `${head}<form data-method="recurrent" class="saved"><p class="muted">${t.savedCards}</p>${model.savedCards.map((c, i) =>
        `<label><input type="radio" name="saved" value="${escapeHtml(c.id)}"${i === 0 ? ' checked' : ''}>${escapeHtml(brandName(c.card.brand, model.lang))} •••• ${escapeHtml(c.card.last4)}</label>`).join('')}
<button class="primary" type="submit" id="pay-saved">${t.pay} ${amount}</button></form></div>`;
    case 'apple_pay': case 'google_pay':
      return `${head}<form data-method="${m.method}" data-name="${name}"><button class="primary" type="submit" id="go-${m.method}">${name}</button></form></div>`;
  }
}

/** A next-action address of this service (the sandbox bank) with the page's language added, so its page speaks it too. */
function withLang(url: string, model: PayPageModel): string {
  let own = false;
  try { own = new URL(url).origin === model.serviceOrigin; } catch { /* not absolute: not ours to change */ }
  return own ? `${url}${url.includes('?') ? '&' : '?'}lang=${model.lang}` : url;
}

function checkoutBody(model: PayPageModel): string {
  const t = TEXTS[model.lang];
  const { checkout } = model;
  // The saved-card tab only when this customer has a saved card to offer.
  const methods = model.methods.filter((m) => m.method !== 'recurrent' || model.savedCards.length > 0);
  if (methods.length === 0) return `<p role="alert">${t.noMethods}</p>`;
  const initial = model.payment.session?.initialMethod ?? null;
  const selected = methods.find((m) => m.method === checkout.method) ?? methods.find((m) => m.method === initial) ?? methods[0];
  const rows = tabRowClasses(methods.map((m) => METHOD_NAMES[model.lang][m.method]));
  const tabs = `<div role="tablist" aria-label="${t.methods}">${methods.map((m, i) => {
    const on = m === selected;
    return `<button role="tab" type="button" class="${rows[i]}" id="tab-${m.method}" aria-controls="panel-${m.method}" aria-selected="${on}" tabindex="${on ? 0 : -1}">${METHOD_NAMES[model.lang][m.method]}</button>`;
  }).join('')}</div>`;
  const threeDs = checkout.awaiting === 'three_ds' && checkout.nextAction?.type === 'three_ds_challenge'
    ? `<a class="primary" id="continue-3ds" href="${escapeHtml(withLang(`${checkout.nextAction.acs_url}?creq=${encodeURIComponent(checkout.nextAction.creq)}${model.parentOrigin ? `&origin=${encodeURIComponent(model.parentOrigin)}` : ''}`, model))}">${t.threeDs}</a>` : '';
  const wallet = checkout.awaiting === 'wallet' && checkout.nextAction?.type === 'redirect'
    ? `<a class="primary" id="continue-wallet" href="${escapeHtml(withLang(checkout.nextAction.redirect_url, model))}">${t.toWallet}</a>` : '';
  const cancel = model.payment.session ? `<button class="secondary" type="button" id="cancel-session">${t.cancelSession}</button>` : '';
  return `${model.fallback ? `<p class="muted">${t.fallback}</p>` : ''}${tabs}${methods.map((m) => panel(m, model, m === selected)).join('')}${threeDs}${wallet}${cancel}
<p id="error" class="error" role="alert" tabindex="-1" hidden></p>
<div id="status" class="status" role="status" aria-live="polite" hidden><span class="spinner" aria-hidden="true"></span><span id="status-text"></span></div>
<dialog id="wallet-dialog" aria-labelledby="wallet-name"><form method="dialog"><h2 id="wallet-name"></h2><p>${t.walletConfirm}</p><p class="muted">${t.sandbox}</p>
<button class="primary" value="approve" id="wallet-approve">${t.approve}</button><button class="secondary" value="decline" id="wallet-decline">${t.decline}</button><button class="secondary" value="cancel">${t.cancel}</button></form></dialog>`;
}

export function renderPayPage(model: PayPageModel): string {
  const { payment: p, lang, nonce } = model;
  const t = TEXTS[lang];
  const pending = p.status === 'pending';
  // Framed: the merchant page gets the outcome by postMessage; no automatic return inside the frame.
  const framed = model.parentOrigin !== null;
  const session = p.session;
  const paid = p.status === 'succeeded' || p.status === 'refunded' || p.status === 'partially_refunded';
  // A gateway session returns by itself after a success (settings.auto_return seconds; 0 stays) and at
  // once after the customer cancelled; a failed or expired one stays on its screen (with the link).
  const stays = session !== null && ((paid && session.autoReturn === 0) || (!paid && p.status !== 'cancelled'));
  const autoMs = session ? (paid ? (session.autoReturn ?? DEFAULT_AUTO_RETURN_SECONDS) * 1000 : 0) : model.autoReturnMs;
  const back = pending || framed || stays ? null : returnLink(p);
  const brand = model.branding ?? null;
  const data = {
    id: p.id, lang, t: { waiting: t.waiting, processing: t.processing, error: t.error },
    fieldErrors: { number: messageFor('card_number_invalid', lang), exp: messageFor('card_expiry_invalid', lang), cvc: messageFor('card_cvc_invalid', lang) },
    awaiting: pending ? model.checkout.awaiting : null, nextAction: pending ? nextActionView(model.checkout.nextAction) : null,
    // The embedded form's callbacks get the merchant API's status (a session's page reports its own).
    returnTo: back, autoReturnMs: autoMs, status: session ? p.status : merchantStatus(p.status), parentOrigin: model.parentOrigin, service: model.serviceOrigin,
  };
  const body = `<main><div class="top">${p.livemode ? '<span></span>' : `<span class="badge">${t.testMode}</span>`}${langSwitch(p.id, lang, model.parentOrigin)}</div>
<div class="box">${brand?.logoUrl ? `<img class="logo" id="brand-logo" src="${escapeHtml(brand.logoUrl)}" alt="">` : ''}${brand?.customTitle ? `<p class="brand" id="brand-title">${escapeHtml(brand.customTitle)}</p>` : ''}<h1>${escapeHtml(p.description ?? t.title)}</h1>${p.orderId ? `<p class="muted">${t.order} ${escapeHtml(p.orderId)}</p>` : ''}
<p class="amount" id="amount"><span class="sr">${t.amount}: </span>${escapeHtml(formatAmount(p.amount, p.currency, lang))}</p>
${pending ? checkoutBody(model) : outcome(p, lang, framed)}</div></main>
<script type="application/json" id="pe-data">${jsonForHtml(data)}</script><script nonce="${nonce}">${PAY_SCRIPT}</script>${frameHeightTags(p.id, model.parentOrigin, nonce)}`;
  // primary_color is #RRGGBB (checked when the channel was saved), so it cannot break out of the rule.
  const accent = brand?.primaryColor && /^#[0-9a-fA-F]{6}$/.test(brand.primaryColor)
    ? `button.primary,a.primary{background:${brand.primaryColor}}` : '';
  return layout(lang, `${brand?.customTitle ?? t.title} · ${formatAmount(p.amount, p.currency, lang)}`, nonce, CSS + BRAND_CSS + accent, body);
}

const BRAND_CSS = '.logo{display:block;max-height:48px;max-width:60%;margin:0 0 .5rem}.brand{font-weight:600;margin:0 0 .25rem}';

export function renderNotFound(lang: PageLang, nonce: string): string {
  return layout(lang, TEXTS[lang].title, nonce, CSS, `<main><div class="box"><h1>${TEXTS[lang].notFound}</h1></div></main>`);
}
