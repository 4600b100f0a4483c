// The sandbox bank's ledger, in Postgres so that every server process talks to one bank: one row per
// operation by the caller's idempotency key. The first result for a key (or for one 3-D Secure
// challenge or page decision, whatever key repeats it) is the only one: a repeat gets it back and
// moves no money twice. A status query for a key the bank never saw closes that key.
//
// Cost (issue 25): the bank decides first (decisions.ts is pure apart from fresh references, so a
// decision that loses the race is simply dropped), then records it with one
// `INSERT … ON CONFLICT DO NOTHING RETURNING`; only a key or reference already held costs a second
// statement, which reads the winner. Calls of one thread that arrive together share those
// statements (unnest), with row isolation: a group Postgres refuses for one row's data is split
// and retried, so the bad row fails alone (ledger-group.ts).
import type pg from 'pg';
import { bankOutcomeOf, operationKind, type BankOperation } from '../../domain/reconciliation.js';
import type { CaptureResult, ConnectorResult, PayoutResult, RefundResult, UnknownAttempt } from '../types.js';
import { LedgerGroup, timed } from './ledger-group.js';

export { sandboxBankStats } from './ledger-group.js';

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

export interface LedgerOptions {
  /** Calls recorded by one statement, at most. */
  maxBatch?: number;
  /** Statements in flight at once, at most; calls arriving meanwhile wait for the next group. */
  maxInflight?: number;
}

export class SandboxLedger {
  private readonly group: LedgerGroup;

  constructor(private readonly db: pg.Pool, opts: LedgerOptions = {}) {
    this.group = new LedgerGroup(db, opts.maxBatch ?? 64, opts.maxInflight ?? 2);
  }

  /** Runs `decide` and records its result unless the key already holds one: the first recorded result wins, for every process. */
  async once<R extends Recorded>(e: LedgerEntry, decide: () => Promise<R>): Promise<R | UnknownAttempt> {
    return timed(async () => {
      const result = await decide();
      if (result.kind === 'error') {
        // Refused before it reached the bank: nothing to record, unless the key already holds an answer.
        const [seen] = await this.group.winners([e]);
        return (seen ?? result) as R | UnknownAttempt;
      }
      return (await this.group.record(e, result, result.kind === 'succeeded')) as R | UnknownAttempt;
    });
  }

  /** The recorded result of `key`; an unknown key is closed so that it can never be used later. */
  async lookup(key: string): Promise<Recorded | UnknownAttempt> {
    return timed(async () => (await this.group.record({ key, operation: 'closed', reference: null, amount: 0, currency: '' }, CLOSED, false)) as Recorded | UnknownAttempt);
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
