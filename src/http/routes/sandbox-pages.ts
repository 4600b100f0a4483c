// The sandbox bank's pages (test mode only): the 3-D Secure ACS, the SBP bank app and the wallet
// pages. The ACS takes the EMV 3-D Secure browser flow: the merchant's page form-posts `creq` (and
// maybe `threeDSSessionData`, accepted and not used) to acs_url, or the hosted page opens acs_url
// with `?creq=`. Every page shows only the attempt the payment awaits, and its form posts the answer
// with that attempt's reference; the answer goes to the payment's actor and the customer returns to
// the hosted page. A page or an answer that cannot go on says why on an error page (400, 409, ...),
// never by a silent redirect. The ACS may be framed like the hosted page (the merchant's allowlist):
// inside the embedded form the challenge carries `origin` and returns to /pay/{id}?origin=….
// The page's language (?lang=, else the payment's locale) travels in each form's action and back
// to the hosted page, so a customer who chose a language keeps it through the whole payment.
import { isCheckoutId } from '../../domain/ids.js';
import { ERRORS, messageFor, type ErrorCode } from '../../errors.js';
import { loadCheckout, type PaymentWithCheckout } from '../../store/checkout-repo.js';
import { newNonce } from '../../web/html.js';
import { METHOD_NAMES, TEXTS, type PageLang } from '../../web/i18n.js';
import { renderApprovalPage, renderSandboxError, renderSandboxNotFound } from '../../web/sandbox-pages.js';
import { readBody, type Ctx } from '../context.js';
import { framingOf, originQuery } from '../framing.js';
import { pageLang, redirect, sendFramableHtml, sendHtml } from '../html-reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const REF_RE = /^sbx_[0-9A-Za-z_-]{1,60}$/;
const FORM_LIMIT = 4096;

type PageKind = 'three_ds' | 'sbp' | 'wallet';
/** Page codes of the error page beside the catalogue's (see docs/decisions.md). */
type PageCode = 'creq_invalid' | 'reference_invalid' | 'answer_invalid' | 'body_too_large';

function sendError(ctx: Ctx, status: number, lang: PageLang, code: PageCode | ErrorCode, message: string, paymentId: string | null): void {
  const nonce = newNonce();
  const back = paymentId ? `/pay/${encodeURIComponent(paymentId)}?lang=${lang}` : null;
  sendHtml(ctx, status, renderSandboxError({ lang, nonce, code, message, back }), nonce);
}

const pageError = (ctx: Ctx, status: number, lang: PageLang, code: PageCode, id: string | null) =>
  sendError(ctx, status, lang, code, TEXTS[lang][({ creq_invalid: 'creqInvalid', reference_invalid: 'refInvalid', answer_invalid: 'answerInvalid', body_too_large: 'tooLarge' } as const)[code]], id);

const catalogueError = (ctx: Ctx, lang: PageLang, code: ErrorCode, id: string) =>
  sendError(ctx, ERRORS[code].status, lang, code, messageFor(code, lang), id);

/** The payment and its checkout, or null once a 404 page is sent (unknown id, or a live payment). */
async function load(ctx: Ctx, s: Services): Promise<PaymentWithCheckout | null> {
  const id = ctx.params[0];
  const found = isCheckoutId(id) ? await loadCheckout(s.db, id) : null;
  if (!found || found.payment.livemode) {
    const nonce = newNonce();
    sendHtml(ctx, 404, renderSandboxNotFound(nonce), nonce);
    return null;
  }
  return found;
}

/** Whether the page may ask about attempt `ref`; otherwise the error page that says why is sent. */
function awaited(ctx: Ctx, { payment, checkout }: PaymentWithCheckout, kind: PageKind, ref: string, lang: PageLang): boolean {
  if (!ref) { pageError(ctx, 400, lang, kind === 'three_ds' ? 'creq_invalid' : 'reference_invalid', payment.id); return false; }
  if (payment.status !== 'pending') { catalogueError(ctx, lang, 'checkout_closed', payment.id); return false; }
  const expected = kind === 'three_ds' ? checkout.awaiting === 'three_ds' : checkout.awaiting === 'sbp' || checkout.awaiting === 'wallet';
  if (!expected || checkout.ref !== ref) { catalogueError(ctx, lang, 'checkout_action_stale', payment.id); return false; }
  return true;
}

function refFromCreq(creq: string | null): string {
  if (!creq || creq.length > 2048) return '';
  try {
    const v = JSON.parse(Buffer.from(creq, 'base64url').toString('utf8')) as { acsTransID?: unknown };
    return typeof v?.acsTransID === 'string' && REF_RE.test(v.acsTransID) ? v.acsTransID : '';
  } catch { return ''; } // not base64url JSON: no reference, and the page says so
}

