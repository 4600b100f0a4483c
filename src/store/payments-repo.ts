// SQL for payments. Each write is one round trip: the row change and its outbox event travel in
// one statement (a data-modifying CTE), so they commit or roll back together.
import type pg from 'pg';
import { eventId } from '../domain/ids.js';
import type { Payment, PaymentStatus } from '../domain/payment.js';
import { MERCHANT_DELIVERABLE } from '../domain/webhook-events.js';
import { INSERT_COLUMNS, paymentToParams, rowToPayment, type PaymentRow } from './payment-row.js';

const N = INSERT_COLUMNS.length;

/**
 * Multi-row insert of new payments with their payment.created events, in one statement. Rows whose
 * idempotency key is already taken are skipped (ON CONFLICT DO NOTHING); only the ids of the rows
 * inserted come back, since the caller already holds their state. The event row copies the
 * inserted row, so the outbox needs no second copy of the payload.
 */
function insertSql(rows: number): string {
  const values = Array.from({ length: rows }, (_, r) => `(${INSERT_COLUMNS.map((_, c) => `$${r * N + c + 1}`).join(', ')})`).join(', ');
  const ids = rows * N + 1;
  return `
WITH ins AS (
  INSERT INTO payments (${INSERT_COLUMNS.join(', ')}) VALUES ${values}
  ON CONFLICT (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING *
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, type, aggregate_id, data, created_at)
  SELECT e.eid, ins.merchant_id, ins.livemode, 'payment.created', ins.id, to_jsonb(ins), ins.created_at
  FROM ins JOIN unnest($${ids}::text[], $${ids + 1}::text[]) AS e(pid, eid) ON e.pid = ins.id
)
SELECT id FROM ins`;
}

export type InsertOutcome =
  | { kind: 'created'; payment: Payment }
  | { kind: 'existing'; payment: Payment };

export async function insertPayments(db: pg.Pool, ps: Payment[]): Promise<InsertOutcome[]> {
  const values: unknown[] = [];
  for (const p of ps) values.push(...paymentToParams(p));
  values.push(ps.map((p) => p.id), ps.map(() => eventId()));
  const res = await db.query<{ id: string }>({ name: `payment_insert_${ps.length}`, text: insertSql(ps.length), values });
  const inserted = new Set(res.rows.map((r) => r.id));
  return Promise.all(ps.map(async (p): Promise<InsertOutcome> => {
    if (inserted.has(p.id)) return { kind: 'created', payment: p };
    // The idempotency key is taken: the statement's snapshot could not see the winner, a new one can.
    const existing = await findByIdempotencyKey(db, p.merchantId, p.livemode, p.idempotencyKey!);
    if (!existing) throw new Error('idempotent insert conflicted but no row holds the key');
    return { kind: 'existing', payment: existing };
  }));
}

