// SQL for payouts and the balance. A payout is written by its own actor in two steps of the attempt
// protocol, each grouped with the shard's other payouts in one statement (the shard's payout group
// writers): `beginPayouts` (the reservations on the balances' rows for the currency and mode, the
// available-balance checks, the connector attempts and the pending payouts) and `settlePayouts`
// (the payouts' final statuses, the attempts' outcomes, failed payouts' reservations given back,
// the outbox events and their webhook deliveries). docs/decisions.md "Payouts and balance" and
// "Payouts reserve and settle grouped".
import type pg from 'pg';
import { eventId } from '../domain/ids.js';
import type { MaskedDestination, Payout, PayoutFailure, PayoutKeyHolds, PayoutRefusal, PayoutStatus } from '../domain/payout.js';
import { stillStarted, type AttemptStart } from './attempts-repo.js';
import { settledNetOf } from './balance-settled.js';
import { columns } from './columns.js';
import { isoInstant } from '../domain/instant.js';

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

/** Whether a payout row's Idempotency-Key is bound already (payout_keys). */
const TAKEN = `EXISTS (SELECT 1 FROM payout_keys pk WHERE v.idem IS NOT NULL AND pk.merchant_id = v.merchant_id AND pk.livemode = v.livemode AND pk.idempotency_key = v.idem)`;

/** What one payout's reservation came to (`no_balance`: its balance has no row yet: `ensureBalance`, then submit again). */
export type PayoutBegin = { kind: 'started' } | { kind: 'insufficient'; available: number } | { kind: 'key_taken' } | { kind: 'no_balance' };

/** Whether a grouped reservation's error (beginPayouts) is its row's Idempotency-Key bound by another request (migration 025). */
export const payoutKeyTaken = (err: unknown): boolean => (err as { constraint?: string } | null)?.constraint === 'payout_keys_pkey';

/** One payout to begin: the pending payout and its connector attempt. */
export interface PayoutStart { payout: Payout; attempt: AttemptStart }

/**
 * Step 1 of the attempt protocol for many payouts, in one statement (the shard's payout group
 * writer); the bank is called only after it has committed, never under a balance's lock.
 * - Each payout's Idempotency-Key first: a key already bound (`payout_keys`, migration 025: the
 *   payout a request with it made, or its refusal) is that row's answer; the row reserves nothing.
 * - The group's balance rows (`payout_balances`, migration 024) are locked in key order, so two
 *   processes' groups meet them alike (no deadlock); after a wait, FOR UPDATE returns a row as last
 *   committed, so `held` counts every earlier reservation in any process.
 * - The payouts of one balance reserve one after another, smallest first: a payout is reserved when
 *   `held` plus the amounts of its balance's payouts up to and including it (that order) fits under
 *   the net of the balance's settled payments (kept in balance_settled: balance-settled.ts). Smallest first makes that running sum the exact
 *   serial outcome: once one payout does not fit, no larger one would, so the rows reserved are
 *   what reserving them one by one in that order gives, and their sum never exceeds the net. The
 *   balance row is raised once by their sum; their attempts and pending payouts are inserted with it.
 * - A refused payout's `available` is what was left at its turn (net − held − the group's reserved).
 * - Every keyed row binds its key in `payout_keys`, in key order: a reserved one to its payout, a
 *   refused one to its refusal. So a request that began executing keeps its outcome for its key
 *   whatever the balance does next: a same-key twin is answered by it, never evaluated again.
 * - A balance with no row yet (its first payout ever) reserves nothing: `no_balance`.
 * The net is read in the statement's snapshot, before the locks are waited for (as before the
 * grouping: a payment settling meanwhile only adds to it). A key another request binds while this
 * statement runs breaks it on `payout_keys_pkey` (whether that request was reserved or refused):
 * the group writer splits the group until that row fails alone (payoutKeyTaken), the others done.
 * No step joins one CTE to another: the planner counts a CTE as one row, so such a join is a nested
 * loop that reads one CTE once per row of the other, a cost that grows with the square of the group
 * (docs/decisions.md, "The payouts' reservation joins no two CTEs"). Each payout meets its balance row
 * by the table's key; the running sums and what was left at each one's turn are window functions.
 */
