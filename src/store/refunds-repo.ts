// SQL for refunds. A refund is written by its payment's actor in two statements, each under the
// payment's version check (DESIGN invariants 1 and 9): `beginRefunds` (many refunds, grouped) records the connector attempt,
// names it on the payment (`pending_attempt`) and inserts the refund as `pending` (claiming its
// idempotency key before the bank is asked); `settleRefunds` (grouped too) records the bank's answer: the refund's
// final status, the payment's move, the attempt's outcome, the outbox events and the webhook
// deliveries, all in one statement.
import type pg from 'pg';
import { eventId } from '../domain/ids.js';
import type { Payment } from '../domain/payment.js';
import { balanceDelta } from '../domain/payment-status.js';
import type { Refund } from '../domain/refund.js';
import { MERCHANT_DELIVERABLE } from '../domain/webhook-events.js';
import { stillStarted, type AttemptStart } from './attempts-repo.js';
import { balanceCte } from './balance-settled.js';
import { rowToRefund, type RefundRow } from './refund-row.js';
import { columns } from './columns.js';
import { jsonbArrayOf, jsonbList } from './jsonb-list.js';
import { withArrayLiterals } from './pg-array.js';
import { isoInstant } from '../domain/instant.js';


/** Whether a grouped begin's error (beginRefunds) is its row's Idempotency-Key held by another refund. */
export const refundKeyTaken = (err: unknown): boolean => (err as { constraint?: string } | null)?.constraint === 'refunds_idempotency';

/** One refund to begin: its payment's version as its actor loaded it, the attempt and the pending refund row. */
export interface RefundBegin { expectedVersion: number; attempt: AttemptStart; refund: Refund }

/**
 * Step 1 of the attempt protocol for refunds of many payments, in one statement (the shard's refunds
 * group writer): each row applies only if its payment still has the expected version and no attempt
 * in flight; its attempt and its pending refund are written only with it. For each: true when
 * recorded, false on that row's conflict (nothing of it written). An idempotency key another refund
 * holds breaks the whole statement (`refunds_idempotency`): the group writer splits it until that
 * row fails alone, and its caller reads the error as the key taken (refund-actor.ts).
 */
const BEGIN_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], ${jsonbArrayOf('$8')},
                       $9::text[], $10::text[], $11::boolean[], $12::text[], $13::text[], $14::text[], $15::text[], $16::timestamptz[])
    AS v(pid, expected, att_id, operation, connector, amount, currency, context,
         refund_id, merchant_id, livemode, reason, request_id, idempotency_key, request_hash, created_at)
), upd AS (
  UPDATE payments p SET version = p.version + 1, pending_attempt = v.att_id, due_at = payment_due_at(p.status, p.expires_at, v.att_id)
  FROM v WHERE p.id = v.pid AND p.version = v.expected AND p.pending_attempt IS NULL
  RETURNING p.id, p.pending_attempt
), att AS (
  INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
  SELECT v.att_id, upd.id, v.operation, v.connector, v.amount, v.currency, 'started', v.context
  FROM upd JOIN v ON v.att_id = upd.pending_attempt AND v.pid = upd.id
  RETURNING id
)
INSERT INTO refunds (id, payment_id, merchant_id, livemode, amount, currency, status, reason, attempt_id,
                     request_id, idempotency_key, request_hash, created_at, updated_at)
SELECT v.refund_id, v.pid, v.merchant_id, v.livemode, v.amount, v.currency, 'pending', v.reason, att.id,
       v.request_id, v.idempotency_key, v.request_hash, v.created_at, v.created_at
