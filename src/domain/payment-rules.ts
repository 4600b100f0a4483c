// Business rules of a payment request that a schema cannot express. Pure.
import { isLoopbackUrl, isPublicHttpsUrl } from './address.js';
import { currencyRefusal } from './money.js';
import type { Customer, Locale, NewPayment, PaymentMethod, PaymentSource } from './payment.js';

export interface PaymentInput {
  amount: number; currency?: string; order_id?: string; description?: string; method?: PaymentMethod;
  return_url?: string; customer?: Customer; metadata?: Record<string, string>; locale?: Locale;
}

export interface MerchantRules { defaultCurrency: string; currencies: string[] }

/** Merchant spec, Limits: metadata "up to 20 keys and 4 KB". */
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_BYTES = 4096;

/**
 * Which metadata limit a map exceeds, said as the detail of metadata_invalid, or null. 4 KB is 4096
 * bytes of UTF-8 in the keys and values together (the JSON punctuation around them does not count).
 */
export function metadataOverLimit(metadata: Record<string, string>): string | null {
  const keys = Object.keys(metadata);
  if (keys.length > METADATA_MAX_KEYS) return `${keys.length} keys, more than ${METADATA_MAX_KEYS}`;
  let bytes = 0;
  for (const k of keys) bytes += Buffer.byteLength(k) + Buffer.byteLength(metadata[k]);
  return bytes > METADATA_MAX_BYTES ? `${bytes} bytes of keys and values, more than 4 KB = ${METADATA_MAX_BYTES} bytes` : null;
}

export type PaymentRuleCode = 'currency_not_enabled' | 'method_not_available' | 'return_url_invalid' | 'metadata_invalid';
export type RuleResult = { ok: true; value: NewPayment } | { ok: false; code: PaymentRuleCode; param: string; detail?: string };

/**
 * `loopbackReturnUrl`: a return_url on this machine (localhost, 127.0.0.1, ::1; http or https) is
 * accepted too: test mode on the embedded default, as for webhooks (WEBHOOK_LOOPBACK_TEST).
 */
export function applyPaymentRules(input: PaymentInput, m: MerchantRules, source: PaymentSource, opts: { loopbackReturnUrl?: boolean } = {}): RuleResult {
  const currency = (input.currency ?? m.defaultCurrency).toUpperCase();
  if (!m.currencies.includes(currency)) return { ok: false, code: 'currency_not_enabled', param: 'currency', detail: currencyRefusal(currency, m.currencies) };
  if (input.method === 'sbp' && currency !== 'RUB') return { ok: false, code: 'method_not_available', param: 'method', detail: 'sbp works only with RUB' };
  if (input.return_url !== undefined && !isPublicHttpsUrl(input.return_url) && !(opts.loopbackReturnUrl && isLoopbackUrl(input.return_url))) {
    const detail = opts.loopbackReturnUrl ? 'in test mode on this development server, http://localhost is accepted too' : undefined;
    return { ok: false, code: 'return_url_invalid', param: 'return_url', ...(detail ? { detail } : {}) };
  }
  const metadata = input.metadata ?? {};
  const over = metadataOverLimit(metadata);
  if (over) return { ok: false, code: 'metadata_invalid', param: 'metadata', detail: over };
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