export const RESERVE_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::jsonb[],
                       $10::text[], $11::jsonb[], $12::jsonb[], $13::text[], $14::text[], $15::timestamptz[]) WITH ORDINALITY
    AS v(merchant_id, livemode, currency, idem, amount, att_id, operation, connector, context,
         payout_id, destination, metadata, request_id, request_hash, created_at, ord)
), locked AS MATERIALIZED (
  -- Each payout of a balance that has a row, that row locked (key order) and read as last committed.
  SELECT v.*, b.held, ${settledNetOf('v')} AS net, ${TAKEN} AS taken
  FROM v JOIN payout_balances b ON b.merchant_id = v.merchant_id AND b.livemode = v.livemode AND b.currency = v.currency
  ORDER BY b.merchant_id, b.livemode, b.currency
  FOR UPDATE OF b
), cand AS (
  SELECT * FROM locked
  UNION ALL
  SELECT v.*, NULL::bigint AS held, ${settledNetOf('v')} AS net, ${TAKEN} AS taken FROM v
  WHERE NOT EXISTS (SELECT 1 FROM payout_balances b WHERE b.merchant_id = v.merchant_id AND b.livemode = v.livemode AND b.currency = v.currency)
), w AS (
  SELECT cand.*, COALESCE(NOT taken AND held IS NOT NULL AND held + sum(amount) FILTER (WHERE NOT taken AND held IS NOT NULL)
    OVER (PARTITION BY merchant_id, livemode, currency ORDER BY amount, ord) <= net, false) AS reserved
  FROM cand
), out AS (
  SELECT w.*, (net - held - COALESCE(sum(amount) FILTER (WHERE reserved) OVER (PARTITION BY merchant_id, livemode, currency), 0))::bigint AS available
  FROM w
), sums AS (
  SELECT merchant_id, livemode, currency, sum(amount)::bigint AS total FROM w WHERE reserved GROUP BY merchant_id, livemode, currency
), res AS (
  UPDATE payout_balances b SET held = b.held + sums.total
  FROM sums WHERE b.merchant_id = sums.merchant_id AND b.livemode = sums.livemode AND b.currency = sums.currency
), att AS (
  INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
  SELECT att_id, payout_id, operation, connector, amount, currency, 'started', context FROM w WHERE reserved
), po AS (
  INSERT INTO payouts (id, merchant_id, livemode, amount, currency, status, destination, failure, metadata, attempt_id,
                       request_id, idempotency_key, request_hash, created_at, updated_at)
  SELECT payout_id, merchant_id, livemode, amount, currency, 'pending', destination, NULL, metadata, att_id,
         request_id, idem, request_hash, created_at, created_at
  FROM w WHERE reserved
), keys AS (
  INSERT INTO payout_keys (merchant_id, livemode, idempotency_key, request_hash, payout_id, refusal, created_at)
  SELECT merchant_id, livemode, idem, request_hash,
    CASE WHEN reserved THEN payout_id END,
    CASE WHEN NOT reserved THEN jsonb_build_object('code', 'insufficient_balance', 'available', available, 'currency', currency, 'request_id', request_id) END,
    created_at
  FROM out WHERE idem IS NOT NULL AND NOT taken AND held IS NOT NULL
  ORDER BY merchant_id, livemode, idem
)
SELECT ord::int AS ord, taken, held IS NULL AS no_balance, reserved, available FROM out`;

/** The reservation statement for these payouts (RESERVE_SQL with its parameters, in the order given). */
function reserveQuery(xs: PayoutStart[]): { name: string; text: string; values: unknown[] } {
  const col = <T>(f: (x: PayoutStart) => T) => xs.map(f);
  return {
    name: 'payouts_reserve',
    text: RESERVE_SQL,
    values: [col((x) => x.payout.merchantId), col((x) => x.payout.livemode), col((x) => x.payout.currency), col((x) => x.payout.idempotencyKey),
      col((x) => x.payout.amount), col((x) => x.attempt.id), col((x) => x.attempt.operation), col((x) => x.attempt.connector),
      col((x) => JSON.stringify(x.attempt.context)), col((x) => x.payout.id), col((x) => JSON.stringify(x.payout.destination)),
      col((x) => JSON.stringify(x.payout.metadata)), col((x) => x.payout.requestId), col((x) => x.payout.requestHash), col((x) => isoInstant(x.payout.createdAt))],
  };
}

/** Step 1 for many payouts (RESERVE_SQL): each one's outcome, in the order given. */
export async function beginPayouts(db: pg.Pool, xs: PayoutStart[]): Promise<PayoutBegin[]> {
  const res = await db.query<{ ord: number; taken: boolean; no_balance: boolean; reserved: boolean; available: string | null }>(reserveQuery(xs));
  const out: PayoutBegin[] = new Array(xs.length);
  for (const r of res.rows) {
    out[r.ord - 1] = r.taken ? { kind: 'key_taken' } : r.reserved ? { kind: 'started' } : r.no_balance ? { kind: 'no_balance' }
      : { kind: 'insufficient', available: Number(r.available) };
  }
  return out;
}

/** Creates the balance's row (nothing reserved) if it has none yet: a balance's first payout needs it. */
export async function ensureBalance(db: pg.Pool, p: Pick<Payout, 'merchantId' | 'livemode' | 'currency'>): Promise<void> {
  await db.query({
    name: 'payout_balance_ensure',
    text: 'INSERT INTO payout_balances (merchant_id, livemode, currency, held) VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING',
    values: [p.merchantId, p.livemode, p.currency],
  });
}

export interface PayoutSettlement {
  next: Payout;
  attempt: { id: string; status: 'succeeded' | 'failed' | 'abandoned'; result: unknown };
  event: 'payout.paid' | 'payout.failed';
  /** The event's data: the payout as the gateway API shows it. */
  data: unknown;
}

// Step 3 for many payouts. Each payout moves only if it is still pending on its attempt; the
// attempt, the event and its deliveries (to the merchant-wide gateway webhook row: a payout belongs
// to no channel) hang off it. The failed ones give their reservations back: one update per balance
// (by their sum), its row locked in key order as in RESERVE_SQL.
const SETTLE_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::timestamptz[], $7::text[], $8::jsonb[],
                       $9::text[], $10::text[], $11::jsonb[])
    AS v(id, att_id, status, failure, connector_ref, updated_at, att_status, att_result, event_id, event_type, data)
), upd AS (
  UPDATE payouts p SET status = v.status, failure = v.failure, connector_ref = v.connector_ref, updated_at = v.updated_at, version = p.version + 1
  FROM v WHERE p.id = v.id AND p.attempt_id = v.att_id AND p.status = 'pending'
  -- What the attempt and the event need comes along (x_…): a second join of v to upd would be a
  -- nested loop over both CTEs, quadratic in the group (as in refunds-repo.ts).
  RETURNING p.id, p.merchant_id, p.livemode, p.currency, p.amount, p.status, p.updated_at,
    v.att_id AS x_att_id, v.att_status AS x_att_status, v.att_result AS x_att_result, v.event_id AS x_event_id, v.event_type AS x_event_type, v.data AS x_data
), att AS (
  UPDATE connector_attempts a SET status = upd.x_att_status, result = upd.x_att_result, updated_at = now()
  FROM upd WHERE a.id = upd.x_att_id AND ${stillStarted('a')}
), back AS (
  SELECT merchant_id, livemode, currency, sum(amount)::bigint AS total FROM upd WHERE status = 'failed' GROUP BY merchant_id, livemode, currency
), lk AS (
  SELECT b.merchant_id, b.livemode, b.currency
  FROM back JOIN payout_balances b ON b.merchant_id = back.merchant_id AND b.livemode = back.livemode AND b.currency = back.currency
  ORDER BY b.merchant_id, b.livemode, b.currency
  FOR UPDATE OF b
), rel AS (
  UPDATE payout_balances b SET held = b.held - back.total
  FROM back JOIN lk USING (merchant_id, livemode, currency)
  WHERE b.merchant_id = back.merchant_id AND b.livemode = back.livemode AND b.currency = back.currency
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at)
  SELECT upd.x_event_id, upd.merchant_id, upd.livemode, 'gateway', upd.x_event_type, upd.id, upd.x_data, upd.updated_at FROM upd
  RETURNING id, merchant_id, type, created_at, aggregate_id
), dl AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ev.id, ev.merchant_id, ws.id, 'gateway', 'pending', ev.created_at, clock_timestamp(), clock_timestamp()
  FROM ev JOIN webhook_settings ws ON ws.merchant_id = ev.merchant_id AND ws.api = 'gateway' AND ws.channel_id IS NULL
    AND (ws.events IS NULL OR ev.type = ANY(ws.events))
  RETURNING event_id
)
SELECT upd.id, COALESCE(d.n, 0)::int AS deliveries
FROM upd LEFT JOIN (SELECT ev.aggregate_id, count(*) AS n FROM dl JOIN ev ON ev.id = dl.event_id GROUP BY ev.aggregate_id) d ON d.aggregate_id = upd.id`;