FROM att JOIN v ON v.att_id = att.id
RETURNING attempt_id`;

export async function beginRefunds(db: pg.Pool, bs: RefundBegin[]): Promise<boolean[]> {
  // Payment ids in order, so two processes' groups touching the same payments meet them alike.
  const xs = [...bs].sort((a, b) => (a.refund.paymentId < b.refund.paymentId ? -1 : a.refund.paymentId > b.refund.paymentId ? 1 : 0));
  const col = <T>(f: (b: RefundBegin) => T) => xs.map(f);
  const res = await db.query<{ attempt_id: string }>({
    name: 'refunds_begin',
    text: BEGIN_SQL,
    values: withArrayLiterals([col((b) => b.refund.paymentId), col((b) => b.expectedVersion), col((b) => b.attempt.id), col((b) => b.attempt.operation),
      col((b) => b.attempt.connector), col((b) => b.attempt.amount), col((b) => b.attempt.currency), jsonbList(col((b) => JSON.stringify(b.attempt.context))),
      col((b) => b.refund.id), col((b) => b.refund.merchantId), col((b) => b.refund.livemode), col((b) => b.refund.reason),
      col((b) => b.refund.requestId), col((b) => b.refund.idempotencyKey), col((b) => b.refund.requestHash), col((b) => isoInstant(b.refund.createdAt))]),
  });
  const started = new Set(res.rows.map((r) => r.attempt_id));
  return bs.map((b) => started.has(b.attempt.id));
}

export interface RefundSettlement {
  /** The payment after the refund (moved when the money went back, else only its version and attempt). */
  next: Payment;
  /** The payment as its actor loaded it: the row applies only at this version; balanceDelta from it. */
  prev: Pick<Payment, 'version' | 'status' | 'net'>;
  refund: { id: string; status: 'succeeded' | 'failed'; failureCode: string | null; connectorRef: string | null };
  attempt: { id: string; status: 'succeeded' | 'failed'; result: unknown };
  events: string[];
}

// Each payment applies only if it still has the version its actor loaded and still names its
// attempt; everything else hangs off that row. `refund.succeeded` (merchant API payments only)
// carries the payment row and, under `refund`, the refund row; `payment.refunded` (gateway API)
// carries the payment row too (with the refund's id and amount beside it), so the dispatcher
// renders the gateway's flat summary and resolves the session's target as for its other payment.*
// events. It is delivered for a gateway checkout session when a target exists; a merchant API
// payment's is recorded only (it has no gateway endpoint to go to). Many payments' settlements go
// in one statement (the shard's refund settlements group writer); one payment has at most one
// refund in flight, so a statement never holds two rows of one payment.
const SETTLE_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::bigint[], $6::timestamptz[], $7::int[], $8::text[],
                       $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], ${jsonbArrayOf('$14')}, $19::bigint[])
    AS v(pid, expected, status, amount_refunded, net, updated_at, version, att_id,
         refund_status, failure_code, connector_ref, refund_id, att_status, att_result, balance_delta)
), upd AS (
  -- Each later step reads its inputs from this row (the x_ columns, and the payment's JSON for the
  -- events): joining two CTEs again would be a nested loop over both (the planner counts a CTE as
  -- one row), quadratic in the group's size.
  UPDATE payments p SET status = v.status, amount_refunded = v.amount_refunded, net = v.net, updated_at = v.updated_at, version = v.version, pending_attempt = NULL,
    due_at = payment_due_at(v.status, p.expires_at, NULL)
  FROM v WHERE p.id = v.pid AND p.version = v.expected AND p.pending_attempt = v.att_id
  RETURNING p.id, p.merchant_id, p.livemode, p.currency, p.updated_at, p.session, p.channel_id, to_jsonb(p) AS pj,
    v.refund_id AS x_refund_id, v.refund_status AS x_refund_status, v.failure_code AS x_failure_code, v.connector_ref AS x_connector_ref,
    v.att_id AS x_att_id, v.att_status AS x_att_status, v.att_result AS x_att_result, v.balance_delta AS x_balance_delta
), rf AS (
  UPDATE refunds r SET status = upd.x_refund_status, failure_code = upd.x_failure_code, connector_ref = upd.x_connector_ref, updated_at = upd.updated_at
  FROM upd WHERE r.id = upd.x_refund_id AND r.payment_id = upd.id AND r.status = 'pending'
  RETURNING r.id, r.payment_id, r.amount, to_jsonb(r) AS rj, upd.pj, upd.merchant_id AS p_merchant_id, upd.livemode AS p_livemode,
    upd.updated_at AS p_updated_at, upd.session IS NULL AS p_plain, upd.session->>'webhookUrl' AS p_hook, upd.channel_id AS p_channel
), att AS (
  UPDATE connector_attempts a SET status = upd.x_att_status, result = upd.x_att_result, updated_at = now()
  FROM upd WHERE a.id = upd.x_att_id AND ${stillStarted('a')}
), ${balanceCte({ onUpd: 'x_balance_delta' })}, evs AS MATERIALIZED (
  -- Each event with what its row and its deliveries need, read once from the refund's row: the
  -- events' and both deliveries' inserts read this list and no other CTE (a join of two CTEs is a
  -- loop quadratic in the group: docs/decisions.md, "A payment's grouped update joins no two CTEs").
  -- A gateway session's refund is a gateway event only: refund.succeeded (merchant API) is not
  -- recorded for it, so no merchant API endpoint ever gets a session (as for its payment.* events).
  -- Its payment.refunded is deliverable when any of its four webhook targets exists (as in
  -- payments-repo.ts), tested once per such event.
  SELECT e.eid, e.type, rf.payment_id, rf.p_merchant_id, rf.p_livemode, rf.p_updated_at,
    CASE WHEN e.type = 'payment.refunded' THEN 'gateway' ELSE 'merchant' END AS api,
    CASE WHEN e.type = 'payment.refunded'
      THEN rf.pj || jsonb_build_object('refund_id', rf.id, 'refund_amount', rf.amount)
      ELSE rf.pj || jsonb_build_object('refund', rf.rj) END AS data,
    CASE WHEN rf.p_plain OR e.type <> 'payment.refunded' THEN false
      ELSE (rf.p_hook IS NOT NULL
        OR EXISTS (SELECT 1 FROM channels c WHERE c.id = rf.p_channel AND c.webhook_url IS NOT NULL)
        OR EXISTS (SELECT 1 FROM webhook_settings ws WHERE ws.merchant_id = rf.p_merchant_id AND ws.api = 'gateway'
                     AND (ws.channel_id IS NULL OR ws.channel_id = rf.p_channel))) END AS gateway_target
  FROM rf JOIN unnest($15::text[], $16::text[], $17::text[]) AS e(pid, eid, type) ON e.pid = rf.payment_id
  WHERE e.type = 'payment.refunded' OR rf.p_plain
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at)
  SELECT eid, p_merchant_id, p_livemode, api, type, payment_id, data, p_updated_at FROM evs
), dl AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), evs.eid, evs.p_merchant_id, ws.id, 'merchant', 'pending', evs.p_updated_at, clock_timestamp(), clock_timestamp()
  FROM evs JOIN webhook_settings ws ON ws.merchant_id = evs.p_merchant_id AND ws.api = 'merchant' AND ws.channel_id IS NULL
    AND (ws.events IS NULL OR evs.type = ANY(ws.events))
  WHERE evs.api = 'merchant' AND evs.type = ANY($18::text[])
  RETURNING event_id
), dg AS (
  -- A gateway session's payment.refunded: one delivery whose target is resolved at each attempt.
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), eid, p_merchant_id, NULL, 'gateway', 'pending', p_updated_at, clock_timestamp(), clock_timestamp()
  FROM evs WHERE gateway_target
  RETURNING event_id
)
-- One row of lists, each read once: a count per payment of upd would scan rf (wide: it carries the
-- payment's JSON) once per payment. The event of each delivery queued: the caller, which made the
-- event ids, counts them per payment.
SELECT (SELECT array_agg(id) FROM upd) AS applied,
  (SELECT array_agg(payment_id) FROM rf) AS refunded,
  (SELECT array_agg(event_id) FROM (SELECT event_id FROM dl UNION ALL SELECT event_id FROM dg) d) AS delivered`;

