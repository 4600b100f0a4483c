// SQL for payouts and the balance. A payout is written by its own actor in two steps of the attempt
// protocol: `beginPayout` (one statement: the reservation on the balance's row for the currency and
// mode, the available-balance check, the connector attempt and the pending payout) and
// `settlePayout` (one statement: the payout's final status, the attempt's outcome, a failed payout's
// reservation given back, the outbox event and its webhook deliveries). docs/decisions.md "Payouts and balance".
import type pg from 'pg';
import { eventId } from '../domain/ids.js';
import type { MaskedDestination, Payout, PayoutFailure, PayoutStatus } from '../domain/payout.js';
import type { AttemptStart } from './attempts-repo.js';

const iso = (v: number) => new Date(v).toISOString();
const ms = (v: Date | string): number => (v instanceof Date ? v.getTime() : Date.parse(v));

interface PayoutRow {
  id: string; merchant_id: string; livemode: boolean; amount: string | number; currency: string; status: PayoutStatus;
  destination: MaskedDestination; failure: PayoutFailure | null; metadata: Record<string, string>; attempt_id: string;
  connector_ref: string | null; request_id: string; idempotency_key: string | null; request_hash: string | null;
  created_at: Date | string; updated_at: Date | string;
}

export const rowToPayout = (r: PayoutRow): Payout => ({
  id: r.id, merchantId: r.merchant_id, livemode: r.livemode, status: r.status, amount: Number(r.amount), currency: r.currency,
  destination: r.destination, failure: r.failure, metadata: r.metadata, attemptId: r.attempt_id, connectorRef: r.connector_ref,
  requestId: r.request_id, idempotencyKey: r.idempotency_key, requestHash: r.request_hash, createdAt: ms(r.created_at), updatedAt: ms(r.updated_at),
});

/** Statuses of a payment whose net counts towards the balance. */
const SETTLED = `('succeeded', 'partially_refunded', 'refunded')`;

/**
 * The available balance of one currency and mode: the net (amount less fee less refunds) of its
 * settled payments, less every payout that has not failed (pending payouts are reserved).
 */
const AVAILABLE = `(COALESCE((SELECT sum(net) FROM payments WHERE merchant_id = $1 AND livemode = $2 AND currency = $3 AND status IN ${SETTLED}), 0)
      - COALESCE((SELECT sum(amount) FROM payouts WHERE merchant_id = $1 AND livemode = $2 AND currency = $3 AND status <> 'failed'), 0))::bigint`;

export type PayoutBegin = { kind: 'started' } | { kind: 'insufficient'; available: number } | { kind: 'key_taken' };

/**
 * The reservation, in one statement (so one round trip and one commit hold the balance's lock):
 * the Idempotency-Key first (a payout holding it is the answer, never a balance refusal its own
 * reservation caused), then the balance row `payout_balances` (migration 024) is locked by the
 * upsert and its `held` raised by the amount only if it still fits under the net of the settled
 * payments; the attempt and the pending payout are inserted only with it. The net is summed before
 * the row's lock is waited for (a payment settling meanwhile only adds to it); `held` is re-read
 * after the wait (an upsert's conflict arm always sees the latest committed row), so every payout
 * of one balance, in any process, reserves in turn and none overdraws.
 */
const RESERVE_SQL = `
WITH net AS (
  SELECT COALESCE(sum(net), 0)::bigint AS v FROM payments
  WHERE merchant_id = $1 AND livemode = $2 AND currency = $3 AND status IN ${SETTLED}
), taken AS (
  SELECT 1 FROM payouts WHERE $4::text IS NOT NULL AND merchant_id = $1 AND livemode = $2 AND idempotency_key = $4
), bal AS (
  INSERT INTO payout_balances AS b (merchant_id, livemode, currency, held)
  SELECT $1, $2, $3, $5::bigint FROM net WHERE $5::bigint <= net.v AND NOT EXISTS (SELECT 1 FROM taken)
  ON CONFLICT (merchant_id, livemode, currency) DO UPDATE SET held = b.held + EXCLUDED.held
    WHERE b.held + EXCLUDED.held <= (SELECT v FROM net)
  RETURNING 1
), att AS (
  INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
  SELECT $6, $7, $8, $9, $10, $11, 'started', $12 FROM bal
), po AS (
  INSERT INTO payouts (id, merchant_id, livemode, amount, currency, status, destination, failure, metadata, attempt_id,
                       request_id, idempotency_key, request_hash, created_at, updated_at)
  SELECT $7, $1, $2, $5, $3, 'pending', $13, NULL, $14, $6, $15, $4, $16, $17, $17 FROM bal
)
SELECT EXISTS (SELECT 1 FROM bal) AS reserved, EXISTS (SELECT 1 FROM taken) AS taken`;

