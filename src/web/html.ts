// Helpers shared by the hosted pages: escaping, amounts, the security headers of every HTML answer
// (a strict CSP whose only inline script and style carry a per-answer nonce), the page skeleton and
// the choice of language. Pure: the http layer sends what these build.
import { randomBytes } from 'node:crypto';
import { currencyExponent } from '../domain/money.js';
import { FAVICON_PATH } from './favicon.js';
import { isPageLang, type PageLang } from './i18n.js';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON safe to place inside a <script type="application/json"> element. */
export const jsonForHtml = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const amountFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in minor units as the page's language writes it (CLDR through Intl.NumberFormat, the
 * currency's narrow symbol): `₼1,234.56`, `1 234,56 ₽`, `1.234,56 ₼`. The digits are the currency's
 * minor-unit exponent (ours), and the number is given as an exact decimal string, never a float.
 */
export function formatAmount(amount: number, currency: string, lang: PageLang): string {
  const exp = currencyExponent(currency);
  const key = `${lang}:${currency}`;
  let f = amountFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(lang, { style: 'currency', currency, currencyDisplay: 'narrowSymbol', minimumFractionDigits: exp, maximumFractionDigits: exp });
    amountFormats.set(key, f);
  }
  const abs = Math.abs(amount);
  const decimal = `${amount < 0 ? '-' : ''}${Math.floor(abs / 10 ** exp)}${exp ? `.${String(abs % 10 ** exp).padStart(exp, '0')}` : ''}`;
  return f.format(decimal as unknown as number); // a decimal string is formatted exactly (ES2023 Intl.NumberFormat v3)
}

export const newNonce = (): string => randomBytes(16).toString('base64');

/**
 * No third-party origin, no inline code without the nonce, no caching. No framing unless
 * `frameAncestors` lists the origins allowed to frame the page (a merchant's checked allowlist,
 * src/domain/frame-origins.ts); X-Frame-Options DENY is then left out, since it cannot name origins.
 */
/** `imgOrigin`: one more image source (a channel's logo, an https origin checked when the channel was saved). */
export function htmlHeaders(nonce: string, frameAncestors: readonly string[] = [], imgOrigin: string | null = null): [string, string][] {
  const ancestors = frameAncestors.length ? frameAncestors.join(' ') : "'none'";
  const img = imgOrigin && /^https:\/\/[a-z0-9.-]+(:\d{1,5})?$/.test(imgOrigin) ? ` ${imgOrigin}` : '';
  return [
    ['Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:${img}; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ['Cache-Control', 'no-store'],
    ...(frameAncestors.length ? [] : [['X-Frame-Options', 'DENY'] as [string, string]]),
  ];
}

/** The page skeleton: one nonce'd style element; scripts are added by the caller with the same nonce. */
export function layout(lang: string, title: string, nonce: string, css: string, body: string): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${css}</style></head><body>${body}</body></html>`;
}

/** The page language: ?lang= first, then the payment's locale, then the request's language. */
export function choosePageLang(asked: string | null, locale: string | null, requestLang: PageLang): PageLang {
  if (isPageLang(asked)) return asked;
  if (isPageLang(locale)) return locale;
  return requestLang;
}