/**
 * Step 3, for many refunds in one statement. For each: the number of webhook deliveries queued,
 * null on its version conflict (nothing of it written), or an Error when its refund was not pending
 * (a bug: the refund row is inserted with its attempt and only this statement finishes it).
 */
export async function settleRefunds(db: pg.Pool, ss: RefundSettlement[]): Promise<(number | null | Error)[]> {
  const xs = [...ss].sort((a, b) => (a.next.id < b.next.id ? -1 : a.next.id > b.next.id ? 1 : 0));
  const col = <T>(f: (s: RefundSettlement) => T) => xs.map(f);
  const evs = xs.flatMap((s) => s.events.map((type) => ({ pid: s.next.id, eid: eventId(), type })));
  const res = await db.query<{ applied: string[] | null; refunded: string[] | null; delivered: string[] | null }>({
    name: 'refunds_settle',
    text: SETTLE_SQL,
    values: withArrayLiterals([col((s) => s.next.id), col((s) => s.prev.version), col((s) => s.next.status), col((s) => s.next.amountRefunded), col((s) => s.next.net),
      col((s) => isoInstant(s.next.updatedAt)), col((s) => s.next.version), col((s) => s.attempt.id),
      col((s) => s.refund.status), col((s) => s.refund.failureCode), col((s) => s.refund.connectorRef), col((s) => s.refund.id),
      col((s) => s.attempt.status), jsonbList(col((s) => JSON.stringify(s.attempt.result))),
      evs.map((e) => e.pid), evs.map((e) => e.eid), evs.map((e) => e.type), MERCHANT_DELIVERABLE,
      col((s) => balanceDelta(s.prev, s.next))]),
  });
  const { applied, refunded, delivered } = res.rows[0];
  const settled = new Set(applied ?? []);
  const refundedIds = new Set(refunded ?? []);
  const paymentOf = new Map(evs.map((e) => [e.eid, e.pid]));
  const deliveries = new Map<string, number>();
  for (const eid of delivered ?? []) {
    const id = paymentOf.get(eid)!;
    deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
  }
  return ss.map((s) => {
    if (!settled.has(s.next.id)) return null;
    if (!refundedIds.has(s.next.id)) return new Error(`refund ${s.refund.id} was not pending when its attempt ${s.attempt.id} settled`);
    return deliveries.get(s.next.id) ?? 0;
  });
}

