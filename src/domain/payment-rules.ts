// Business rules of a payment request that a schema cannot express. Pure.
import { isLoopbackUrl, isPublicHttpsUrl } from './address.js';
import type { Customer, Locale, NewPayment, PaymentMethod, PaymentSource } from './payment.js';

export interface PaymentInput {
  amount: number; currency?: string; order_id?: string; description?: string; method?: PaymentMethod;
  return_url?: string; customer?: Customer; metadata?: Record<string, string>; locale?: Locale;
}

export interface MerchantRules { defaultCurrency: string; currencies: string[] }

export const METADATA_MAX_BYTES = 4096;

export type PaymentRuleCode = 'currency_not_enabled' | 'method_not_available' | 'return_url_invalid' | 'metadata_invalid';
export type RuleResult = { ok: true; value: NewPayment } | { ok: false; code: PaymentRuleCode; param: string; detail?: string };

/**
 * `loopbackReturnUrl`: a return_url on this machine (localhost, 127.0.0.1, ::1; http or https) is
 * accepted too: test mode on the embedded default, as for webhooks (WEBHOOK_LOOPBACK_TEST).
 */
export function applyPaymentRules(input: PaymentInput, m: MerchantRules, source: PaymentSource, opts: { loopbackReturnUrl?: boolean } = {}): RuleResult {
  const currency = (input.currency ?? m.defaultCurrency).toUpperCase();
  if (!m.currencies.includes(currency)) return { ok: false, code: 'currency_not_enabled', param: 'currency' };
  if (input.method === 'sbp' && currency !== 'RUB') return { ok: false, code: 'method_not_available', param: 'method', detail: 'sbp works only with RUB' };
  if (input.return_url !== undefined && !isPublicHttpsUrl(input.return_url) && !(opts.loopbackReturnUrl && isLoopbackUrl(input.return_url))) {
    const detail = opts.loopbackReturnUrl ? 'in test mode on this development server, http://localhost is accepted too' : undefined;
    return { ok: false, code: 'return_url_invalid', param: 'return_url', ...(detail ? { detail } : {}) };
  }
  const metadata = input.metadata ?? {};
  if (Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) return { ok: false, code: 'metadata_invalid', param: 'metadata' };
  const customer: Customer = { ...(input.customer ?? {}) };
  if (customer.country) customer.country = customer.country.toUpperCase();
  return {
    ok: true,
    value: {
      amount: input.amount, currency, orderId: input.order_id ?? null, description: input.description ?? null,
      metadata, method: input.method ?? null, customer, returnUrl: input.return_url ?? null,
      locale: input.locale ?? null, source,
    },
  };
}
