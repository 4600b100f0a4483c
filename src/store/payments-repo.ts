// SQL for payments. Each write is one round trip: the row change and its outbox event travel in
// one statement (a data-modifying CTE), so they commit or roll back together.
import type pg from 'pg';
import { eventId } from '../domain/ids.js';
import type { Payment, PaymentStatus } from '../domain/payment.js';
import { balanceDelta, balanceShare } from '../domain/payment-status.js';
import type { CheckoutState } from '../domain/checkout.js';
import { GATEWAY_DELIVERABLE, MERCHANT_DELIVERABLE } from '../domain/webhook-events.js';
import { INSERT_COLUMNS, paymentToRecord, rowToPayment, type PaymentRow } from './payment-row.js';
import { checkoutJson } from './checkout-repo.js';
import { due } from './test-clocks-repo.js';
import { stillStarted, type AttemptStart } from './attempts-repo.js';
import { balanceCte } from './balance-settled.js';
import { columns } from './columns.js';
import { jsonbArrayOf, jsonbList } from './jsonb-list.js';
import { withArrayLiterals } from './pg-array.js';
import { isoInstant, isoOrNull } from '../domain/instant.js';

const COLUMNS = INSERT_COLUMNS.join(', ');

/**
 * Multi-row insert of new payments with their payment.created events, in one statement. The rows
 * travel as one JSON parameter (an array of records, expanded by json_populate_recordset over the
 * payments row type, in array order), so one prepared statement serves every group size and the
 * driver encodes one value instead of one per column and row. Rows whose idempotency key is already
 * taken are skipped (ON CONFLICT DO NOTHING); only the ids of the rows inserted come back, since the
 * caller already holds their state. The event row copies the inserted row, so the outbox needs no
 * second copy of the payload. `INSERT_CTES` holds both (`ins`, `ev`); a direct card payment's
 * statement adds its attempts to them.
 */
const INSERT_CTES = `
WITH ins AS (
  INSERT INTO payments (${COLUMNS}, due_at)
  SELECT ${COLUMNS}, payment_due_at(status, expires_at, pending_attempt) FROM json_populate_recordset(NULL::payments, $1::json)
  ON CONFLICT (merchant_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING *
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at)
  SELECT e.eid, ins.merchant_id, ins.livemode, CASE WHEN ins.session IS NULL THEN 'merchant' ELSE 'gateway' END, 'payment.created', ins.id, to_jsonb(ins), ins.created_at
  FROM ins JOIN unnest($2::text[], $3::text[]) AS e(pid, eid) ON e.pid = ins.id
)`;

const INSERT_SQL = `${INSERT_CTES}
SELECT id FROM ins`;

/**
 * A direct card payment's first attempt rides on its insert (docs/decisions.md, 2026-11-27): the
 * row already names it as `pending_attempt` and the attempt row is written by the same statement, so
 * the payment and its attempt commit together, before the bank call (DESIGN invariant 9). The
 * attempt is inserted only for a payment row this statement inserted: a key found taken writes none.
 */
const INSERT_WITH_ATTEMPTS_SQL = `${INSERT_CTES}, att AS (
  INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context)
  SELECT a.id, ins.id, a.operation, a.connector, a.amount, a.currency, 'started', a.context
  FROM ins JOIN unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], ${jsonbArrayOf('$10')})
    AS a(pid, id, operation, connector, amount, currency, context) ON a.pid = ins.id AND ins.pending_attempt = a.id
)
SELECT id FROM ins`;

export type InsertOutcome =
  | { kind: 'created'; payment: Payment }
  | { kind: 'existing'; payment: Payment };

/** One row of a grouped create: a new payment, and the connector attempt it starts with (a direct card payment). */
export interface PaymentCreate { payment: Payment; attempt?: AttemptStart | null }

/**
 * For each payment: created, or the existing payment holding its idempotency key, or an Error when
 * that payment alone could not be resolved (a failed follow-up lookup fails only its own row: the
 * others are committed and answered as such).
 */
export async function insertPayments(db: pg.Pool, given: Payment[]): Promise<(InsertOutcome | Error)[]> {
  return insertCreates(db, given.map((payment) => ({ payment })));
}