/**
 * A refund that never reached the bank (the connector refused it, or a status query found the bank
 * never received it): the pending row is deleted, the payment released, the attempt closed, in one
 * statement. False on a version conflict.
 */
export async function dropRefund(db: pg.Pool, paymentId: string, expectedVersion: number, attemptId: string, attemptStatus: 'failed' | 'abandoned', result: unknown): Promise<boolean> {
  const res = await db.query({
    name: 'refund_drop',
    text: `WITH upd AS (
             UPDATE payments SET version = version + 1, pending_attempt = NULL, due_at = payment_due_at(status, expires_at, NULL)
             WHERE id = $1 AND version = $2 AND pending_attempt = $3 RETURNING id
           ), del AS (
             DELETE FROM refunds r USING upd WHERE r.attempt_id = $3 AND r.payment_id = upd.id AND r.status = 'pending'
           ), att AS (
             UPDATE connector_attempts a SET status = $4, result = $5, updated_at = now() FROM upd WHERE a.id = $3 AND ${stillStarted('a')}
           )
           SELECT id FROM upd`,
    values: [paymentId, expectedVersion, attemptId, attemptStatus, JSON.stringify(result)],
  });
  return res.rowCount === 1;
}

export async function findRefundByAttempt(db: pg.Pool, attemptId: string): Promise<Refund | null> {
  const res = await db.query<RefundRow>({ name: 'refund_by_attempt', text: `SELECT ${columns('refunds')} FROM refunds WHERE attempt_id = $1`, values: [attemptId] });
  return res.rows[0] ? rowToRefund(res.rows[0]) : null;
}

/**
 * A page of a payment's refunds, newest first; `startingAfter` is the id of the last refund of the
 * previous page (null when it is not a refund of this payment).
 */
export async function listRefunds(db: pg.Pool, paymentId: string, limit: number, startingAfter: string | null = null): Promise<{ refunds: Refund[]; hasMore: boolean } | null> {
  const res = await db.query<RefundRow>({
    name: 'refunds_of_payment',
    text: `SELECT ${columns('refunds', 'r')} FROM refunds r
           WHERE r.payment_id = $1
             AND ($3::text IS NULL OR (r.created_at, r.id) < (SELECT c.created_at, c.id FROM refunds c WHERE c.id = $3 AND c.payment_id = $1))
           ORDER BY r.created_at DESC, r.id DESC LIMIT $2`,
    values: [paymentId, limit + 1, startingAfter],
  });
  if (startingAfter !== null && res.rows.length === 0) {
    const known = await db.query('SELECT 1 FROM refunds WHERE id = $1 AND payment_id = $2', [startingAfter, paymentId]);
    if (known.rowCount === 0) return null;
  }
  const rows = res.rows.map(rowToRefund);
  return { refunds: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Idempotency keys live 24 hours: after that the same key may create a new refund. */
export async function releaseOldRefundKeys(db: pg.Pool, ttlSeconds: number, limit: number): Promise<number> {
  const res = await db.query(
    `UPDATE refunds SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM refunds WHERE idempotency_key IS NOT NULL AND status <> 'pending' AND created_at < now() - make_interval(secs => $1)
       LIMIT $2 FOR UPDATE SKIP LOCKED)`, [ttlSeconds, limit]);
  return res.rowCount ?? 0;
}
