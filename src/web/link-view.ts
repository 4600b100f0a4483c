// The markup of the payment link page: the merchant, the description, the amount (or a field where
// the payer enters it), and a plain form POST that creates the payment and continues in the hosted
// checkout. A link that cannot be paid says why and has no form. No script: nothing to run.
import { currencyExponent, MAX_AMOUNT } from '../domain/money.js';
import type { Link, LinkRefusal } from '../domain/link.js';
import { escapeHtml, formatAmount, layout } from './html.js';
import { LINK_TEXTS, PAGE_LANGS, TEXTS, type PageLang } from './i18n.js';
import { CSS } from './style.js';

export interface LinkPageModel {
  link: Link;
  merchantName: string;
  lang: PageLang;
  nonce: string;
  /** Why it cannot be paid now, or null. */
  refusal: LinkRefusal | null;
  /** The payer's amount as typed, when it was refused. */
  typed: string | null;
  amountError: boolean;
  /** QR code (data URL) of the link's URL, for static links. */
  qr: string | null;
}

const fill = (s: string, v: Record<string, string>) => s.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

const REFUSAL_TEXT = { link_inactive: 'inactive', link_expired: 'expired', link_exhausted: 'exhausted', link_busy: 'busy' } as const;

export function renderLinkPage(m: LinkPageModel): string {
  const { link: l, lang, nonce } = m;
  const t = TEXTS[lang];
  const lt = LINK_TEXTS[lang];
  const langs = `<nav class="langs" aria-label="${t.language}">${PAGE_LANGS.map((x) =>
    `<a href="/link/${encodeURIComponent(l.id)}?lang=${x}" hreflang="${x}" lang="${x}"${x === lang ? ' aria-current="true"' : ''}>${x.toUpperCase()}</a>`).join('')}</nav>`;
  const amount = l.amount !== null
    ? `<p class="amount" id="amount"><span class="sr">${t.amount}: </span>${escapeHtml(formatAmount(l.amount, l.currency, lang))}</p>`
    : '';
  let body: string;
  if (m.refusal) {
    body = `<p id="link-state" data-state="${m.refusal}" role="alert">${lt[REFUSAL_TEXT[m.refusal]]}</p>`;
  } else {
    const field = l.amount !== null ? '' : `<label for="payer-amount">${lt.yourAmount} (${escapeHtml(l.currency)})</label>
<input id="payer-amount" name="amount" inputmode="decimal" autocomplete="off" required maxlength="20" aria-describedby="amount-hint${m.amountError ? ' amount-error' : ''}"${m.amountError ? ' aria-invalid="true"' : ''} value="${escapeHtml(m.typed ?? '')}">
<p class="muted" id="amount-hint">${escapeHtml(fill(lt.amountHint, { currency: l.currency, decimals: String(currencyExponent(l.currency)) }))}</p>
${m.amountError ? `<p class="error" id="amount-error" role="alert">${escapeHtml(fill(lt.amountInvalid, { min: formatAmount(1, l.currency, lang), max: formatAmount(MAX_AMOUNT, l.currency, lang) }))}</p>` : ''}`;
    body = `<form id="link-form" method="post" action="/link/${encodeURIComponent(l.id)}"><input type="hidden" name="lang" value="${lang}">${field}
<button class="primary" type="submit" id="pay-link">${lt.pay}</button></form>
${m.qr ? `<figure class="outcome"><img class="qr" id="link-qr" src="${m.qr}" alt="${lt.scanToPay}"><figcaption class="muted">${lt.scanToPay}</figcaption></figure>` : ''}`;
  }
  const html = `<main><div class="top">${l.livemode ? '<span></span>' : `<span class="badge">${t.testMode}</span>`}${langs}</div>
<div class="box"><p class="muted" id="merchant">${escapeHtml(m.merchantName)}</p><h1>${escapeHtml(l.description ?? lt.title)}</h1>${amount}${body}</div></main>`;
  return layout(lang, l.amount !== null ? `${lt.title} · ${formatAmount(l.amount, l.currency, lang)}` : lt.title, nonce, CSS, html);
}

export function renderLinkNotFound(lang: PageLang, nonce: string): string {
  return layout(lang, LINK_TEXTS[lang].title, nonce, CSS, `<main><div class="box"><h1 id="link-state" data-state="not_found">${LINK_TEXTS[lang].notFound}</h1></div></main>`);
}