/**
 * Step 3 for many payouts in one statement. For each: the number of webhook deliveries queued, or
 * null when its payout was no longer pending on its attempt (settled by someone else: recovery).
 */
export async function settlePayouts(db: pg.Pool, ss: PayoutSettlement[]): Promise<(number | null)[]> {
  // Payout ids in order, so two groups (an actor's and a recovery's) meet their rows alike.
  const xs = [...ss].sort((a, b) => (a.next.id < b.next.id ? -1 : a.next.id > b.next.id ? 1 : 0));
  const col = <T>(f: (s: PayoutSettlement) => T) => xs.map(f);
  const res = await db.query<{ id: string; deliveries: number }>({
    name: 'payouts_settle',
    text: SETTLE_SQL,
    values: [col((s) => s.next.id), col((s) => s.attempt.id), col((s) => s.next.status), col((s) => (s.next.failure ? JSON.stringify(s.next.failure) : null)),
      col((s) => s.next.connectorRef), col((s) => isoInstant(s.next.updatedAt)), col((s) => s.attempt.status), col((s) => JSON.stringify(s.attempt.result)),
      col(() => eventId()), col((s) => s.event), col((s) => JSON.stringify(s.data))],
  });
  const rows = new Map(res.rows.map((r) => [r.id, r.deliveries]));
  return ss.map((s) => rows.get(s.next.id) ?? null);
}

