// The final state the checker judges answers against: the engine's rows and the sandbox bank's
// ledger, read directly from Postgres (not through the proxy) once everything has settled.
import type pg from 'pg';
import { balanceDrift, type BalanceDrift } from '../src/store/balance-settled.js';

export interface PaymentRow { id: string; request_id: string; created_ms: number; status: string; amount: number; amount_refunded: number; idempotency_key: string | null; link_id: string | null; due_ok: boolean }
export interface RefundRow { id: string; request_id: string; created_ms: number; payment_id: string; amount: number; status: string; attempt_id: string; idempotency_key: string | null }
export interface PayoutRow { id: string; request_id: string; created_ms: number; amount: number; status: string; attempt_id: string; idempotency_key: string | null }
export interface AttemptRow { id: string; aggregate_id: string; operation: string; status: string; amount: number }
export interface LedgerRow { key: string; operation: string; amount: number; moved: boolean; created_ms: number }
export interface LinkRow { id: string; request_id: string; created_ms: number; max_uses: number | null; uses: number; idempotency_key: string | null }

export interface State {
  payments: Map<string, PaymentRow>;
  refunds: RefundRow[];
  payouts: PayoutRow[];
  attempts: Map<string, AttemptRow>;
  ledger: LedgerRow[];
  links: LinkRow[];
  /** Moved ledger entries by the aggregate their attempt belongs to. */
  movedByAggregate: Map<string, LedgerRow[]>;
  /** Balances whose kept settled net (balance_settled) differs from their payments' (none, when right). */
  netDrift: BalanceDrift[];
  /** Balances whose held sum (payout_balances) differs from their payouts that did not fail (none, when right). */
  heldDrift: { currency: string; kept: number; summed: number }[];
}

export async function openAttempts(db: pg.Pool): Promise<number> {
  return (await db.query("SELECT count(*)::int AS n FROM connector_attempts WHERE status = 'started'")).rows[0].n as number;
}

export async function pendingRows(db: pg.Pool): Promise<number> {
  const r = await db.query(`SELECT (SELECT count(*) FROM refunds WHERE status = 'pending') + (SELECT count(*) FROM payouts WHERE status = 'pending')
    + (SELECT count(*) FROM payments WHERE pending_attempt IS NOT NULL) AS n`);
  return Number(r.rows[0].n);
}

/**
 * What is still open, for a recovery that takes long: the started attempts by operation, with the
 * oldest one's age and the latest end of their recovery leases (a process killed holding a claim
 * keeps it until its lease ends), and the pending rows.
 */
export async function openWork(db: pg.Pool): Promise<string> {
  const rows = (await db.query<{ operation: string; n: number; oldest_s: number; lease_s: number | null }>(
    `SELECT operation, count(*)::int AS n, round(max(extract(epoch from now() - created_at)))::int AS oldest_s,
       round(max(extract(epoch from recover_lease - now())), 1)::float8 AS lease_s
     FROM connector_attempts WHERE status = 'started' GROUP BY operation ORDER BY operation`)).rows;
  const attempts = rows.map((r) => `${r.n} ${r.operation} (oldest ${r.oldest_s} s, ${r.lease_s === null ? 'no recovery lease' : r.lease_s > 0 ? `recovery lease ends in ${r.lease_s} s` : 'recovery lease ended'})`);
  return `${attempts.join(', ') || 'no attempt started'}; ${await pendingRows(db)} rows pending`;
}

export async function readState(db: pg.Pool): Promise<State> {
  // Amounts are bigint columns; the simulator's amounts fit an int.
  const payments = (await db.query<PaymentRow>(`SELECT id, request_id, (extract(epoch from created_at) * 1000)::float8 AS created_ms, status, amount::int, amount_refunded::int, idempotency_key, link_id,
    due_at IS NOT DISTINCT FROM payment_due_at(status, expires_at, pending_attempt) AS due_ok FROM payments`)).rows;
  const refunds = (await db.query<RefundRow>('SELECT id, request_id, (extract(epoch from created_at) * 1000)::float8 AS created_ms, payment_id, amount::int, status, attempt_id, idempotency_key FROM refunds')).rows;
  const payouts = (await db.query<PayoutRow>('SELECT id, request_id, (extract(epoch from created_at) * 1000)::float8 AS created_ms, amount::int, status, attempt_id, idempotency_key FROM payouts')).rows;
  const attempts = (await db.query<AttemptRow>('SELECT id, aggregate_id, operation, status, amount::int FROM connector_attempts')).rows;
  const ledger = (await db.query<LedgerRow>('SELECT idempotency_key AS key, operation, amount::int, moved, (extract(epoch from created_at) * 1000)::float8 AS created_ms FROM sandbox_ledger')).rows;
  const links = (await db.query<LinkRow>('SELECT id, request_id, (extract(epoch from created_at) * 1000)::float8 AS created_ms, max_uses, uses, idempotency_key FROM links')).rows;
  const attemptMap = new Map(attempts.map((a) => [a.id, a]));
  const movedByAggregate = new Map<string, LedgerRow[]>();
  for (const l of ledger) {
    const a = attemptMap.get(l.key);
    if (!l.moved || !a) continue;
    movedByAggregate.set(a.aggregate_id, [...(movedByAggregate.get(a.aggregate_id) ?? []), l]);
  }
  const heldDrift = (await db.query<{ currency: string; kept: number; summed: number }>(
    `SELECT currency, COALESCE(b.held, 0)::int AS kept, COALESCE(p.n, 0)::int AS summed
     FROM payout_balances b FULL JOIN (SELECT merchant_id, livemode, currency, sum(amount) AS n FROM payouts WHERE status <> 'failed' GROUP BY 1, 2, 3) p
       USING (merchant_id, livemode, currency)
     WHERE COALESCE(b.held, 0) <> COALESCE(p.n, 0)`)).rows;
  return { payments: new Map(payments.map((p) => [p.id, p])), refunds, payouts, attempts: attemptMap, ledger, links, movedByAggregate,
    netDrift: await balanceDrift(db), heldDrift };
}
