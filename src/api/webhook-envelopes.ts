// Webhook bodies as each API shows them. The merchant API's data.object is the payment exactly as
// GET /payments/{id} renders it; the gateway's data is the flat summary of the gateway spec.
import type { Payment } from '../domain/payment.js';
import { OPEN, sessionStatus, type CheckoutState } from '../domain/checkout.js';
import { toMerchantPayment } from './merchant-payment-view.js';
import { isoInstant } from '../domain/instant.js';

export const WEBHOOK_API_VERSION = '2026-09-22';


export interface EventMeta { id: string; type: string; livemode: boolean; createdAt: number }

/** `extra`: what `data` carries beside the object (a `refund.succeeded` event's `refund`). */
export function merchantEventBody(ev: EventMeta, object: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: ev.id, type: ev.type, api_version: WEBHOOK_API_VERSION, livemode: ev.livemode,
    created_at: isoInstant(ev.createdAt), data: { object, ...extra },
  });
}

export const merchantPaymentObject = (p: Payment, publicBaseUrl: string) => toMerchantPayment(p, publicBaseUrl, p.requestId);

export interface GatewayPaymentData {
  payment_id: string; amount: number; currency: string; status: string; channel_id: string | null; channel_code: string | null;
}

export function gatewayEventBody(ev: EventMeta, data: GatewayPaymentData | Record<string, unknown>): string {
  return JSON.stringify({ id: ev.id, type: ev.type, livemode: ev.livemode, created_at: isoInstant(ev.createdAt), data });
}

export const testPingObject = (merchantId: string) => ({
  object: 'test', merchant_id: merchantId, message: 'This is a test event sent from the webhook settings.',
});

const REFUND_STATUSES: ReadonlySet<string> = new Set(['refunded', 'partially_refunded']);

/**
 * The gateway's flat `data` of a checkout session's payment.* event: the status in the session's
 * terms, except after a refund (payment.refunded), where it is the spec's refund status (refunded or
 * partially_refunded) with `refunded_amount` beside it. payment.requires_action (3-D Secure only)
 * carries the challenge as `next_action` (three_ds_challenge: acs_url, creq), from the row the event
 * recorded, so a delivery made after the challenge was answered still shows it.
 */
export function gatewaySessionData(p: Payment, checkout: Partial<CheckoutState> | null, channelCode: string | null, eventType?: string): GatewayPaymentData & Record<string, unknown> {
  const refunded = REFUND_STATUSES.has(p.status);
  const challenge = eventType === 'payment.requires_action' ? checkout?.nextAction ?? null : null;
  return {
    payment_id: p.id, checkout_session_id: p.id, amount: p.amount, currency: p.currency,
    status: refunded ? p.status : sessionStatus(p.status, { ...OPEN, ...(checkout ?? {}) }),
    ...(refunded ? { refunded_amount: p.amountRefunded } : {}),
    channel_id: p.channelId, channel_code: channelCode, order_id: p.orderId, metadata: p.metadata,
    ...(p.failure ? { error_code: p.failure.code.toUpperCase(), error_message: p.failure.message } : {}),
    ...(challenge ? { next_action: challenge } : {}),
  };
}
