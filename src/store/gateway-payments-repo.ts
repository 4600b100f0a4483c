// Reads of the gateway API's Payment resource: gateway rows (checkout sessions, source gateway) of one
// merchant and mode, with their checkout state, count of succeeded refunds and the bank reference of
// the payment's last answered attempt.
import type pg from 'pg';
import type { StoredStatus } from '../domain/gateway-payment.js';
import { rowToCheckout, type CheckoutRow, type PaymentWithCheckout } from './checkout-repo.js';
import { MS_TIMESTAMPS } from './timestamps.js';
import { columns } from './columns.js';

export interface GatewayExtras { refundCount: number; connectorTransactionId: string | null }
export interface GatewayPaymentRead extends PaymentWithCheckout, GatewayExtras {}

type Row = CheckoutRow & { refund_count: number; connector_transaction_id: string | null; total?: number };

/** What a gateway payment's view adds to the row of payment `p`: its succeeded refunds, and the id of its charge's attempt (the bank's transaction). */
export const REFUND_COUNT_OF_P = `(SELECT count(*)::int FROM refunds r WHERE r.payment_id = p.id AND r.status = 'succeeded')`;
export const CONNECTOR_TRANSACTION_OF_P = `(SELECT a.id FROM connector_attempts a WHERE a.aggregate_id = p.id AND a.operation NOT IN ('refund', 'capture', 'void')
     AND a.status IN ('succeeded', 'action_required') ORDER BY a.created_at DESC LIMIT 1)`;

const SELECT = `SELECT ${columns('payments', 'p')}, ${REFUND_COUNT_OF_P} AS refund_count, ${CONNECTOR_TRANSACTION_OF_P} AS connector_transaction_id`;

const toRead = (r: Row): GatewayPaymentRead => ({ ...rowToCheckout(r), refundCount: r.refund_count, connectorTransactionId: r.connector_transaction_id });

export interface GatewayScope { merchantId: string; livemode: boolean; channelId: string | null }

/** By payment id (= the cs_ session id), order_id (the latest) or the bank reference (connector_transaction_id). */
export async function findGatewayPayment(db: pg.Pool, scope: GatewayScope, key: string): Promise<GatewayPaymentRead | null> {
  const res = await db.query<Row>({
    name: 'gateway_payment_by_key',
    text: `${SELECT} FROM payments p
      WHERE p.merchant_id = $1 AND p.livemode = $2 AND p.session IS NOT NULL
        AND (p.id = $3 OR p.order_id = $3 OR p.id = (SELECT a.aggregate_id FROM connector_attempts a WHERE a.id = $3))
      ORDER BY (p.id = $3) DESC, p.created_at DESC, p.id DESC LIMIT 1`,
    values: [scope.merchantId, scope.livemode, key],
  });
  return res.rows[0] ? toRead(res.rows[0]) : null;
}

/**
 * Gateway rows by primary key, many in one statement (PaymentReads groups the lookups by id of
 * GET /v2/payments/{id}, its refund, capture and cancel): whichever merchant owns each, so the
 * caller checks the scope, and falls back to findGatewayPayment for the other names.
 */
export async function gatewayRowsByIds(db: pg.Pool, ids: string[]): Promise<Map<string, GatewayPaymentRead>> {
  const res = await db.query<Row>({ name: 'gateway_payments_by_ids', text: `${SELECT} FROM payments p WHERE p.id = ANY($1::text[]) AND p.session IS NOT NULL`, values: [ids], types: MS_TIMESTAMPS });
  return new Map(res.rows.map((r) => [r.id, toRead(r)]));
}

/** The list's lookups by name (spec rule 1): each one given narrows the list; a payment's id is its checkout session id. */
export interface GatewayNameFilters { payment_id?: string; order_id?: string; checkout_session_id?: string; reference?: string }

export interface GatewayListQuery extends GatewayScope, GatewayNameFilters { statuses: StoredStatus[] | null; from?: number; to?: number; limit: number; offset: number }

/** Newest first, with the total of the filter (the payouts list's page shape). */
export async function listGatewayPayments(db: pg.Pool, q: GatewayListQuery): Promise<{ payments: GatewayPaymentRead[]; total: number }> {
  const where = ['p.merchant_id = $1', 'p.livemode = $2', 'p.session IS NOT NULL'];
  const values: unknown[] = [q.merchantId, q.livemode];
  const add = (sql: string, v: unknown) => { values.push(v); where.push(sql.replace('?', `$${values.length}`)); };
  if (q.channelId) add('p.channel_id = ?', q.channelId);
  // Each by an index scoped to the merchant: the primary key (then the merchant and mode above),
  // payments_order (merchant_id, livemode, order_id, created_at), and the attempt's primary key.
  if (q.payment_id !== undefined) add('p.id = ?', q.payment_id);
  if (q.checkout_session_id !== undefined) add('p.id = ?', q.checkout_session_id);
  if (q.order_id !== undefined) add('p.order_id = ?', q.order_id);
  if (q.reference !== undefined) add('p.id = (SELECT a.aggregate_id FROM connector_attempts a WHERE a.id = ?)', q.reference);
  if (q.statuses) {
    const wait = { none: ` AND p.checkout->>'awaiting' IS NULL`, action: ` AND p.checkout->>'awaiting' <> 'poll'`, poll: ` AND p.checkout->>'awaiting' = 'poll'`, any: '' };
    const any = q.statuses.map((f) => { values.push(f.status); return `(p.status = $${values.length}${wait[f.wait]})`; });
    where.push(`(${any.join(' OR ')})`);
  }
  if (q.from !== undefined) add('p.created_at >= ?', new Date(q.from).toISOString());
  if (q.to !== undefined) add('p.created_at < ?', new Date(q.to).toISOString());
  values.push(q.limit, q.offset);
  const res = await db.query<Row>(
    `${SELECT}, count(*) OVER ()::int AS total FROM payments p WHERE ${where.join(' AND ')}
     ORDER BY p.created_at DESC, p.id DESC LIMIT $${values.length - 1} OFFSET $${values.length}`, values);
  let total = res.rows[0]?.total ?? 0;
  if (res.rows.length === 0 && q.offset > 0) {
    const c = await db.query(`SELECT count(*)::int AS n FROM payments p WHERE ${where.join(' AND ')}`, values.slice(0, -2));
    total = c.rows[0].n;
  }
  return { payments: res.rows.map(toRead), total };
}