/** After a refusal: whether the key is held by now, and the balance available (from the rows). */
const REFUSAL_SQL = `
SELECT EXISTS (SELECT 1 FROM payouts WHERE $4::text IS NOT NULL AND merchant_id = $1 AND livemode = $2 AND idempotency_key = $4) AS taken,
  ${AVAILABLE} AS available`;

/**
 * Step 1 of the attempt protocol for a payout: reserves the amount on the balance and records the
 * attempt and the pending payout, in one statement (RESERVE_SQL); the bank is called after it has
 * committed, never under the balance's lock. `settlePayout` gives a failed payout's amount back.
 */
export async function beginPayout(db: pg.Pool, p: Payout, a: AttemptStart): Promise<PayoutBegin> {
  let res: pg.QueryResult<{ reserved: boolean; taken: boolean }>;
  try {
    res = await db.query({
      name: 'payout_reserve',
      text: RESERVE_SQL,
      values: [p.merchantId, p.livemode, p.currency, p.idempotencyKey, p.amount, a.id, p.id, a.operation, a.connector, a.amount, a.currency,
        JSON.stringify(a.context), JSON.stringify(p.destination), JSON.stringify(p.metadata), p.requestId, p.requestHash, iso(p.createdAt)],
    });
  } catch (err) {
    // The key was committed by another request while this one waited: that payout is the answer.
    if ((err as { constraint?: string }).constraint === 'payouts_idempotency') return { kind: 'key_taken' };
    throw err;
  }
  const r = res.rows[0];
  if (r.reserved) return { kind: 'started' };
  if (r.taken) return { kind: 'key_taken' };
  // Refused for the balance: read again, so that a key committed meanwhile answers as its payout.
  const again = await db.query<{ taken: boolean; available: string }>({
    name: 'payout_refusal', text: REFUSAL_SQL, values: [p.merchantId, p.livemode, p.currency, p.idempotencyKey],
  });
  const x = again.rows[0];
  return x.taken ? { kind: 'key_taken' } : { kind: 'insufficient', available: Number(x.available) };
}

export interface PayoutSettlement {
  next: Payout;
  attempt: { id: string; status: 'succeeded' | 'failed' | 'abandoned'; result: unknown };
  event: 'payout.paid' | 'payout.failed';
  /** The event's data: the payout as the gateway API shows it. */
  data: unknown;
}

// The payout moves only if it is still pending on this attempt; the attempt, the event and its
// deliveries (to the merchant-wide gateway webhook row: a payout belongs to no channel) hang off it.
const SETTLE_SQL = `
WITH upd AS (
  UPDATE payouts SET status = $3, failure = $4, connector_ref = $5, updated_at = $6, version = version + 1
  WHERE id = $1 AND attempt_id = $2 AND status = 'pending'
  RETURNING *
), att AS (
  UPDATE connector_attempts a SET status = $7, result = $8, updated_at = now()
  FROM upd WHERE a.id = $2 AND a.status = 'started'
), rel AS (
  -- A failed payout gives its reservation back (migration 024).
  UPDATE payout_balances b SET held = b.held - upd.amount
  FROM upd WHERE upd.status = 'failed' AND b.merchant_id = upd.merchant_id AND b.livemode = upd.livemode AND b.currency = upd.currency
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at)
  SELECT $9, upd.merchant_id, upd.livemode, 'gateway', $10, upd.id, $11, upd.updated_at FROM upd
  RETURNING id, merchant_id, type, created_at
), dl AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, ws.id, 'gateway', 'pending', ev.created_at, ev.created_at, ev.created_at
  FROM ev JOIN webhook_settings ws ON ws.merchant_id = ev.merchant_id AND ws.api = 'gateway' AND ws.channel_id IS NULL
    AND (ws.events IS NULL OR ev.type = ANY(ws.events))
  RETURNING 1
)
SELECT (SELECT count(*) FROM dl)::int AS deliveries FROM upd`;