export async function findByIdempotencyKey(db: pg.Pool, merchantId: string, livemode: boolean, key: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({
    name: 'payment_by_idem',
    text: 'SELECT * FROM payments WHERE merchant_id = $1 AND livemode = $2 AND idempotency_key = $3',
    values: [merchantId, livemode, key],
  });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

export async function findPayment(db: pg.Pool, id: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({ name: 'payment_by_id', text: 'SELECT * FROM payments WHERE id = $1', values: [id] });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

/** A payment by id, or else the latest one with that order number, within one merchant and mode. */
export async function findPaymentForMerchant(db: pg.Pool, merchantId: string, livemode: boolean, idOrOrder: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({
    name: 'payment_by_id_or_order',
    text: `(SELECT *, 0 AS rank FROM payments WHERE id = $1 AND merchant_id = $2 AND livemode = $3)
           UNION ALL
           (SELECT *, 1 AS rank FROM payments WHERE order_id = $1 AND merchant_id = $2 AND livemode = $3
            ORDER BY created_at DESC, id DESC LIMIT 1)
           ORDER BY rank LIMIT 1`,
    values: [idOrOrder, merchantId, livemode],
  });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

/**
 * Conditional update: applies only if the row still has the version the actor loaded. Writes one
 * outbox event per domain event, and one webhook delivery per subscribed merchant API endpoint, in
 * the same statement. Returns null on a version conflict, else the number of deliveries queued.
 */
export async function updatePayment(db: pg.Pool, next: Payment, expectedVersion: number, events: string[]): Promise<number | null> {
  const res = await db.query({
    name: 'payment_update',
    text: `
WITH upd AS (
  UPDATE payments SET status = $3, amount_refunded = $4, method = $5, card = $6, failure = $7, paid_at = $8,
    updated_at = $9, version = $10, charged = $11, expiry_lease = NULL
  WHERE id = $1 AND version = $2
  RETURNING *
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, type, aggregate_id, data, created_at)
  SELECT e.id, upd.merchant_id, upd.livemode, e.type, upd.id, to_jsonb(upd), upd.updated_at
  FROM upd, unnest($12::text[], $13::text[]) AS e(id, type)
  RETURNING id, merchant_id, type, created_at
), dl AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, ws.id, 'merchant', 'pending', ev.created_at, ev.created_at, ev.created_at
  FROM ev JOIN webhook_settings ws ON ws.merchant_id = ev.merchant_id AND ws.api = 'merchant' AND ws.channel_id IS NULL
    AND (ws.events IS NULL OR ev.type = ANY(ws.events))
  WHERE ev.type = ANY($14::text[])
  RETURNING 1
)
SELECT (SELECT count(*) FROM dl)::int AS deliveries FROM upd`,
    values: [
      next.id, expectedVersion, next.status, next.amountRefunded, next.method, JSON.stringify(next.card),
      JSON.stringify(next.failure), next.paidAt === null ? null : new Date(next.paidAt).toISOString(),
      new Date(next.updatedAt).toISOString(), next.version, JSON.stringify(next.charged),
      events.map(() => eventId()), events, MERCHANT_DELIVERABLE,
    ],
  });
  return res.rowCount === 1 ? Number(res.rows[0].deliveries) : null;
}

export interface ListQuery {
  merchantId: string; livemode: boolean; limit: number; status?: PaymentStatus; orderId?: string;
  from?: number; to?: number; startingAfter?: { createdAt: string; id: string };
}

/** Newest first; the cursor is the (created_at, id) of the last payment of the previous page. */
export async function listPayments(db: pg.Pool, q: ListQuery): Promise<{ payments: Payment[]; hasMore: boolean }> {
  const where = ['merchant_id = $1', 'livemode = $2'];
  const values: unknown[] = [q.merchantId, q.livemode];
  const add = (sql: string, v: unknown) => { values.push(v); where.push(sql.replace('?', `$${values.length}`)); };
  if (q.status) add('status = ?', q.status);
  if (q.orderId) add('order_id = ?', q.orderId);
  if (q.from !== undefined) add('created_at >= ?', new Date(q.from).toISOString());
  if (q.to !== undefined) add('created_at < ?', new Date(q.to).toISOString());
  if (q.startingAfter) {
    values.push(q.startingAfter.createdAt, q.startingAfter.id);
    where.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  values.push(q.limit + 1);
  const res = await db.query<PaymentRow>(
    `SELECT * FROM payments WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`, values);
  const rows = res.rows.map(rowToPayment);
  return { payments: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** The exact created_at text of a payment, for a cursor that must not lose microseconds. */
export async function cursorOf(db: pg.Pool, merchantId: string, livemode: boolean, id: string): Promise<{ createdAt: string; id: string } | null> {
  const res = await db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS c FROM payments WHERE id = $1 AND merchant_id = $2 AND livemode = $3`,
    [id, merchantId, livemode]);
  return res.rows[0] ? { createdAt: res.rows[0].c, id } : null;
}

/**
 * Leases due pending payments for expiry so that several processes share the work without
 * handing one payment to two of them at once. The lease only routes work; the actor's
 * version-checked update decides.
 */
export async function claimDuePayments(db: pg.Pool, limit: number, leaseSeconds = 30): Promise<string[]> {
  const res = await db.query({
    name: 'payments_claim_due',
    text: `UPDATE payments SET expiry_lease = now() + make_interval(secs => $2)
           WHERE id IN (SELECT id FROM payments WHERE status = 'pending' AND expires_at <= now()
                          AND (expiry_lease IS NULL OR expiry_lease < now())
                        ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING id`,
    values: [limit, leaseSeconds],
  });
  return res.rows.map((r) => r.id as string);
}

/** Idempotency keys live 24 hours: after that the same key may create a new payment. */
export async function releaseOldIdempotencyKeys(db: pg.Pool, ttlSeconds: number): Promise<number> {
  const res = await db.query(
    `UPDATE payments SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM payments WHERE idempotency_key IS NOT NULL AND created_at < now() - make_interval(secs => $1)
       LIMIT 1000 FOR UPDATE SKIP LOCKED)`, [ttlSeconds]);
  return res.rowCount ?? 0;
}
