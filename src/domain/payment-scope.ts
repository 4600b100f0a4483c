// Who may act on a payment through a path that names it by id: the merchant and mode of the key
// that asks, and on the gateway API only a checkout session's payment (of the key's channel, when
// the key is channel-scoped). The payment's actor checks it on the payment it reads, so that the
// front end need not read the payment first (a payment outside the scope is not found).
import type { Payment } from './payment.js';

export interface PaymentScope {
  merchantId: string;
  livemode: boolean;
  /** Set on the gateway API: the payment must be a checkout session's, of this channel when not null. */
  gateway?: { channelId: string | null };
}

export function inScope(p: Payment, s: PaymentScope): boolean {
  if (p.merchantId !== s.merchantId || p.livemode !== s.livemode) return false;
  if (!s.gateway) return true;
  return p.session !== null && (s.gateway.channelId === null || p.channelId === s.gateway.channelId);
}
