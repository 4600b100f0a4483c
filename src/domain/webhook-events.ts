// Event types each API delivers to webhook endpoints.

export const MERCHANT_EVENT_TYPES = ['payment.succeeded', 'payment.failed', 'payment.expired', 'refund.succeeded', 'test.ping'] as const;
export const GATEWAY_EVENT_TYPES = ['payment.succeeded', 'payment.failed', 'payment.expired', 'payment.cancelled', 'payment.refunded', 'payment.requires_action', 'payout.paid', 'payout.failed', 'test.ping'] as const;

/** Outbox event types that become merchant API deliveries when the merchant subscribed to them. */
export const MERCHANT_DELIVERABLE: string[] = MERCHANT_EVENT_TYPES.filter((t) => t !== 'test.ping');

export const eventTypesOf = (api: 'merchant' | 'gateway'): readonly string[] => (api === 'merchant' ? MERCHANT_EVENT_TYPES : GATEWAY_EVENT_TYPES);

/** Outbox event types of a gateway checkout session that become gateway deliveries. */
export const GATEWAY_DELIVERABLE: string[] = GATEWAY_EVENT_TYPES.filter((t) => t !== 'test.ping');
