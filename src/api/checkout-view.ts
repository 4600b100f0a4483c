// Domain -> gateway API shapes of the checkout: EffectiveMerchantMethod, the status read and the
// submit answer. A QR image is drawn here from the raw payload the connector gave.
import type { EffectiveMethod } from '../domain/catalog.js';
import { sessionStatus, type CheckoutState } from '../domain/checkout.js';
import type { NextAction } from '../domain/methods.js';
import type { Payment } from '../domain/payment.js';
import { sessionReturnUrl } from '../domain/checkout-session.js';
import { qrSvgDataUrl } from '../domain/qr.js';
import { isoInstant } from '../domain/instant.js';

export const effectiveMethodView = (m: EffectiveMethod) => ({
  method_code: m.method, display_order: m.displayOrder, render_mode: m.renderMode, is_enabled: true,
  supports_recurring: m.supportsRecurring, supports_refund: m.supportsRefund,
  min_amount_minor: m.minAmount, max_amount_minor: m.maxAmount, allowed_currencies: m.currencies,
});

export function nextActionView(a: NextAction | null): NextAction | null {
  if (a && a.type === 'show_qr' && a.qr_image_url === null && a.qr_raw_payload) return { ...a, qr_image_url: qrSvgDataUrl(a.qr_raw_payload) };
  return a;
}

/** What the hosted page needs to render a payment's checkout and its outcome. */
export function checkoutStatusView(p: Payment, c: CheckoutState, requestId: string) {
  const status = sessionStatus(p.status, c);
  const open = p.status === 'pending';
  return {
    session_id: p.id,
    payment_id: p.id,
    status,
    payment_status: p.status,
    selected_method_code: c.method,
    next_action: open ? nextActionView(c.nextAction) : null,
    amount: p.amount,
    currency: p.currency,
    livemode: p.livemode,
    expires_at: isoInstant(p.expiresAt),
    card: p.card ? { brand: p.card.brand, last4: p.card.last4 } : null,
    failure: p.failure,
    return_url: p.session ? sessionReturnUrl(p.session, status === 'succeeded') : p.returnUrl,
    request_id: requestId,
  };
}

export function submitView(p: Payment, c: CheckoutState, requestId: string) {
  const status = sessionStatus(p.status, c);
  const terminal = p.status !== 'pending';
  return {
    session_id: p.id,
    status: status === 'open' ? 'processing' : status,
    ...(terminal ? {} : { next_action: nextActionView(c.nextAction) }),
    ...(p.failure ? { error: { code: p.failure.code.toUpperCase(), message: p.failure.message } } : {}),
    request_id: requestId,
  };
}
