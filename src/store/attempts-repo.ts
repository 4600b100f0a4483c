// SQL for connector attempts (DESIGN invariant 9). Starting an attempt and naming it on its payment
// is one statement under the payment's version check (many payments' starts grouped in one); its
// outcome is written by the payment's own update (payments-repo), in the statement that moves the payment.
import type pg from 'pg';
import { columns } from './columns.js';
import { jsonbArrayOf, jsonbList } from './jsonb-list.js';
import { withArrayLiterals } from './pg-array.js';

/**
 * The test that an attempt found by its id is still started, for the statements that settle it.
 * Spelled with COLLATE "C" (the same test for a text column: equality is bytewise in any
 * deterministic collation) so that the planner cannot prove it matches the predicate of the partial
 * index of started attempts (connector_attempts_started) and finds the row by its primary key. That
 * index keeps an entry for every attempt ever started until vacuum removes it, and a grouped
 * settlement that scanned it once per row spent 1.6 ms per row under load (auto_explain, issue 25).
 */
export const stillStarted = (alias: string): string => `${alias}.status = 'started' COLLATE "C"`;

export interface AttemptStart {
  id: string;
  operation: string;
  connector: string;
  amount: number;
  currency: string;
  /** What recovery needs to apply the outcome (the method, the card summary, the awaited reference). */
  context: Record<string, unknown>;
}

/**
 * Whether a grouped begin's error (beginPaymentAttempts) is its row's Idempotency-Key held by another
 * attempt: the unique index's name stays here, in the store.
 */
export const attemptKeyTaken = (err: unknown): boolean => (err as { constraint?: string } | null)?.constraint === 'connector_attempts_idempotency';

/** The Idempotency-Key of a keyed attempt (capture, cancel): its scope, the request's hash and id. */
export interface AttemptKey { scope: string; hash: string; requestId: string }

/**
 * One attempt to start on a payment, for the grouped begin: a checkout's pay, submit or callback
 * (unkeyed), or a capture or cancel with its Idempotency-Key when it has one.
 */
export interface PaymentAttemptBegin { paymentId: string; expectedVersion: number; attempt: AttemptStart; key?: AttemptKey | null }

/**
 * Attempts of many payments in one statement (the shard's attempts group writer): each row applies
 * only if its payment still has the expected version and no attempt in flight, and its attempt row
 * is written only for a payment the statement moved. For each: true when recorded, false on that
 * row's conflict (nothing of it written); the other rows are not affected. A key another attempt
 * holds fails the whole statement (the unique index `connector_attempts_idempotency`): the group
 * writer splits it until that row fails alone, and its caller reads the error as `key_taken`.
 */
