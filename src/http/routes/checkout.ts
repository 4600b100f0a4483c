// Public checkout endpoints of the gateway API (no auth). A merchant API payment's id is its
// session id here. Every change goes to the payment's actor; these handlers validate, check the
// catalog and the SBP whitelist, and render.
import { PayRequest, PAY_FIELD_CODES, SubmitMethodRequest, SUBMIT_FIELD_CODES } from '../../api/checkout.js';
import { checkoutStatusView, effectiveMethodView, submitView } from '../../api/checkout-view.js';
import { compile, dropNulls } from '../../api/validate.js';
import { cardSummary, checkCard } from '../../domain/card.js';
import { isCheckoutId } from '../../domain/ids.js';
import type { MethodCode } from '../../domain/methods.js';
import { fail } from '../../errors.js';
import type { SubmitAction } from '../../../actors/protocol.js';
import { isActiveSbpMember } from '../../store/sbp-members-repo.js';
import type { PaymentWithCheckout } from '../../store/checkout-repo.js';
import { effectiveMethods } from '../catalog.js';
import type { Ctx } from '../context.js';
import { sendFailure, sendJson } from '../reply.js';
import type { Route } from '../route.js';
import type { Services } from '../services.js';

const validateSubmit = compile(SubmitMethodRequest, SUBMIT_FIELD_CODES);
const validatePay = compile(PayRequest, PAY_FIELD_CODES);

/** The payment behind a session id, or the 404 already sent. */
async function sessionOf(ctx: Ctx, s: Services): Promise<PaymentWithCheckout | null> {
  const id = ctx.params[0];
  const found = isCheckoutId(id) ? await s.reads.checkout(id) : null;
  if (!found) { sendFailure(ctx, fail('payment_not_found', 'id')); return null; }
  return found;
}

/** 409 when finished, 400 (reason METHOD_NOT_AVAILABLE) when the method is not on the payment's effective list; else true. */
async function payable(ctx: Ctx, s: Services, found: PaymentWithCheckout, method: MethodCode): Promise<boolean> {
  if (found.payment.status !== 'pending') { sendFailure(ctx, fail('checkout_closed')); return false; }
  const eff = await effectiveMethods(s, found.payment);
  if (!eff.methods.some((m) => m.method === method)) { sendFailure(ctx, fail('method_not_available', 'method_code', `${method} is not offered for this payment`)); return false; }
  return true;
}

async function methods(ctx: Ctx, s: Services) {
  const found = await sessionOf(ctx, s);
  if (!found) return;
  const eff = await effectiveMethods(s, found.payment);
  sendJson(ctx, 200, { methods: eff.methods.map(effectiveMethodView), fallback: eff.fallback, request_id: ctx.requestId });
}

async function status(ctx: Ctx, s: Services) {
  const found = await sessionOf(ctx, s);
  if (!found) return;
  sendJson(ctx, 200, checkoutStatusView(found.payment, found.checkout, ctx.requestId));
}

async function submit(ctx: Ctx, s: Services, raw: unknown) {
  const v = validateSubmit(dropNulls(raw));
  if (!v.ok) return sendFailure(ctx, v.failure);
  const b = v.value;
  if (b.method_code === 'card') return sendFailure(ctx, fail('method_not_available', 'method_code', 'card is paid through POST /checkout/{id}/pay, not submit-method'));
  const found = await sessionOf(ctx, s);
  if (!found || !(await payable(ctx, s, found, b.method_code))) return;
  let action: SubmitAction;
  switch (b.method_code) {
    case 'sbp': {
      // Every non-empty member id is checked against the active whitelist before any acquirer call.
      const given: [string, string | undefined][] = [['member_id', b.member_id], ['payload.extra.memberId', b.payload?.extra?.memberId], ['payload.extra.bank_id', b.payload?.extra?.bank_id]];
      let memberId: string | null = null;
      for (const [param, value] of given) {
        if (!value) continue;
        if (!(await isActiveSbpMember(s.db, value))) return sendFailure(ctx, fail('sbp_member_unknown', param));
        memberId ??= value;
      }
      action = { method: 'sbp', memberId };
      break;
    }
    case 'sberpay': case 'tpay': case 'yoomoney':
      action = { method: b.method_code, phone: b.phone ?? null };
      break;
    case 'apple_pay': case 'google_pay': {
      const token = b.payment_token ?? (b.payment_data ? JSON.stringify(b.payment_data) : null);
      if (!token) return sendFailure(ctx, fail('payment_token_invalid', 'payment_token'));
      action = { method: b.method_code, token };
      break;
    }
    case 'recurrent':
      if (!b.saved_payment_method_id) return sendFailure(ctx, fail('parameter_missing', 'saved_payment_method_id'));
      action = { method: 'recurrent', savedId: b.saved_payment_method_id };
      break;
  }
  const reply = await s.dispatcher.send({ kind: 'checkout.submit', id: found.payment.id, action });
  if (!reply.ok) return sendFailure(ctx, reply.failure);
  ctx.payment = { paymentId: reply.payment.id, paymentStatus: reply.payment.status, paymentMethod: b.method_code };
  sendJson(ctx, 200, submitView(reply.payment, reply.checkout!, ctx.requestId));
}

async function pay(ctx: Ctx, s: Services, raw: unknown) {
  const v = validatePay(dropNulls(raw));
  if (!v.ok) return sendFailure(ctx, v.failure);
  const checked = checkCard(v.value, Date.now());
  if (!checked.ok) return sendFailure(ctx, fail(checked.code, checked.param));
  const found = await sessionOf(ctx, s);
  if (!found || !(await payable(ctx, s, found, 'card'))) return;
  const summary = cardSummary(checked.card, s.config.cardFingerprintKey, null);
  // The row just read goes along: the actor starts from it (its begin is version-checked) instead of reading it again.
  const reply = await s.dispatcher.send({ kind: 'checkout.pay', id: found.payment.id, card: checked.card, summary, seen: found });
  if (!reply.ok) return sendFailure(ctx, reply.failure);
  ctx.payment = { paymentId: reply.payment.id, paymentStatus: reply.payment.status, paymentMethod: 'card', brand: summary.brand, last4: summary.last4 };
  sendJson(ctx, 200, submitView(reply.payment, reply.checkout!, ctx.requestId));
}

/** The page's cancel link of a gateway session: through the session's actor; 409 once finished. */
async function cancel(ctx: Ctx, s: Services) {
  const found = await sessionOf(ctx, s);
  if (!found) return;
  if (!found.payment.session) return sendFailure(ctx, fail('checkout_session_not_found', 'id'));
  const reply = await s.dispatcher.send({ kind: 'checkout.cancel', id: found.payment.id });
  if (!reply.ok) return sendFailure(ctx, reply.failure);
  s.log.info({ requestId: ctx.requestId, paymentId: reply.payment.id }, 'checkout session cancelled by the customer');
  sendJson(ctx, 200, checkoutStatusView(reply.payment, reply.checkout!, ctx.requestId));
}

export const checkoutRoutes: Route[] = [
  { method: 'GET', path: '/checkout/:id/methods', api: 'gateway', auth: 'none', handler: methods },
  { method: 'GET', path: '/checkout/:id/status', api: 'gateway', auth: 'none', handler: status },
  { method: 'POST', path: '/checkout/:id/submit-method', api: 'gateway', auth: 'none', body: true, handler: submit },
  { method: 'POST', path: '/checkout/:id/pay', api: 'gateway', auth: 'none', body: true, handler: pay },
  { method: 'POST', path: '/checkout/:id/cancel', api: 'gateway', auth: 'none', body: true, handler: cancel },
];
