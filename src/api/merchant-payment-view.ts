// Domain payment -> merchant API Payment resource (2026-09-22).
import { merchantStatus, type Payment } from '../domain/payment.js';
import type { PaymentResource } from './merchant-payments.js';
import { isoInstant, isoOrNull } from '../domain/instant.js';


export function toMerchantPayment(p: Payment, publicBaseUrl: string, requestId: string): PaymentResource {
  return {
    id: p.id,
    object: 'payment',
    livemode: p.livemode,
    status: merchantStatus(p.status),
    amount: p.amount,
    currency: p.currency,
    amount_refunded: p.amountRefunded,
    fee: p.fee,
    net: p.net,
    charged: p.charged,
    order_id: p.orderId,
    description: p.description,
    metadata: p.metadata,
    method: p.method ?? 'card',
    customer: { email: p.customer.email ?? null, name: p.customer.name ?? null, phone: p.customer.phone ?? null },
    card: p.card ? { brand: p.card.brand, last4: p.card.last4, country: p.card.country } : null,
    failure: p.failure,
    checkout_url: `${publicBaseUrl}/pay/${p.id}`,
    return_url: p.returnUrl,
    // Gateway sessions are never shown by the merchant API (its reads leave them out).
    source: p.source === 'gateway' ? 'api' : p.source,
    created_at: isoInstant(p.createdAt),
    paid_at: isoOrNull(p.paidAt),
    request_id: requestId,
  };
}