/** The challenge of the attempt named by `creq` (from the query of a GET, or the form of a POST). */
async function showChallenge(ctx: Ctx, s: Services, creq: string | null, askedOrigin: string | null): Promise<void> {
  const found = await load(ctx, s);
  if (!found) return;
  const p = found.payment;
  const lang = pageLang(ctx, p.locale);
  const ref = refFromCreq(creq);
  if (!awaited(ctx, found, 'three_ds', ref, lang)) return;
  const t = TEXTS[lang];
  const nonce = newNonce();
  const { allowlist, parentOrigin } = await framingOf(s, p.merchantId, askedOrigin);
  sendFramableHtml(ctx, 200, renderApprovalPage({
    lang, nonce, title: t.acsTitle, text: t.acsText, amount: p.amount, currency: p.currency, action: `/sandbox/3ds/${p.id}?lang=${lang}`, ref,
    buttons: [['Y', t.pass, 'primary'], ['N', t.fail, 'secondary']], origin: parentOrigin, paymentId: p.id,
  }), nonce, allowlist);
}

/** The SBP bank page and the wallet pages: the customer approves or declines attempt `ref`. */
function approvalPage(kind: 'sbp' | 'wallet') {
  return async (ctx: Ctx, s: Services) => {
    const found = await load(ctx, s);
    if (!found) return;
    const p = found.payment;
    const q = new URLSearchParams(ctx.query);
    const lang = pageLang(ctx, p.locale);
    const ref = q.get('ref') ?? '';
    if (!awaited(ctx, found, kind, REF_RE.test(ref) ? ref : '', lang)) return;
    const t = TEXTS[lang];
    const wallet = q.get('wallet');
    const title = kind === 'sbp' ? t.bankTitle
      : wallet === 'sberpay' || wallet === 'tpay' || wallet === 'yoomoney' ? METHOD_NAMES[lang][wallet] : t.walletTitle;
    const nonce = newNonce();
    sendHtml(ctx, 200, renderApprovalPage({
      lang, nonce, title, text: kind === 'sbp' ? t.bankText : t.walletText, amount: p.amount, currency: p.currency,
      action: `/sandbox/${kind}/${p.id}?lang=${lang}`, ref, buttons: [['approve', t.approve, 'primary'], ['decline', t.decline, 'secondary']],
    }), nonce);
  };
}

type Answer = 'Y' | 'N' | 'approve' | 'decline';
const answerOf = (kind: PageKind, a: string | null): Answer | null =>
  (kind === 'three_ds' ? a === 'Y' || a === 'N' : a === 'approve' || a === 'decline') ? a as Answer : null;

/**
 * Form posts (application/x-www-form-urlencoded). To the ACS: `creq` without `answer` is the
 * merchant's page starting the challenge; `ref` and `answer` are the customer's answer. The answer
 * goes to the payment's actor, which refuses a stale attempt or a closed payment.
 */
function post(kind: PageKind) {
  return (ctx: Ctx, s: Services) => {
    const bodyP = readBody(ctx, FORM_LIMIT); // subscribed synchronously, before any await
    return (async () => {
      const raw = await bodyP;
      if (raw === 'aborted') return;
      if (raw === 'too_large') {
        // The body may be left unread: answer and close the connection.
        const nonce = newNonce();
        const lang = pageLang(ctx, null);
        const html = renderSandboxError({ lang, nonce, code: 'body_too_large', message: TEXTS[lang].tooLarge, back: null });
        return sendHtml(ctx, 413, html, nonce, true);
      }
      const form = new URLSearchParams(raw);
      if (kind === 'three_ds' && !form.has('answer')) return showChallenge(ctx, s, form.get('creq'), form.get('origin'));
      const found = await load(ctx, s);
      if (!found) return;
      const id = found.payment.id;
      const lang = pageLang(ctx, found.payment.locale);
      const ref = form.get('ref') ?? '';
      if (!REF_RE.test(ref)) return pageError(ctx, 400, lang, 'reference_invalid', id);
      const a = answerOf(kind, form.get('answer'));
      if (!a) return pageError(ctx, 400, lang, 'answer_invalid', id);
      const reply = await s.dispatcher.send({ kind: 'checkout.callback', id, ref, answer: a });
      s.log.info({ requestId: ctx.requestId, paymentId: id, source: kind, ok: reply.ok, status: reply.ok ? reply.payment.status : reply.failure.code }, 'sandbox bank answer');
      if (!reply.ok) return catalogueError(ctx, lang, reply.failure.code, id);
      const parent = form.has('origin') ? (await framingOf(s, found.payment.merchantId, form.get('origin'))).parentOrigin : null;
      redirect(ctx, `/pay/${encodeURIComponent(id)}?lang=${lang}${originQuery(parent, '&')}`);
    })();
  };
}

export const sandboxPageRoutes: Route[] = [
  { method: 'GET', path: '/sandbox/3ds/:id', api: 'web', auth: 'none', handler: (ctx, s) => {
    const q = new URLSearchParams(ctx.query);
    return showChallenge(ctx, s, q.get('creq'), q.get('origin'));
  } },
  { method: 'POST', path: '/sandbox/3ds/:id', api: 'web', auth: 'none', handler: post('three_ds') },
  { method: 'GET', path: '/sandbox/sbp/:id', api: 'web', auth: 'none', handler: approvalPage('sbp') },
  { method: 'POST', path: '/sandbox/sbp/:id', api: 'web', auth: 'none', handler: post('sbp') },
  { method: 'GET', path: '/sandbox/wallet/:id', api: 'web', auth: 'none', handler: approvalPage('wallet') },
  { method: 'POST', path: '/sandbox/wallet/:id', api: 'web', auth: 'none', handler: post('wallet') },
];