const BEGIN_MANY_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], ${jsonbArrayOf('$8')},
                       $9::text[], $10::text[], $11::text[])
    AS v(pid, expected, att_id, operation, connector, amount, currency, context, scope, hash, request_id)
), upd AS (
  UPDATE payments p SET version = p.version + 1, pending_attempt = v.att_id, due_at = payment_due_at(p.status, p.expires_at, v.att_id)
  FROM v WHERE p.id = v.pid AND p.version = v.expected AND p.pending_attempt IS NULL
  RETURNING p.id, p.pending_attempt
)
INSERT INTO connector_attempts (id, aggregate_id, operation, connector, amount, currency, status, context, idempotency_scope, request_hash, request_id)
SELECT v.att_id, upd.id, v.operation, v.connector, v.amount, v.currency, 'started', v.context, v.scope, v.hash, v.request_id
FROM upd JOIN v ON v.att_id = upd.pending_attempt AND v.pid = upd.id
RETURNING id`;

export async function beginPaymentAttempts(db: pg.Pool, bs: PaymentAttemptBegin[]): Promise<boolean[]> {
  // Payment ids in order, so two processes' groups touching the same payments meet them alike.
  const xs = [...bs].sort((a, b) => (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0));
  const col = <T>(f: (b: PaymentAttemptBegin) => T) => xs.map(f);
  const res = await db.query<{ id: string }>({
    name: 'attempts_begin_payments',
    text: BEGIN_MANY_SQL,
    values: withArrayLiterals([col((b) => b.paymentId), col((b) => b.expectedVersion), col((b) => b.attempt.id), col((b) => b.attempt.operation),
      col((b) => b.attempt.connector), col((b) => b.attempt.amount), col((b) => b.attempt.currency), jsonbList(col((b) => JSON.stringify(b.attempt.context))),
      col((b) => b.key?.scope ?? null), col((b) => b.key?.hash ?? null), col((b) => b.key?.requestId ?? null)]),
  });
  const started = new Set(res.rows.map((r) => r.id));
  return bs.map((b) => started.has(b.attempt.id));
}

export interface Attempt {
  id: string;
  aggregateId: string;
  operation: string;
  status: string;
  context: Record<string, unknown>;
  result: unknown;
  /** Set on keyed attempts (capture, cancel). */
  requestHash?: string | null;
  requestId?: string | null;
}

export const rowToAttempt = (r: Record<string, any>): Attempt => ({
  id: r.id, aggregateId: r.aggregate_id, operation: r.operation, status: r.status, context: r.context, result: r.result,
  requestHash: r.request_hash ?? null, requestId: r.request_id ?? null,
});

export async function findAttempt(db: pg.Pool, id: string): Promise<Attempt | null> {
  const res = await db.query({ name: 'attempt_by_id', text: `SELECT ${columns('connector_attempts')} FROM connector_attempts WHERE id = $1`, values: [id] });
  return res.rows[0] ? rowToAttempt(res.rows[0]) : null;
}

/** Idempotency keys live 24 hours: after that the same key may start a new capture or cancel. */
export async function releaseOldAttemptKeys(db: pg.Pool, ttlSeconds: number, limit: number): Promise<number> {
  const res = await db.query(
    `UPDATE connector_attempts SET idempotency_scope = NULL WHERE id IN (
       SELECT id FROM connector_attempts WHERE idempotency_scope IS NOT NULL AND status <> 'started' AND created_at < now() - make_interval(secs => $1)
       LIMIT $2 FOR UPDATE SKIP LOCKED)`, [ttlSeconds, limit]);
  return res.rowCount ?? 0;
}

/** Closes an attempt that no aggregate names any more (its outcome was never needed). */
export async function abandonAttempt(db: pg.Pool, id: string, why: string): Promise<void> {
  await db.query({
    name: 'attempt_abandon',
    text: `UPDATE connector_attempts SET status = 'abandoned', result = jsonb_build_object('reason', $2::text), updated_at = now()
           WHERE id = $1 AND ${stillStarted('connector_attempts')}`,
    values: [id, why],
  });
}

/**
 * After a recovery try that failed (the bank did not answer, a conflict persisted, the actor's
 * deadline passed): the attempts' leases end `seconds` from now instead of at the claim's full lease,
 * so the next sweep tries them again soon. Only shortens; an attempt settled meanwhile is left alone.
 */
export async function shortenRecoveryLeases(db: pg.Pool, ids: string[], seconds: number): Promise<number> {
  const res = await db.query({
    name: 'attempts_recover_soon',
    text: `UPDATE connector_attempts SET recover_lease = LEAST(recover_lease, now() + make_interval(secs => $2))
           WHERE id = ANY($1::text[]) AND ${stillStarted('connector_attempts')}`,
    values: [ids, seconds],
  });
  return res.rowCount ?? 0;
}

/**
 * Leases attempts started more than `olderThanMs` ago whose outcome was never recorded, so that one
 * process at a time asks the connector for their outcome. Times are Postgres' own.
 */
export async function claimStuckAttempts(db: pg.Pool, olderThanMs: number, limit: number, leaseSeconds = 30): Promise<{ id: string; aggregateId: string }[]> {
  const res = await db.query({
    name: 'attempts_claim_stuck',
    text: `UPDATE connector_attempts SET recover_lease = now() + make_interval(secs => $3)
           WHERE id IN (SELECT id FROM connector_attempts
                        WHERE status = 'started' AND created_at < now() - make_interval(secs => $1::float8 / 1000)
                          AND (recover_lease IS NULL OR recover_lease < now())
                        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING id, aggregate_id`,
    values: [olderThanMs, limit, leaseSeconds],
  });
  return res.rows.map((r) => ({ id: r.id as string, aggregateId: r.aggregate_id as string }));
}
