// The sandbox bank's ledger, in Postgres so that every server process talks to one bank: one row per
// operation by the caller's idempotency key. The first result for a key (or for one 3-D Secure
// challenge or page decision, whatever key repeats it) is the only one: a repeat gets it back and
// moves no money twice. A status query for a key the bank never saw closes that key.
import type pg from 'pg';
import { bankOutcomeOf, operationKind, type BankOperation } from '../../domain/reconciliation.js';
import type { CaptureResult, ConnectorResult, PayoutResult, RefundResult, UnknownAttempt } from '../types.js';

type Recorded = ConnectorResult | RefundResult | PayoutResult | CaptureResult;

export interface LedgerEntry {
  key: string;
  operation: string;
  /** The bank's reference the operation settles (a challenge, an SBP or wallet order), if any. */
  reference: string | null;
  amount: number;
  currency: string;
}

const CLOSED: UnknownAttempt = { kind: 'unknown_attempt' };

export class SandboxLedger {
  constructor(private readonly db: pg.Pool) {}

  private async existing(e: Pick<LedgerEntry, 'key' | 'operation' | 'reference'>): Promise<Recorded | UnknownAttempt | null> {
    const res = await this.db.query<{ result: Recorded | UnknownAttempt }>({
      name: 'sandbox_ledger_find',
      text: `SELECT result FROM sandbox_ledger WHERE idempotency_key = $1
             OR ($3::text IS NOT NULL AND operation = $2 AND reference = $3) ORDER BY created_at LIMIT 1`,
      values: [e.key, e.operation, e.reference],
    });
    return res.rows[0]?.result ?? null;
  }

  /** Runs `decide` once per key: the first recorded result wins, for every process. */
  async once<R extends Recorded>(e: LedgerEntry, decide: () => Promise<R>): Promise<R | UnknownAttempt> {
    const seen = await this.existing(e);
    if (seen) return seen as R | UnknownAttempt;
    const result = await decide();
    if (result.kind === 'error') return result; // refused before it reached the bank: nothing to record
    const res = await this.db.query({
      name: 'sandbox_ledger_insert',
      text: `INSERT INTO sandbox_ledger (idempotency_key, operation, reference, amount, currency, moved, result)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      values: [e.key, e.operation, e.reference, e.amount, e.currency, result.kind === 'succeeded', JSON.stringify(result)],
    });
    if (res.rowCount === 1) return result;
    // Another caller recorded this key (or this reference) first: theirs is the bank's answer.
    const first = await this.existing(e);
    if (!first) throw new Error(`sandbox ledger: ${e.key} conflicted but no entry holds it`);
    return first as R | UnknownAttempt;
  }

  /** The recorded result of `key`; an unknown key is closed so that it can never be used later. */
  async lookup(key: string): Promise<Recorded | UnknownAttempt> {
    await this.db.query({
      name: 'sandbox_ledger_close',
      text: `INSERT INTO sandbox_ledger (idempotency_key, operation, reference, amount, currency, moved, result)
             VALUES ($1, 'closed', NULL, 0, '', false, $2) ON CONFLICT DO NOTHING`,
      values: [key, JSON.stringify(CLOSED)],
    });
    return (await this.existing({ key, operation: 'closed', reference: null })) ?? CLOSED;
  }

  /**
   * The operations the bank executed in [from, to) (epoch ms), for reconciliation: every entry but
   * the keys it only closed on a status query. An entry whose operation or result the bank does not
   * know is reported as a failed charge rather than left out, so it still shows as a difference.
   */
  async report(from: number, to: number): Promise<BankOperation[]> {
    const res = await this.db.query<{ key: string; operation: string; amount: string; currency: string; kind: string; at: number }>({
      name: 'sandbox_ledger_report',
      text: `SELECT idempotency_key AS key, operation, amount, currency, result->>'kind' AS kind, (extract(epoch FROM created_at) * 1000)::float8 AS at
             FROM sandbox_ledger WHERE created_at >= to_timestamp($1::float8 / 1000) AND created_at < to_timestamp($2::float8 / 1000)
               AND operation <> 'closed' ORDER BY created_at`,
      values: [from, to],
    });
    return res.rows.map((r) => ({
      key: r.key, kind: operationKind(r.operation) ?? 'charge', amount: Number(r.amount), currency: r.currency,
      outcome: bankOutcomeOf(r.kind) ?? 'failed', at: r.at,
    }));
  }
}