/** As insertPayments, for rows that may carry their first attempt (one statement either way). */
export async function insertCreates(db: pg.Pool, given: PaymentCreate[]): Promise<(InsertOutcome | Error)[]> {
  const outcomes = new Array<InsertOutcome | Error>(given.length);
  // A payment is created unpaid: the balance it will count towards learns of it when it settles
  // (updatePayments), so a row inserted settled would never be counted. Never expected; refused
  // alone, loudly, rather than stored uncounted.
  const ok = given.map((_, i) => i).filter((i) => {
    if (balanceShare(given[i].payment) === 0) return true;
    outcomes[i] = new Error(`payment ${given[i].payment.id} would be inserted ${given[i].payment.status}: a payment is created unpaid`);
    return false;
  });
  // Rows go in idempotency-key order: two processes' groups that share keys then take the keys'
  // index locks in one order and wait on each other instead of deadlocking.
  const order = ok.sort((a, b) => keyOrder(given[a].payment, given[b].payment));
  const sorted = order.length > 0 ? await insertSorted(db, order.map((i) => given[i])) : [];
  order.forEach((i, j) => { outcomes[i] = sorted[j]; });
  return outcomes;
}

const keyOrder = (a: Payment, b: Payment): number => {
  const ka = a.idempotencyKey === null ? '' : `${a.merchantId}\u0000${a.livemode}\u0000${a.idempotencyKey}`;
  const kb = b.idempotencyKey === null ? '' : `${b.merchantId}\u0000${b.livemode}\u0000${b.idempotencyKey}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

async function insertSorted(db: pg.Pool, cs: PaymentCreate[]): Promise<(InsertOutcome | Error)[]> {
  const ps = cs.map((c) => c.payment);
  const values: unknown[] = [JSON.stringify(ps.map(paymentToRecord)), ps.map((p) => p.id), ps.map(() => eventId())];
  const withAttempts = cs.filter((c) => c.attempt);
  if (withAttempts.length > 0) {
    const col = <T>(f: (c: PaymentCreate, a: AttemptStart) => T) => withAttempts.map((c) => f(c, c.attempt!));
    values.push(col((c) => c.payment.id), col((_, a) => a.id), col((_, a) => a.operation), col((_, a) => a.connector),
      col((_, a) => a.amount), col((_, a) => a.currency), jsonbList(col((_, a) => JSON.stringify(a.context))));
  }
  const res = await db.query<{ id: string }>(withAttempts.length > 0
    ? { name: 'payment_insert_attempt', text: INSERT_WITH_ATTEMPTS_SQL, values: withArrayLiterals(values) }
    : { name: 'payment_insert', text: INSERT_SQL, values: withArrayLiterals(values) });
  const inserted = new Set(res.rows.map((r) => r.id));
  const outcomes = await Promise.allSettled(ps.map(async (p): Promise<InsertOutcome> => {
    if (inserted.has(p.id)) return { kind: 'created', payment: p };
    // The idempotency key is taken: the statement's snapshot could not see the winner, a new one can.
    const existing = await findByIdempotencyKey(db, p.merchantId, p.livemode, p.idempotencyKey!);
    if (!existing) throw new Error('idempotent insert conflicted but no row holds the key');
    return { kind: 'existing', payment: existing };
  }));
  return outcomes.map((o) => (o.status === 'fulfilled' ? o.value : o.reason instanceof Error ? o.reason : new Error(String(o.reason))));
}

/**
 * Which of these payments' rows another transaction holds now, in the order given: the ones a lock
 * (FOR NO KEY UPDATE, what an update of a payment takes) cannot be had on at once. SKIP LOCKED never
 * waits for a row; the rows it does lock are let go when the statement ends. A grouped writer asks
 * after a lock timeout, to tell the rows that waited from the rows held (group-writer.ts).
 */
export async function heldPayments(db: pg.Pool, ids: string[]): Promise<boolean[]> {
  const res = await db.query<{ id: string }>({
    name: 'payments_held',
    text: 'SELECT id FROM payments WHERE id = ANY($1::text[]) FOR NO KEY UPDATE SKIP LOCKED',
    values: [ids],
  });
  const free = new Set(res.rows.map((r) => r.id));
  return ids.map((id) => !free.has(id));
}

export async function findByIdempotencyKey(db: pg.Pool, merchantId: string, livemode: boolean, key: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({
    name: 'payment_by_idem',
    text: `SELECT ${columns('payments')} FROM payments WHERE merchant_id = $1 AND livemode = $2 AND idempotency_key = $3`,
    values: [merchantId, livemode, key],
  });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

export async function findPayment(db: pg.Pool, id: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({ name: 'payment_by_id', text: `SELECT ${columns('payments')} FROM payments WHERE id = $1`, values: [id] });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

/** The latest payment with this order number, within one merchant and mode. */
export async function findPaymentByOrder(db: pg.Pool, merchantId: string, livemode: boolean, orderId: string): Promise<Payment | null> {
  const res = await db.query<PaymentRow>({
    name: 'payment_by_order',
    text: `SELECT ${columns('payments')} FROM payments WHERE order_id = $1 AND merchant_id = $2 AND livemode = $3 AND session IS NULL
           ORDER BY created_at DESC, id DESC LIMIT 1`,
    values: [orderId, merchantId, livemode],
  });
  return res.rows[0] ? rowToPayment(res.rows[0]) : null;
}

/** What an attempt's outcome write records on the attempt row, in the same statement. */
export interface AttemptSettlement { id: string; status: 'succeeded' | 'failed' | 'action_required' | 'abandoned'; result: unknown }

export interface PaymentUpdate {
  next: Payment;
  /**
   * The payment as its actor loaded it: the row applies only if it still has this version, and what
   * the balance counted of it until now comes from it (balanceDelta).
   */
  prev: Pick<Payment, 'version' | 'status' | 'net'>;
  events: string[];
  /** The new checkout state, when the change is a checkout step (kept as it is when absent). */
  checkout?: CheckoutState | null;
  /** The attempt whose outcome this change records. */
  settle?: AttemptSettlement | null;
}

// Every row applies only if it still has the version its actor loaded. Events are written for the
// rows that applied, and one webhook delivery per subscribed merchant API endpoint; the checkout
// state and the outcome of the connector attempt being settled travel in the same statement: all
// of it commits or rolls back together, so nothing runs after the commit that could fail it.
const UPDATE_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::text[], ${jsonbArrayOf('$6')}, ${jsonbArrayOf('$7')},
    $8::timestamptz[], $9::timestamptz[], $10::int[], ${jsonbArrayOf('$11')}, ${jsonbArrayOf('$16')}, $17::text[], $18::text[], $19::text[], ${jsonbArrayOf('$20')},
    $22::bigint[], $23::bigint[], $24::bigint[], $25::timestamptz[], $26::bigint[])
    AS v(id, expected, status, amount_refunded, method, card, failure, paid_at, updated_at, version, charged,
         checkout, pending_attempt, att_id, att_status, att_result, amount, fee, net, expires_at, balance_delta)
), upd AS (
  UPDATE payments p SET status = v.status, amount_refunded = v.amount_refunded, method = v.method, card = v.card,
    amount = v.amount, fee = v.fee, net = v.net, expires_at = v.expires_at,
    failure = v.failure, paid_at = v.paid_at, updated_at = v.updated_at, version = v.version, charged = v.charged, expiry_lease = NULL,
    checkout = COALESCE(v.checkout, p.checkout), pending_attempt = v.pending_attempt,
    due_at = payment_due_at(v.status, v.expires_at, v.pending_attempt)
  FROM v WHERE p.id = v.id AND p.version = v.expected
  RETURNING p.*
), lk AS (
  -- A link payment that settles spends (paid) or returns (failed, expired) the use it held on its
  -- link, in this statement: the payment's own version check makes it happen once. Links are
  -- visited in id order, so two grouped statements touching the same links lock them alike. (links)
  UPDATE links l SET uses = l.uses + x.paid, holds = l.holds - x.ids, version = l.version + 1, updated_at = now()
  FROM (SELECT upd.link_id, (count(*) FILTER (WHERE e.type = 'payment.succeeded'))::int AS paid, array_agg(upd.id) AS ids
        FROM upd JOIN unnest($12::text[], $14::text[]) AS e(pid, type) ON e.pid = upd.id
        WHERE upd.link_id IS NOT NULL AND e.type IN ('payment.succeeded', 'payment.failed', 'payment.expired')
        GROUP BY upd.link_id ORDER BY upd.link_id) x
  WHERE l.id = x.link_id
), att AS (
  UPDATE connector_attempts a SET status = v.att_status, result = v.att_result, updated_at = now()
  FROM v JOIN upd ON upd.id = v.id WHERE a.id = v.att_id AND ${stillStarted('a')}
), ${balanceCte('id')}, evs AS MATERIALIZED (
  -- Each event with what its row and its deliveries need, read once from the payment's row: the
  -- events' insert and both deliveries' inserts read this list and no other CTE, so no step is a
  -- loop over one CTE per row of another (quadratic in the group: docs/decisions.md, "A payment's
  -- grouped update joins no two CTEs"). A gateway session's event is deliverable when any of its
  -- four webhook targets exists (session URL, channel webhook, channel row, merchant-wide row),
  -- tested once per event and only for the gateway's deliverable types.
  SELECT e.eid, e.type, upd.id AS pid, upd.merchant_id, upd.livemode, upd.session IS NULL AS merchant_api, upd.updated_at,
    upd.test_clock_id, to_jsonb(upd) AS data,
    CASE WHEN upd.session IS NULL OR NOT (e.type = ANY($21::text[])) THEN false
      ELSE (upd.session->>'webhookUrl' IS NOT NULL
        OR EXISTS (SELECT 1 FROM channels c WHERE c.id = upd.channel_id AND c.webhook_url IS NOT NULL)
        OR EXISTS (SELECT 1 FROM webhook_settings ws WHERE ws.merchant_id = upd.merchant_id AND ws.api = 'gateway'
                     AND (ws.channel_id IS NULL OR ws.channel_id = upd.channel_id))) END AS gateway_target
  FROM upd JOIN unnest($12::text[], $13::text[], $14::text[]) AS e(pid, eid, type) ON e.pid = upd.id
), ev AS (
  INSERT INTO events (id, merchant_id, livemode, api, type, aggregate_id, data, created_at)
  SELECT eid, merchant_id, livemode, CASE WHEN merchant_api THEN 'merchant' ELSE 'gateway' END, type, pid, data, updated_at FROM evs
), dl AS (
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at, test_clock_id)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), evs.eid, evs.merchant_id, ws.id, 'merchant', 'pending', evs.updated_at, clock_timestamp(), clock_timestamp(), evs.test_clock_id
  FROM evs JOIN webhook_settings ws ON ws.merchant_id = evs.merchant_id AND ws.api = 'merchant' AND ws.channel_id IS NULL
    AND (ws.events IS NULL OR evs.type = ANY(ws.events))
  WHERE evs.merchant_api AND evs.type = ANY($15::text[])
  RETURNING event_id
), dg AS (
  -- A gateway session's event: one delivery whose target is resolved at each attempt
  -- (src/domain/webhook-target.ts).
  INSERT INTO webhook_deliveries (id, event_id, merchant_id, settings_id, api, status, next_attempt_at, created_at, updated_at, test_clock_id)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), eid, merchant_id, NULL, 'gateway', 'pending', updated_at, clock_timestamp(), clock_timestamp(), test_clock_id
  FROM evs WHERE gateway_target
  RETURNING event_id
)
-- The rows that applied, then the event of each delivery queued (counted per payment by the caller,
-- which made the event ids): three lists, each read once.
SELECT upd.id, NULL::text AS event_id FROM upd
UNION ALL SELECT NULL, event_id FROM dl
UNION ALL SELECT NULL, event_id FROM dg`;

/** SQL NULL for an absent value, not the jsonb `null` that JSON.stringify(null) would store. */
const jsonOrNull = (v: object | null) => (v === null ? null : JSON.stringify(v));

/** One event of a grouped update: its payment, its id (made here) and its type. */
interface UpdateEvent { pid: string; eid: string; type: string }
const eventsOf = (us: PaymentUpdate[]): UpdateEvent[] => us.flatMap((u) => u.events.map((type) => ({ pid: u.next.id, eid: eventId(), type })));

/** The grouped update statement for these changes (UPDATE_SQL with its parameters, in the order given). */
function updateQuery(us: PaymentUpdate[], evs: UpdateEvent[] = eventsOf(us)): { name: string; text: string; values: unknown[] } {
  const col = <T>(f: (u: PaymentUpdate) => T) => us.map(f);
  return {
    name: 'payments_update',
    text: UPDATE_SQL,
    values: withArrayLiterals([
      col((u) => u.next.id), col((u) => u.prev.version), col((u) => u.next.status), col((u) => u.next.amountRefunded),
      col((u) => u.next.method), jsonbList(col((u) => jsonOrNull(u.next.card))), jsonbList(col((u) => jsonOrNull(u.next.failure))),
      col((u) => isoOrNull(u.next.paidAt)), col((u) => isoInstant(u.next.updatedAt)), col((u) => u.next.version),
      jsonbList(col((u) => jsonOrNull(u.next.charged))),
      evs.map((e) => e.pid), evs.map((e) => e.eid), evs.map((e) => e.type), MERCHANT_DELIVERABLE,
      jsonbList(col((u) => (u.checkout ? checkoutJson(u.checkout) : null))), col((u) => u.next.pendingAttempt),
      col((u) => u.settle?.id ?? null), col((u) => u.settle?.status ?? null), jsonbList(col((u) => (u.settle ? JSON.stringify(u.settle.result) : null))),
      GATEWAY_DELIVERABLE,
      // A partial capture changes the amount (and the fee and net with it).
      col((u) => u.next.amount), col((u) => u.next.fee), col((u) => u.next.net),
      // An authorization moves the deadline: the expiry sweep voids the hold then.
      col((u) => isoInstant(u.next.expiresAt)),
      col((u) => balanceDelta(u.prev, u.next)),
    ]),
  };
}

/**
 * Applies several actors' updates in one statement. For each update: null when its version no
 * longer matched (another writer came first), else the number of webhook deliveries it queued.
 */
export async function updatePayments(db: pg.Pool, us: PaymentUpdate[]): Promise<(number | null)[]> {
  const evs = eventsOf(us);
  const res = await db.query<{ id: string | null; event_id: string | null }>(updateQuery(us, evs));
  const paymentOf = new Map(evs.map((e) => [e.eid, e.pid]));
  const deliveries = new Map<string, number>();
  for (const r of res.rows) {
    if (r.id !== null) deliveries.set(r.id, deliveries.get(r.id) ?? 0);
    else {
      const pid = paymentOf.get(r.event_id!)!;
      deliveries.set(pid, (deliveries.get(pid) ?? 0) + 1);
    }
  }
  return us.map((u) => deliveries.get(u.next.id) ?? null);
}

export interface ListQuery {
  merchantId: string; livemode: boolean; limit: number; statuses?: PaymentStatus[]; orderId?: string;
  from?: number; to?: number; startingAfter?: { createdAt: string; id: string };
}

/** Newest first; the cursor is the (created_at, id) of the last payment of the previous page. */
export async function listPayments(db: pg.Pool, q: ListQuery): Promise<{ payments: Payment[]; hasMore: boolean }> {
  // The merchant API's list: gateway checkout sessions are the gateway API's objects.
  const where = ['merchant_id = $1', 'livemode = $2', 'session IS NULL'];
  const values: unknown[] = [q.merchantId, q.livemode];
  const add = (sql: string, v: unknown) => { values.push(v); where.push(sql.replace('?', `$${values.length}`)); };
  if (q.statuses) add('status = ANY(?::text[])', q.statuses);
  if (q.orderId) add('order_id = ?', q.orderId);
  if (q.from !== undefined) add('created_at >= ?', isoInstant(q.from));
  if (q.to !== undefined) add('created_at < ?', isoInstant(q.to));
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
 * The sweeps' claims ($1 the batch, $2 the lease in seconds). Both find their rows by `due_at`
 * (migration 027: set while a payment is authorized, or pending with no attempt in flight), through
 * its partial index, and lease what is due on the row's own clock.
 */
const claimSql = (status: 'pending' | 'authorized'): string => `UPDATE payments SET expiry_lease = now() + make_interval(secs => $2)
  WHERE id IN (SELECT id FROM payments WHERE ${due('due_at', 'payments.test_clock_id')} AND status = '${status}' AND pending_attempt IS NULL
                 AND (expiry_lease IS NULL OR expiry_lease < now())
               ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING id`;
export const CLAIM_DUE_SQL = claimSql('pending');
export const CLAIM_LAPSED_SQL = claimSql('authorized');

/**
 * Leases due pending payments for expiry (due on the payment's test clock when it has one, else on
 * Postgres's time: one query for both) so that several processes share the work without
 * handing one payment to two of them at once. The lease only routes work; the actor's
 * version-checked update decides.
 */
export async function claimDuePayments(db: pg.Pool, limit: number, leaseSeconds = 30): Promise<string[]> {
  const res = await db.query({ name: 'payments_claim_due', text: CLAIM_DUE_SQL, values: [limit, leaseSeconds] });
  return res.rows.map((r) => r.id as string);
}

/**
 * Leases authorized payments (capture_method manual) whose hold has lapsed (`expires_at`, set by the
 * authorization), for the expiry sweep to void through the payment's actor and the attempt protocol.
 * One with an attempt in flight (a capture, a void) is left to that attempt.
 */
export async function claimLapsedAuthorizations(db: pg.Pool, limit: number, leaseSeconds = 30): Promise<string[]> {
  const res = await db.query({ name: 'payments_claim_lapsed_auth', text: CLAIM_LAPSED_SQL, values: [limit, leaseSeconds] });
  return res.rows.map((r) => r.id as string);
}

/** Idempotency keys live 24 hours: after that the same key may create a new payment. */
export async function releaseOldIdempotencyKeys(db: pg.Pool, ttlSeconds: number, limit: number): Promise<number> {
  const res = await db.query(
    `UPDATE payments SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM payments WHERE idempotency_key IS NOT NULL AND created_at < now() - make_interval(secs => $1)
       LIMIT $2 FOR UPDATE SKIP LOCKED)`, [ttlSeconds, limit]);
  return res.rowCount ?? 0;
}
