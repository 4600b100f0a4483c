// SQL for the checkout of a payment. The checkout state is a column of the payment row and every
// write of it is checked against the row's version, like every other write of the payment.
import type pg from 'pg';
import { OPEN, type CheckoutState } from '../domain/checkout.js';
import { prefixedId } from '../domain/ids.js';
import type { Payment } from '../domain/payment.js';
import { rowToPayment, withoutNulls, type PaymentRow } from './payment-row.js';
import { columns } from './columns.js';
import { isoInstant } from '../domain/instant.js';

export interface PaymentWithCheckout { payment: Payment; checkout: CheckoutState }

export type CheckoutRow = PaymentRow & { checkout: CheckoutState | null };

export const rowToCheckout = (r: CheckoutRow): PaymentWithCheckout => ({ payment: rowToPayment(r), checkout: { ...OPEN, ...(r.checkout ?? {}) } });

/** The checkout column's value: the state without its null fields, which rowToCheckout fills back from OPEN. */
export const checkoutJson = (c: CheckoutState): string => JSON.stringify(withoutNulls(c));

export async function loadCheckout(db: pg.Pool, id: string): Promise<PaymentWithCheckout | null> {
  const res = await db.query<CheckoutRow>({ name: 'checkout_by_id', text: `SELECT ${columns('payments')} FROM payments WHERE id = $1`, values: [id] });
  return res.rows[0] ? rowToCheckout(res.rows[0]) : null;
}

export interface SavedCardInput { customerKey: string; connector: string; token: string }

/**
 * A checkout change that does not move the payment (a method chosen, an action awaited): the row's
 * version grows, so it is ordered with every other write of the payment. False on a version conflict.
 */
export async function saveCheckout(db: pg.Pool, next: Payment, expectedVersion: number, checkout: CheckoutState): Promise<boolean> {
  const res = await db.query({
    name: 'checkout_update',
    text: 'UPDATE payments SET updated_at = $3, version = $4, checkout = $5 WHERE id = $1 AND version = $2',
    values: [next.id, expectedVersion, isoInstant(next.updatedAt), next.version, checkoutJson(checkout)],
  });
  return res.rowCount === 1;
}

/**
 * Records the checkout of a payment whose status the payment's own update just moved (that update
 * wrote the outbox events and webhook deliveries). Keyed by the version it produced: a later write
 * wins. The payment's status is the truth of the outcome; this keeps selected_method_code.
 */
export async function recordSettledCheckout(db: pg.Pool, id: string, version: number, checkout: CheckoutState): Promise<void> {
  await db.query({ name: 'checkout_settled', text: 'UPDATE payments SET checkout = $3 WHERE id = $1 AND version = $2', values: [id, version, checkoutJson(checkout)] });
}

/** Keeps a card that paid successfully for the customer's later recurrent charges (token, never the number). */
export async function saveCard(db: pg.Pool, p: Payment, save: SavedCardInput): Promise<void> {
  if (!p.card) return;
  await db.query(
    `INSERT INTO saved_cards (id, merchant_id, livemode, customer_key, connector, connector_token, card, fingerprint, payment_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (merchant_id, livemode, customer_key, fingerprint)
     DO UPDATE SET connector_token = EXCLUDED.connector_token, card = EXCLUDED.card, payment_id = EXCLUDED.payment_id`,
    [prefixedId('pm', 20), p.merchantId, p.livemode, save.customerKey, save.connector, save.token, JSON.stringify(p.card), p.card.fingerprint, p.id]);
}

export interface SavedCard { id: string; connector: string; token: string; card: Payment['card'] }

/** A card saved by this merchant's customer (same mode), by its public id. */
export async function findSavedCard(db: pg.Pool, id: string, merchantId: string, livemode: boolean, customerKey: string): Promise<SavedCard | null> {
  const res = await db.query(
    'SELECT id, connector, connector_token, card FROM saved_cards WHERE id = $1 AND merchant_id = $2 AND livemode = $3 AND customer_key = $4',
    [id, merchantId, livemode, customerKey]);
  const r = res.rows[0];
  return r ? { id: r.id, connector: r.connector, token: r.connector_token, card: r.card } : null;
}

export async function listSavedCards(db: pg.Pool, merchantId: string, livemode: boolean, customerKey: string): Promise<{ id: string; card: NonNullable<Payment['card']> }[]> {
  const res = await db.query(
    'SELECT id, card FROM saved_cards WHERE merchant_id = $1 AND livemode = $2 AND customer_key = $3 ORDER BY created_at DESC LIMIT 10',
    [merchantId, livemode, customerKey]);
  return res.rows.map((r) => ({ id: r.id as string, card: r.card }));
}

/** Who "the same customer" is across payments of one merchant: the customer's e-mail, lower case. */
export const customerKeyOf = (p: Payment): string | null => (p.customer.email ? p.customer.email.trim().toLowerCase() : null);
