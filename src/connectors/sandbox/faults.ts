// Differences made on purpose (issue 26): the sandbox bank's ledger is changed behind the engine's
// back so that an operator can watch reconciliation find it. Only the bank's ledger is written,
// never an engine table; the sandbox bank serves test mode only, so no live money is concerned.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { BankOutcome, OperationKind } from '../../domain/reconciliation.js';

export type LedgerFault =
  /** The bank records an operation the engine never asked for (a fresh key `sbx_…`). */
  | { action: 'add'; kind: OperationKind; amount: number; currency: string; outcome: BankOutcome }
  /** The bank loses its record of the operation under `key`. */
  | { action: 'lose'; key: string }
  /** The bank's record of `key` shows another amount (and currency, when given). */
  | { action: 'change_amount'; key: string; amount: number; currency?: string }
  /** The bank's record of `key` shows another outcome. */
  | { action: 'change_outcome'; key: string; outcome: BankOutcome };

export interface FaultEntry { key: string; operation: string; amount: number; currency: string; outcome: string | null; created_at: string }

/** The ledger operation name a report maps back to each kind (operationKind). */
const OPERATION: Record<OperationKind, string> = { charge: 'authorize_card', capture: 'capture', void: 'void', refund: 'refund', payout: 'payout' };

const resultOf = (outcome: BankOutcome, key: string) => outcome === 'succeeded' ? { kind: 'succeeded', ref: key, country: null, token: null }
  : outcome === 'failed' ? { kind: 'failed', ref: key, code: 'card_declined' } : { kind: 'redirect', ref: key, url: 'about:blank' };

const RETURNING = `RETURNING idempotency_key AS key, operation, amount::float8 AS amount, currency, result->>'kind' AS outcome, created_at`;

/**
 * Applies the fault to the ledger; the entry as it now stands (for `lose`, as it was), or null when
 * the ledger holds no operation under the key.
 */
export async function applyLedgerFault(db: pg.Pool, f: LedgerFault): Promise<FaultEntry | null> {
  let res: pg.QueryResult<FaultEntry>;
  switch (f.action) {
    case 'add': {
      const key = `sbx_${randomBytes(12).toString('base64url')}`;
      res = await db.query(`INSERT INTO sandbox_ledger (idempotency_key, operation, reference, amount, currency, moved, result)
        VALUES ($1, $2, NULL, $3, $4, $5, $6) ${RETURNING}`, [key, OPERATION[f.kind], f.amount, f.currency, f.outcome === 'succeeded', JSON.stringify(resultOf(f.outcome, key))]);
      break;
    }
    case 'lose':
      res = await db.query(`DELETE FROM sandbox_ledger WHERE idempotency_key = $1 AND operation <> 'closed' ${RETURNING}`, [f.key]);
      break;
    case 'change_amount':
      res = await db.query(`UPDATE sandbox_ledger SET amount = $2, currency = COALESCE($3, currency)
        WHERE idempotency_key = $1 AND operation <> 'closed' ${RETURNING}`, [f.key, f.amount, f.currency ?? null]);
      break;
    case 'change_outcome':
      res = await db.query(`UPDATE sandbox_ledger SET moved = $2, result = $3::jsonb || jsonb_build_object('ref', COALESCE(result->>'ref', idempotency_key))
        WHERE idempotency_key = $1 AND operation <> 'closed' ${RETURNING}`, [f.key, f.outcome === 'succeeded', JSON.stringify(resultOf(f.outcome, f.key))]);
      break;
  }
  const r = res.rows[0];
  return r ? { ...r, amount: Number(r.amount) } : null;
}
