// Storage row of a payment and its mapping to and from the domain object.
import type { Payment } from '../domain/payment.js';
import { NO_SESSION_OPTIONS } from '../domain/checkout-session.js';
import { isoInstant, isoOrNull } from '../domain/instant.js';

export interface PaymentRow {
  id: string; merchant_id: string; livemode: boolean; status: string; amount: number; currency: string;
  amount_refunded: number; fee: number; net: number; charged: Payment['charged']; order_id: string | null;
  description: string | null; metadata: Record<string, string>; method: string | null; customer: Payment['customer'];
  card: Payment['card']; failure: Payment['failure']; return_url: string | null; locale: string | null; source: string;
  created_at: Stamp; paid_at: Stamp | null; expires_at: Stamp; updated_at: Stamp;
  version: number; request_id: string; idempotency_key: string | null; request_hash: string | null;
  pending_attempt?: string | null; link_id?: string | null; channel_id?: string | null; session?: Payment['session']; test_clock_id?: string | null;
}

/** A timestamptz as pg gives it: a Date by default, epoch ms through MS_TIMESTAMPS (timestamps.ts), text in JSON copies. */
type Stamp = Date | string | number;

const ms = (v: Stamp): number => (typeof v === 'number' ? v : v instanceof Date ? v.getTime() : Date.parse(v));

export function rowToPayment(r: PaymentRow): Payment {
  return {
    id: r.id, merchantId: r.merchant_id, livemode: r.livemode, status: r.status as Payment['status'],
    amount: Number(r.amount), currency: r.currency, amountRefunded: Number(r.amount_refunded),
    fee: Number(r.fee), net: Number(r.net), charged: r.charged, orderId: r.order_id, description: r.description,
    metadata: r.metadata ?? {}, method: r.method as Payment['method'], customer: r.customer ?? {}, card: r.card,
    failure: r.failure, returnUrl: r.return_url, locale: r.locale as Payment['locale'], source: r.source as Payment['source'],
    createdAt: ms(r.created_at), paidAt: r.paid_at === null ? null : ms(r.paid_at), expiresAt: ms(r.expires_at),
    updatedAt: ms(r.updated_at), version: r.version, requestId: r.request_id,
    idempotencyKey: r.idempotency_key, requestHash: r.request_hash, pendingAttempt: r.pending_attempt ?? null,
    linkId: r.link_id ?? null, channelId: r.channel_id ?? null, session: r.session ? { ...NO_SESSION_OPTIONS, ...r.session } : null,
    testClockId: r.test_clock_id ?? null,
  };
}

/** Column list and parameter values for inserting a new payment, in the same order. */
export const INSERT_COLUMNS = [
  'id', 'merchant_id', 'livemode', 'status', 'amount', 'currency', 'amount_refunded', 'fee', 'net', 'charged',
  'order_id', 'description', 'metadata', 'method', 'customer', 'card', 'failure', 'return_url', 'locale', 'source',
  'created_at', 'paid_at', 'expires_at', 'updated_at', 'version', 'request_id', 'idempotency_key', 'request_hash', 'link_id', 'channel_id', 'session', 'test_clock_id',
  'pending_attempt',
] as const;

/**
 * A JSON object as a jsonb column keeps it: without its null fields, which a reader fills back from
 * the object's defaults (NO_SESSION_OPTIONS, the checkout's OPEN). A gateway payment's session and
 * checkout state are mostly nulls; kept whole they were a quarter of its row and of its events'
 * copies (docs/decisions.md, "A gateway payment stores no nulls in its JSON"). Only the top level
 * is compacted: a nested object (a next action) is stored as it is shown. (The API's `dropNulls`
 * in api/validate.ts recurses, for a request body, and the store sits below the API.)
 */
export function withoutNulls<T extends object>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v;
  return out as Partial<T>;
}


/**
 * A new payment as one element of the insert's JSON parameter (`json_populate_recordset` over the
 * payments row type): the INSERT_COLUMNS by name, JSON values for the jsonb columns, ISO instants.
 * Absent (undefined) values are left out, so they are NULL as in a row built column by column.
 */
export function paymentToRecord(p: Payment): Record<(typeof INSERT_COLUMNS)[number], unknown> {
  return {
    id: p.id, merchant_id: p.merchantId, livemode: p.livemode, status: p.status, amount: p.amount, currency: p.currency,
    amount_refunded: p.amountRefunded, fee: p.fee, net: p.net, charged: p.charged, order_id: p.orderId, description: p.description,
    metadata: p.metadata, method: p.method, customer: p.customer, card: p.card, failure: p.failure, return_url: p.returnUrl,
    locale: p.locale, source: p.source, created_at: isoInstant(p.createdAt), paid_at: isoOrNull(p.paidAt), expires_at: isoInstant(p.expiresAt),
    updated_at: isoInstant(p.updatedAt), version: p.version, request_id: p.requestId, idempotency_key: p.idempotencyKey,
    request_hash: p.requestHash, link_id: p.linkId, channel_id: p.channelId, session: p.session && withoutNulls(p.session), test_clock_id: p.testClockId ?? null,
    pending_attempt: p.pendingAttempt ?? null,
  };
}
