// The markup of the sandbox bank's own pages: the 3-D Secure ACS (pass or fail), the SBP bank app
// reached from the QR code or a bank deeplink, and the wallet pages of sberpay, tpay and yoomoney
// (approve or decline). Their forms post the answer with the attempt's reference.
import { frameHeightTags } from './frame-height.js';
import { escapeHtml, formatAmount, layout } from './html.js';
import { TEXTS, type PageLang } from './i18n.js';
import { CSS } from './style.js';

export interface ApprovalPageModel {
  lang: PageLang;
  nonce: string;
  title: string;
  text: string;
  amount: number;
  currency: string;
  /** Where the form posts. */
  action: string;
  /** The attempt's reference, posted back with the answer. */
  ref: string;
  /** [answer value, label, css class] */
  buttons: [string, string, string][];
  /** The allowlisted embedding parent, posted back so the customer returns into the frame. */
  origin?: string | null;
  /** The payment, named in the frame's height reports when framed. */
  paymentId?: string;
}

export function renderApprovalPage(m: ApprovalPageModel): string {
  const body = `<main><div class="box"><p class="badge">${TEXTS[m.lang].sandbox}</p><h1>${escapeHtml(m.title)}</h1><p>${escapeHtml(m.text)}</p>
<p class="amount">${escapeHtml(formatAmount(m.amount, m.currency, m.lang))}</p><form method="post" action="${escapeHtml(m.action)}">
<input type="hidden" name="ref" value="${escapeHtml(m.ref)}">${m.origin ? `<input type="hidden" name="origin" value="${escapeHtml(m.origin)}">` : ''}${m.buttons.map(([value, label, cls], i) =>
    `<button class="${cls}" type="submit" name="answer" value="${escapeHtml(value)}" id="${['approve', 'decline'][i] ?? escapeHtml(value)}">${escapeHtml(label)}</button>`).join('')}</form></div></main>
${m.paymentId ? frameHeightTags(m.paymentId, m.origin ?? null, m.nonce) : ''}`;
  return layout(m.lang, m.title, m.nonce, CSS, body);
}

export function renderSandboxNotFound(nonce: string): string {
  return layout('en', 'Not found', nonce, CSS, '<main><div class="box"><h1>Not found</h1></div></main>');
}

export interface SandboxErrorModel {
  lang: PageLang;
  nonce: string;
  /** Stable code of what went wrong, on the page as data-code (a catalogue code, or a page code). */
  code: string;
  message: string;
  /** The hosted payment page to go back to, when the payment is known. */
  back: string | null;
}

/** Why the sandbox bank cannot show its page or take an answer: said on the page, never a silent redirect. */
export function renderSandboxError(m: SandboxErrorModel): string {
  const t = TEXTS[m.lang];
  const body = `<main><div class="box"><p class="badge">${t.sandbox}</p><h1>${escapeHtml(t.stepError)}</h1>
<p id="sandbox-error" class="error" role="alert" data-code="${escapeHtml(m.code)}">${escapeHtml(m.message)}</p>
${m.back ? `<a class="primary" id="back" href="${escapeHtml(m.back)}">${escapeHtml(t.backToPayment)}</a>` : ''}</div></main>`;
  return layout(m.lang, t.stepError, m.nonce, CSS, body);
}
