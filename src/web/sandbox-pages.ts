// The markup of the sandbox bank's own pages: the 3-D Secure ACS (pass or fail), the SBP bank app
// reached from the QR code or a bank deeplink, and the wallet pages of sberpay, tpay and yoomoney
// (approve or decline). Their forms post the answer with the attempt's reference.
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
}

export function renderApprovalPage(m: ApprovalPageModel): string {
  const body = `<main><div class="box"><p class="badge">${TEXTS[m.lang].sandbox}</p><h1>${escapeHtml(m.title)}</h1><p>${escapeHtml(m.text)}</p>
<p class="amount">${escapeHtml(formatAmount(m.amount, m.currency))}</p><form method="post" action="${escapeHtml(m.action)}">
<input type="hidden" name="ref" value="${escapeHtml(m.ref)}">${m.buttons.map(([value, label, cls], i) =>
    `<button class="${cls}" type="submit" name="answer" value="${escapeHtml(value)}" id="${['approve', 'decline'][i] ?? escapeHtml(value)}">${escapeHtml(label)}</button>`).join('')}</form></div></main>`;
  return layout(m.lang, m.title, m.nonce, CSS, body);
}

export function renderSandboxNotFound(nonce: string): string {
  return layout('en', 'Not found', nonce, CSS, '<main><div class="box"><h1>Not found</h1></div></main>');
}