/** Step 3. The number of webhook deliveries queued, or null when the payout was no longer pending on this attempt. */
export async function settlePayout(db: pg.Pool, s: PayoutSettlement): Promise<number | null> {
  const n = s.next;
  const res = await db.query<{ deliveries: number }>({
    name: 'payout_settle',
    text: SETTLE_SQL,
    values: [n.id, s.attempt.id, n.status, n.failure ? JSON.stringify(n.failure) : null, n.connectorRef, iso(n.updatedAt),
      s.attempt.status, JSON.stringify(s.attempt.result), eventId(), s.event, JSON.stringify(s.data)],
  });
  return res.rows[0] ? res.rows[0].deliveries : null;
}

export async function findPayout(db: pg.Pool, id: string): Promise<Payout | null> {
  const res = await db.query<PayoutRow>({ name: 'payout_by_id', text: 'SELECT * FROM payouts WHERE id = $1', values: [id] });
  return res.rows[0] ? rowToPayout(res.rows[0]) : null;
}

export async function findPayoutByKey(db: pg.Pool, merchantId: string, livemode: boolean, key: string): Promise<Payout | null> {
  const res = await db.query<PayoutRow>({
    name: 'payout_by_idem',
    text: 'SELECT * FROM payouts WHERE merchant_id = $1 AND livemode = $2 AND idempotency_key = $3',
    values: [merchantId, livemode, key],
  });
  return res.rows[0] ? rowToPayout(res.rows[0]) : null;
}

/**
 * A page of the merchant's payouts in one mode, newest first, `offset` rows in (the payments list's
 * page shape: limit and offset), with the total count of rows that match.
 */
export async function listPayouts(db: pg.Pool, q: { merchantId: string; livemode: boolean; status: PayoutStatus | null; limit: number; offset: number }): Promise<{ payouts: Payout[]; total: number }> {
  const res = await db.query<PayoutRow & { total: string }>({
    name: 'payouts_list',
    text: `SELECT *, count(*) OVER () AS total FROM payouts
           WHERE merchant_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)
           ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
    values: [q.merchantId, q.livemode, q.status, q.limit, q.offset],
  });
  let total = res.rows[0] ? Number(res.rows[0].total) : 0;
  if (!res.rows[0] && q.offset > 0) {
    const c = await db.query('SELECT count(*)::int AS n FROM payouts WHERE merchant_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)', [q.merchantId, q.livemode, q.status]);
    total = c.rows[0].n;
  }
  return { payouts: res.rows.map(rowToPayout), total };
}

export interface CurrencyBalance { currency: string; available: number; pending: number }

/** Every currency of the merchant's mode that has settled payments or payouts. */
export async function balanceOf(db: pg.Pool, merchantId: string, livemode: boolean): Promise<CurrencyBalance[]> {
  const res = await db.query<{ currency: string; net: string; held: string; pending: string }>({
    name: 'balance_of',
    text: `SELECT currency, sum(net)::bigint AS net, sum(held)::bigint AS held, sum(pending)::bigint AS pending FROM (
             SELECT currency, net, 0 AS held, 0 AS pending FROM payments WHERE merchant_id = $1 AND livemode = $2 AND status IN ${SETTLED}
             UNION ALL
             SELECT currency, 0, amount, CASE WHEN status = 'pending' THEN amount ELSE 0 END FROM payouts
             WHERE merchant_id = $1 AND livemode = $2 AND status <> 'failed'
           ) x GROUP BY currency ORDER BY currency`,
    values: [merchantId, livemode],
  });
  return res.rows.map((r) => ({ currency: r.currency, available: Number(r.net) - Number(r.held), pending: Number(r.pending) }));
}

/** Idempotency keys live 24 hours, as for payments: after that the same key may create a new payout (never a pending one's). */
export async function releaseOldPayoutKeys(db: pg.Pool, ttlSeconds: number): Promise<number> {
  const res = await db.query(
    `UPDATE payouts SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM payouts WHERE idempotency_key IS NOT NULL AND status <> 'pending' AND created_at < now() - make_interval(secs => $1)
       LIMIT 1000 FOR UPDATE SKIP LOCKED)`, [ttlSeconds]);
  return res.rowCount ?? 0;
}
