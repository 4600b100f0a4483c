// The reconciliation comparison (src/domain/reconciliation.ts): every engine outcome against every
// bank state of its key, the engine's and the bank's names mapped to kinds and outcomes, and the
// ownership rule that makes each pair compared in exactly one of consecutive windows.
import t from 'tap';
import {
  bankOutcomeOf, compareWindow, comparePair, reportRange, engineOutcomeOf, operationKind,
  type BankOperation, type EngineOperation, type EngineOutcome,
} from '../../src/domain/reconciliation.js';

const eng = (key: string, at: number, outcome: EngineOutcome = 'succeeded', amount = 1000): EngineOperation =>
  ({ key, aggregateId: 'pay_1', connector: 'sandbox', kind: 'charge', amount, currency: 'RUB', outcome, at, settledAt: outcome === 'open' ? null : at + 5 });
const bank = (key: string, at: number, outcome: BankOperation['outcome'] = 'succeeded', amount = 1000, currency = 'RUB'): BankOperation =>
  ({ key, kind: 'charge', amount, currency, outcome, at });

t.test('names: every operation the attempt protocol records has a kind; result kinds map to outcomes', async (t) => {
  for (const op of ['authorize_card', 'complete_challenge', 'start_sbp', 'start_wallet', 'charge_wallet_token', 'charge_saved', 'resolve_external']) t.equal(operationKind(op), 'charge', op);
  for (const op of ['capture', 'void', 'refund', 'payout'] as const) t.equal(operationKind(op), op);
  t.equal(operationKind('closed'), null);
  t.same(['succeeded', 'failed', 'three_ds', 'qr', 'redirect', 'error', 'unknown_attempt'].map(bankOutcomeOf), ['succeeded', 'failed', 'pending', 'pending', 'pending', null, null]);
  t.equal(engineOutcomeOf('succeeded', 'succeeded'), 'succeeded');
  t.equal(engineOutcomeOf('failed', 'failed'), 'failed');
  t.equal(engineOutcomeOf('failed', 'error'), 'not_sent', 'a connector refusal never reached a bank');
  t.equal(engineOutcomeOf('action_required', 'three_ds'), 'pending');
  t.equal(engineOutcomeOf('abandoned', 'unknown_attempt'), 'not_sent');
  t.equal(engineOutcomeOf('abandoned', null), 'not_sent');
  t.equal(engineOutcomeOf('started', null), 'open');
});

t.test('every engine outcome against a bank with nothing, and with each outcome', async (t) => {
  const kinds = (e: EngineOperation, b: BankOperation | null) => comparePair(e, b).map((d) => d.kind);
  // engine outcome -> [bank none, bank succeeded, bank failed, bank pending]
  const TABLE: Record<EngineOutcome, string[][]> = {
    succeeded: [['missing_at_bank'], [], ['outcome_mismatch'], ['outcome_mismatch']],
    failed: [['missing_at_bank'], ['outcome_mismatch'], [], ['outcome_mismatch']],
    pending: [['missing_at_bank'], ['outcome_mismatch'], ['outcome_mismatch'], []],
    // Never sent, or still open: no money moved unless the bank has the key.
    not_sent: [[], ['outcome_mismatch'], ['outcome_mismatch'], ['outcome_mismatch']],
    open: [[], ['outcome_mismatch'], ['outcome_mismatch'], ['outcome_mismatch']],
  };
  for (const [outcome, row] of Object.entries(TABLE) as [EngineOutcome, string[][]][]) {
    t.same(kinds(eng('k', 0, outcome), null), row[0], `${outcome} / bank none`);
    (['succeeded', 'failed', 'pending'] as const).forEach((b, i) => t.same(kinds(eng('k', 0, outcome), bank('k', 1, b)), row[i + 1], `${outcome} / bank ${b}`));
  }
  t.same(kinds(eng('k', 0), bank('k', 1, 'succeeded', 999)), ['amount_mismatch']);
  t.same(kinds(eng('k', 0), bank('k', 1, 'succeeded', 1000, 'USD')), ['amount_mismatch'], 'a currency difference is an amount difference');
  t.same(kinds(eng('k', 0), bank('k', 1, 'failed', 999)), ['amount_mismatch', 'outcome_mismatch'], 'both, each once');
  t.same(comparePair(null, bank('x', 5)).map((d) => d.kind), ['missing_in_engine']);
});

t.test('ownership: a pair across a window boundary is compared once, in the engine attempt\'s window', async (t) => {
  const tol = 100;
  const w1 = { start: 0, end: 1000, tolerance: tol };
  const w2 = { start: 1000, end: 2000, tolerance: tol };
  // The engine's attempt at 990, the bank's record at 1010 with another amount.
  const e = eng('k', 990);
  const b = bank('k', 1010, 'succeeded', 5);
  t.same(compareWindow(w1, [e], [b], new Map()).map((d) => d.kind), ['amount_mismatch'], 'found in the attempt\'s window');
  t.same(compareWindow(w2, [], [b], new Map([['k', e]])), [], 'not again in the bank\'s');
  // A bank record far from its attempt (later than the tolerance) is the bank window's to compare.
  const late = bank('k', 1500, 'succeeded', 5);
  t.same(compareWindow(w1, [e], [late], new Map()).map((d) => d.kind), ['missing_at_bank'], 'nothing at the bank within the tolerance');
  t.same(compareWindow(w2, [], [late], new Map([['k', e]])).map((d) => d.kind), ['amount_mismatch'], 'the late record compared where it lies');
  // A slow call: the bank's record after the tolerance but before the engine recorded the outcome
  // belongs with the attempt, in both windows' eyes.
  const slow = { ...eng('s', 990), settledAt: 1600 };
  const slowBank = bank('s', 1500);
  t.same(compareWindow(w1, [slow], [slowBank], new Map()), [], 'paired in the attempt\'s window: clean');
  t.same(compareWindow(w2, [], [slowBank], new Map([['s', slow]])), [], 'and skipped in the bank\'s');
  t.same(reportRange(w1, [slow]), { from: -100, to: 1601 }, 'the report reaches the engine\'s record of the outcome');
  t.same(reportRange(w1, [eng('o', 10, 'open')]), { from: -100, to: 1100 });
  // In one window, however far apart: one comparison.
  t.same(compareWindow({ start: 0, end: 2000, tolerance: tol }, [eng('k', 10)], [bank('k', 1900)], new Map()), []);
});

t.test('a window: only its own attempts and its own bank records; bank-only keys are missing in the engine', async (t) => {
  const w = { start: 1000, end: 2000, tolerance: 100 };
  const engine = [eng('a', 1100), eng('b', 1200, 'not_sent'), eng('c', 1300, 'failed'), eng('outside', 950)];
  const report = [bank('a', 1101), bank('x', 1500), bank('before', 950), bank('after', 2050), bank('c', 1301, 'failed')];
  const diffs = compareWindow(w, engine, report, new Map());
  t.same(diffs.map((d) => [d.kind, d.key]), [['missing_in_engine', 'x']]);
  t.same(compareWindow(w, [], [], new Map()), [], 'an empty window is clean');
});
