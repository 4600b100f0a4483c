// GET /pay/{id}: the hosted payment page's address. This first version shows the order summary
// and state; the interactive checkout (methods, card form, 3DS) replaces its body later.
import { currencyExponent } from '../domain/money.js';
import type { Payment } from '../domain/payment.js';
import { findPayment } from '../store/payments-repo.js';
import { send, type Ctx } from '../http/context.js';
import type { Route } from '../http/route.js';
import type { Services } from '../http/services.js';

const T = {
  en: { title: 'Payment', amount: 'Amount', status: 'Status', notFound: 'This payment link is not valid.', pending: 'Awaiting payment', succeeded: 'Paid', failed: 'Declined', expired: 'Expired', refunded: 'Refunded', partially_refunded: 'Partially refunded', review: 'Under review' },
  ru: { title: 'Оплата', amount: 'Сумма', status: 'Статус', notFound: 'Эта ссылка на оплату недействительна.', pending: 'Ожидает оплаты', succeeded: 'Оплачено', failed: 'Отклонено', expired: 'Истёк срок', refunded: 'Возвращено', partially_refunded: 'Частично возвращено', review: 'На проверке' },
  az: { title: 'Ödəniş', amount: 'Məbləğ', status: 'Status', notFound: 'Bu ödəniş keçidi etibarsızdır.', pending: 'Ödəniş gözlənilir', succeeded: 'Ödənilib', failed: 'Rədd edilib', expired: 'Vaxtı bitib', refunded: 'Qaytarılıb', partially_refunded: 'Qismən qaytarılıb', review: 'Yoxlanılır' },
} as const;

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function formatAmount(amount: number, currency: string): string {
  const exp = currencyExponent(currency);
  const major = Math.floor(amount / 10 ** exp);
  const minor = exp ? `.${String(amount % 10 ** exp).padStart(exp, '0')}` : '';
  return `${major}${minor} ${currency}`;
}

/** Security headers of every HTML answer: no inline script, no third-party origins, no framing. */
export const HTML_HEADERS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cache-Control', 'no-store'],
  ['X-Frame-Options', 'DENY'],
];

export function renderPayPage(p: Payment | null, lang: keyof typeof T): string {
  const t = T[lang];
  const main = p
    ? `<h1>${escapeHtml(p.description ?? t.title)}</h1>
<dl><dt>${t.amount}</dt><dd>${escapeHtml(formatAmount(p.amount, p.currency))}</dd>
<dt>${t.status}</dt><dd data-status="${p.status}">${t[p.status]}</dd></dl>`
    : `<h1>${t.notFound}</h1>`;
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${t.title}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#111}dt{color:#555}dd{margin:0 0 .75rem;font-weight:600}</style>
</head><body><main>${main}</main></body></html>`;
}

async function payPage(ctx: Ctx, s: Services) {
  const id = ctx.params[0];
  const p = id.length <= 64 ? await findPayment(s.db, id) : null;
  const lang = (p?.locale ?? ctx.lang) as keyof typeof T;
  send(ctx, p ? 200 : 404, renderPayPage(p, lang), 'text/html; charset=utf-8', HTML_HEADERS);
}

export const webRoutes: Route[] = [
  { method: 'GET', path: '/pay/:id', api: 'web', auth: 'none', handler: payPage },
];