export async function findPayout(db: pg.Pool, id: string): Promise<Payout | null> {
  const res = await db.query<PayoutRow>({ name: 'payout_by_id', text: `SELECT ${columns('payouts')} FROM payouts WHERE id = $1`, values: [id] });
  return res.rows[0] ? rowToPayout(res.rows[0]) : null;
}

/** What a payout Idempotency-Key holds (one statement, one snapshot): the payout it made, its refusal, or nothing. */
export async function findPayoutKey(db: pg.Pool, merchantId: string, livemode: boolean, key: string): Promise<PayoutKeyHolds | null> {
  const res = await db.query<PayoutRow & { key_hash: string; refusal: { code: 'insufficient_balance'; available: number; currency: string; request_id: string } | null }>({
    name: 'payout_key_holds',
    // The payout's columns by name, not p.* (columns.ts).
    text: `SELECT k.request_hash AS key_hash, k.refusal, ${columns('payouts', 'p')}
           FROM payout_keys k LEFT JOIN payouts p ON p.id = k.payout_id
           WHERE k.merchant_id = $1 AND k.livemode = $2 AND k.idempotency_key = $3`,
    values: [merchantId, livemode, key],
  });
  const r = res.rows[0];
  if (!r) return null;
  if (r.refusal) {
    const refusal: PayoutRefusal = { code: r.refusal.code, available: Number(r.refusal.available), currency: r.refusal.currency, requestId: r.refusal.request_id };
    return { requestHash: r.key_hash, refusal };
  }
  if (!r.id) throw new Error(`payout key ${key} of ${merchantId} names a payout that does not exist`);
  return { requestHash: r.key_hash, payout: rowToPayout(r) };
}

