// The sandbox bank's pages (test mode only): the 3-D Secure ACS, the SBP bank app and the wallet
// pages. Their forms post back here; the answer goes to the payment's actor and the customer
// returns to the hosted page, which shows the outcome.
import { PAYMENT_ID_RE } from '../../domain/ids.js';
import type { Payment } from '../../domain/payment.js';
import { findPayment } from '../../store/payments-repo.js';
import { newNonce } from '../../web/html.js';
import { METHOD_NAMES, TEXTS, type PageLang } from '../../web/i18n.js';
import { renderApprovalPage, renderSandboxNotFound } from '../../web/sandbox-pages.js';
import { readBody, type Ctx } from '../context.js';
import { pageLang, redirect, sendHtml } from '../html-reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const REF_RE = /^sbx_[0-9A-Za-z_-]{1,60}$/;

function page(ctx: Ctx, p: Payment, lang: PageLang, title: string, text: string, action: string, ref: string, buttons: [string, string, string][]) {
  const nonce = newNonce();
  sendHtml(ctx, 200, renderApprovalPage({ lang, nonce, title, text, amount: p.amount, currency: p.currency, action, ref, buttons }), nonce);
}

async function load(ctx: Ctx, s: Services): Promise<Payment | null> {
  const id = ctx.params[0];
  const p = PAYMENT_ID_RE.test(id) ? await findPayment(s.db, id) : null;
  if (!p || p.livemode) {
    const nonce = newNonce();
    sendHtml(ctx, 404, renderSandboxNotFound(nonce), nonce);
    return null;
  }
  return p;
}

function refFromCreq(creq: string | null): string {
  try {
    const v = JSON.parse(Buffer.from(creq ?? '', 'base64url').toString('utf8')) as { acsTransID?: unknown };
    return typeof v.acsTransID === 'string' && REF_RE.test(v.acsTransID) ? v.acsTransID : '';
  } catch { return ''; }
}

async function acsPage(ctx: Ctx, s: Services) {
  const p = await load(ctx, s);
  if (!p) return;
  const lang = pageLang(ctx, p.locale);
  const t = TEXTS[lang];
  const ref = refFromCreq(new URLSearchParams(ctx.query).get('creq'));
  page(ctx, p, lang, t.acsTitle, t.acsText, `/sandbox/3ds/${p.id}`, ref, [['Y', t.pass, 'primary'], ['N', t.fail, 'secondary']]);
}

/** The SBP bank page and the wallet pages: the customer approves or declines attempt `ref`. */
function approvalPage(path: 'sbp' | 'wallet') {
  return async (ctx: Ctx, s: Services) => {
    const p = await load(ctx, s);
    if (!p) return;
    const q = new URLSearchParams(ctx.query);
    const lang = pageLang(ctx, p.locale);
    const t = TEXTS[lang];
    const ref = q.get('ref') ?? '';
    const wallet = q.get('wallet');
    const title = path === 'sbp' ? t.bankTitle
      : wallet === 'sberpay' || wallet === 'tpay' || wallet === 'yoomoney' ? METHOD_NAMES[lang][wallet] : t.walletTitle;
    page(ctx, p, lang, title, path === 'sbp' ? t.bankText : t.walletText, `/sandbox/${path}/${p.id}`, REF_RE.test(ref) ? ref : '',
      [['approve', t.approve, 'primary'], ['decline', t.decline, 'secondary']]);
  };
}

/** Form posts (application/x-www-form-urlencoded): read the body here, then tell the actor. */
function answer(kind: 'three_ds' | 'external') {
  return (ctx: Ctx, s: Services) => {
    const bodyP = readBody(ctx, 4096); // subscribed synchronously, before any await
    return (async () => {
      const raw = await bodyP;
      if (raw === 'aborted') return;
      const form = new URLSearchParams(raw === 'too_large' ? '' : raw);
      const id = ctx.params[0];
      if (!PAYMENT_ID_RE.test(id)) return redirect(ctx, '/pay/invalid');
      const ref = form.get('ref') ?? '';
      const a = form.get('answer');
      const valid = kind === 'three_ds' ? a === 'Y' || a === 'N' : a === 'approve' || a === 'decline';
      if (REF_RE.test(ref) && valid) {
        const reply = await s.dispatcher.send({ kind: 'checkout.callback', id, ref, answer: a as 'Y' });
        s.log.info({ requestId: ctx.requestId, paymentId: id, source: kind, ok: reply.ok, status: reply.ok ? reply.payment.status : reply.failure.code }, 'sandbox bank answer');
      }
      redirect(ctx, `/pay/${encodeURIComponent(id)}`);
    })();
  };
}

export const sandboxPageRoutes: Route[] = [
  { method: 'GET', path: '/sandbox/3ds/:id', api: 'web', auth: 'none', handler: acsPage },
  { method: 'POST', path: '/sandbox/3ds/:id', api: 'web', auth: 'none', handler: answer('three_ds') },
  { method: 'GET', path: '/sandbox/sbp/:id', api: 'web', auth: 'none', handler: approvalPage('sbp') },
  { method: 'POST', path: '/sandbox/sbp/:id', api: 'web', auth: 'none', handler: answer('external') },
  { method: 'GET', path: '/sandbox/wallet/:id', api: 'web', auth: 'none', handler: approvalPage('wallet') },
  { method: 'POST', path: '/sandbox/wallet/:id', api: 'web', auth: 'none', handler: answer('external') },
];
