// Reconciliation (issue 26): the engine's connector attempts of one closed window compared with the
// bank's report of its operations, matched by the idempotency key the engine sent (the attempt id).
// Pure: the reconciler (actors/reconciliation/) reads both sides and records what this returns.

/** What the bank did, in the terms every connector reports (src/connectors/types.ts). */
export type OperationKind = 'charge' | 'capture' | 'void' | 'refund' | 'payout';
/** A bank operation's outcome: done, refused, or waiting for the customer (3-D Secure, QR, wallet page). */
export type BankOutcome = 'succeeded' | 'failed' | 'pending';

/** One operation in a bank's report. `at`: when the bank recorded it, epoch ms. */
export interface BankOperation {
  key: string;
  kind: OperationKind;
  amount: number;
  currency: string;
  outcome: BankOutcome;
  at: number;
}

/**
 * The engine's view of an attempt: as the bank's outcomes, plus `not_sent` (the connector refused
 * before any bank saw it, or recovery found the bank never received it, or it was abandoned) and
 * `open` (no outcome recorded yet: the recovery sweep's work).
 */
export type EngineOutcome = BankOutcome | 'not_sent' | 'open';

export interface EngineOperation {
  key: string;
  aggregateId: string;
  connector: string;
  kind: OperationKind;
  amount: number;
  currency: string;
  outcome: EngineOutcome;
  at: number;
  /** When the engine recorded the attempt's outcome (epoch ms); null while it is open. */
  settledAt: number | null;
}

export const DIFFERENCE_KINDS = ['missing_in_engine', 'missing_at_bank', 'amount_mismatch', 'outcome_mismatch'] as const;
export type DifferenceKind = typeof DIFFERENCE_KINDS[number];

export interface Difference {
  kind: DifferenceKind;
  key: string;
  engine: EngineOperation | null;
  bank: BankOperation | null;
}

const CHARGE_OPERATIONS = new Set(['authorize_card', 'complete_challenge', 'start_sbp', 'start_wallet', 'charge_wallet_token', 'charge_saved', 'resolve_external']);

/** The kind of an attempt's operation (the names the attempt protocol records); null for an unknown name. */
export function operationKind(operation: string): OperationKind | null {
  if (CHARGE_OPERATIONS.has(operation)) return 'charge';
  return operation === 'capture' || operation === 'void' || operation === 'refund' || operation === 'payout' ? operation : null;
}

/** A connector's result kind as a bank outcome; null for a result that is not a bank's decision. */
export function bankOutcomeOf(resultKind: string): BankOutcome | null {
  if (resultKind === 'succeeded' || resultKind === 'failed') return resultKind;
  return resultKind === 'three_ds' || resultKind === 'qr' || resultKind === 'redirect' ? 'pending' : null;
}

/** The engine's outcome of an attempt row (`status`, and the kind of its recorded `result`). */
export function engineOutcomeOf(status: string, resultKind: string | null): EngineOutcome {
  switch (status) {
    case 'succeeded': return 'succeeded';
    // A refusal of the connector itself (`error`) never reached a bank.
    case 'failed': return resultKind === 'error' ? 'not_sent' : 'failed';
    case 'action_required': return 'pending';
    case 'started': return 'open';
    default: return 'not_sent'; // abandoned
  }
}

export interface Window {
  start: number;
  end: number;
  /**
   * How far apart the engine's and the bank's times of one operation may be (the reconciler uses
   * RECONCILIATION_DELAY_MS, at least the recovery delay: longer than any connector call). A pair
   * closer than this is compared in the engine attempt's window; a pair further apart, in the bank
   * operation's window too.
   */
  tolerance: number;
}

const inWindow = (w: Window, at: number) => at >= w.start && at < w.end;

/**
 * Whether a bank operation belongs with its engine attempt's window: the bank recorded it within
 * the tolerance of the attempt, or between the attempt and the engine's record of the outcome (the
 * engine learns an outcome from the bank, so a bank's record is never later than that, however
 * slow the call was). Both windows of a pair decide alike, each from the two records alone.
 */
export function pairsWithAttempt(e: EngineOperation, b: BankOperation, tolerance: number): boolean {
  return Math.abs(b.at - e.at) < tolerance || (e.settledAt !== null && b.at >= e.at && b.at <= e.settledAt);
}

/** The bank's report a window needs: from `tolerance` before it to the latest of its attempts' pairs. */
export function reportRange(w: Window, engine: EngineOperation[]): { from: number; to: number } {
  let to = w.end + w.tolerance;
  for (const e of engine) if (e.settledAt !== null && e.settledAt + 1 > to) to = e.settledAt + 1;
  return { from: w.start - w.tolerance, to };
}

/** The differences of one pair (either side may be missing). */
export function comparePair(e: EngineOperation | null, b: BankOperation | null): Difference[] {
  const key = (e ?? b)!.key;
  if (!e) return b ? [{ kind: 'missing_in_engine', key, engine: null, bank: b }] : [];
  if (!b) {
    // Not sent, or still open (recovery will ask the bank, which then closes the key): no money moved.
    return e.outcome === 'not_sent' || e.outcome === 'open' ? [] : [{ kind: 'missing_at_bank', key, engine: e, bank: null }];
  }
  const out: Difference[] = [];
  if (e.amount !== b.amount || e.currency !== b.currency) out.push({ kind: 'amount_mismatch', key, engine: e, bank: b });
  if (e.outcome !== b.outcome) out.push({ kind: 'outcome_mismatch', key, engine: e, bank: b });
  return out;
}

/**
 * The differences owned by window `w`:
 * - every engine attempt created in `w`, with the bank operation of its key when that one is in `w`
 *   too or pairs with it (pairsWithAttempt; `bank` holds the report of reportRange);
 * - every bank operation recorded in `w` whose key the engine does not have (missing_in_engine), or
 *   whose engine attempt lies in another window and does not pair with it.
 * `engineElsewhere` holds the engine's attempts, from any time, of the keys of `bank` not created in `w`.
 * Each pair is owned by exactly one window, so a difference is found once over consecutive windows.
 */
export function compareWindow(w: Window, engine: EngineOperation[], bank: BankOperation[], engineElsewhere: Map<string, EngineOperation>): Difference[] {
  const bankByKey = new Map(bank.map((b) => [b.key, b]));
  const ownKeys = new Set<string>();
  const out: Difference[] = [];
  for (const e of engine) {
    if (!inWindow(w, e.at)) continue;
    ownKeys.add(e.key);
    const b = bankByKey.get(e.key) ?? null;
    const paired = b !== null && (inWindow(w, b.at) || pairsWithAttempt(e, b, w.tolerance));
    out.push(...comparePair(e, paired ? b : null));
  }
  for (const b of bank) {
    if (!inWindow(w, b.at) || ownKeys.has(b.key)) continue;
    const e = engineElsewhere.get(b.key) ?? null;
    if (e && pairsWithAttempt(e, b, w.tolerance)) continue; // compared in the engine attempt's window
    out.push(...comparePair(e, b));
  }
  return out;
}