/**
 * A page of the merchant's payouts in one mode, newest first, `offset` rows in (the payments list's
 * page shape: limit and offset), with the total count of rows that match.
 */
export async function listPayouts(db: pg.Pool, q: { merchantId: string; livemode: boolean; status: PayoutStatus | null; limit: number; offset: number }): Promise<{ payouts: Payout[]; total: number }> {
  const res = await db.query<PayoutRow & { total: string }>({
    name: 'payouts_list',
    text: `SELECT ${columns('payouts')}, count(*) OVER () AS total FROM payouts
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

/** The balance's figures by currency (balanceOf); $1 the merchant, $2 the mode. */
export const BALANCE_OF_SQL = `SELECT currency, sum(net)::bigint AS net, sum(held)::bigint AS held, sum(pending)::bigint AS pending FROM (
    SELECT currency, net, 0 AS held, 0 AS pending FROM balance_settled WHERE merchant_id = $1 AND livemode = $2
    UNION ALL
    SELECT currency, 0, held, 0 FROM payout_balances WHERE merchant_id = $1 AND livemode = $2 AND held <> 0
    UNION ALL
    SELECT currency, 0, 0, amount FROM payouts WHERE merchant_id = $1 AND livemode = $2 AND status = 'pending'
  ) x GROUP BY currency ORDER BY currency`;

/**
 * Every currency of the merchant's mode that has settled payments or payouts that did not fail: the
 * settled net kept in balance_settled, the held sum kept in payout_balances (the figures a payout's
 * reservation reads), and the payouts still pending, summed from their rows.
 */
export async function balanceOf(db: pg.Pool, merchantId: string, livemode: boolean): Promise<CurrencyBalance[]> {
  const res = await db.query<{ currency: string; net: string; held: string; pending: string }>({
    name: 'balance_of',
    text: BALANCE_OF_SQL,
    values: [merchantId, livemode],
  });
  return res.rows.map((r) => ({ currency: r.currency, available: Number(r.net) - Number(r.held), pending: Number(r.pending) }));
}

/**
 * Idempotency keys live 24 hours, as for payments: after that the same key may be evaluated again
 * (a refusal's key, and a settled payout's; never a pending one's). The payout's own column is
 * cleared with it, so it names the key it holds.
 */
export async function releaseOldPayoutKeys(db: pg.Pool, ttlSeconds: number, limit: number): Promise<number> {
  const res = await db.query<{ n: number }>(
    `WITH old AS (
       SELECT k.merchant_id, k.livemode, k.idempotency_key FROM payout_keys k LEFT JOIN payouts p ON p.id = k.payout_id
       WHERE k.created_at < now() - make_interval(secs => $1) AND (k.payout_id IS NULL OR p.status <> 'pending')
       LIMIT $2 FOR UPDATE OF k SKIP LOCKED
     ), gone AS (
       DELETE FROM payout_keys k USING old
       WHERE k.merchant_id = old.merchant_id AND k.livemode = old.livemode AND k.idempotency_key = old.idempotency_key
       RETURNING k.payout_id
     ), cleared AS (
       UPDATE payouts p SET idempotency_key = NULL FROM gone WHERE p.id = gone.payout_id
     )
     SELECT count(*)::int AS n FROM gone`, [ttlSeconds, limit]);
  return res.rows[0]?.n ?? 0;
}
