// The sandbox connector: the bank's decisions (decisions.ts) behind its ledger (ledger.ts), so that
// every call is idempotent by its attempt id, as a real acquirer's API is by its idempotency key.
import type { CaptureResult, Connector, ConnectorRequest, ConnectorResult, PayoutResult, RefundResult, UnknownAttempt } from '../types.js';
import { sandboxDecisions as bank } from './decisions.js';
import type { SandboxLedger } from './ledger.js';

export { sandboxPaths } from './decisions.js';

/** A key the bank had closed on a status query is refused: nothing moves. */
const settled = <R extends ConnectorResult | RefundResult | PayoutResult | CaptureResult>(r: R | UnknownAttempt): R | { kind: 'error'; code: 'payment_attempt_interrupted' } =>
  r.kind === 'unknown_attempt' ? { kind: 'error', code: 'payment_attempt_interrupted' } : r;

export function createSandboxConnector(ledger: SandboxLedger): Connector {
  const once = async <R extends ConnectorResult | RefundResult | PayoutResult | CaptureResult>(r: ConnectorRequest, operation: string, reference: string | null, decide: () => Promise<R>) =>
    settled(await ledger.once<R>({ key: r.attemptId, operation, reference, amount: r.amount, currency: r.currency }, decide));
  return {
    name: 'sandbox',
    authorizeCard: (r, card) => once(r, 'authorize_card', null, () => bank.authorizeCard(r, card)),
    completeChallenge: (r, ref, cres) => once(r, 'complete_challenge', ref, () => bank.completeChallenge(r, ref, cres)),
    startSbp: (r, member) => once(r, 'start_sbp', null, () => bank.startSbp(r, member)),
    startWallet: (r, wallet, phone) => once(r, 'start_wallet', null, () => bank.startWallet(r, wallet, phone)),
    chargeWalletToken: (r, token) => once(r, 'charge_wallet_token', null, () => bank.chargeWalletToken(r, token)),
    chargeSaved: (r, token) => once(r, 'charge_saved', null, () => bank.chargeSaved(r, token)),
    resolveExternal: (r, ref, decision) => once(r, 'resolve_external', ref, () => bank.resolveExternal(r, ref, decision)),
    // Each partial refund is its own operation: no reference, so refunds of one charge never merge.
    refund: (r, chargeRef) => once(r, 'refund', null, () => bank.refund(r, chargeRef)),
    // Each payout is its own operation, keyed by its attempt id.
    payout: (r, to) => once(r, 'payout', null, () => bank.payout(r, to)),
    // A capture or a void is its own operation keyed by its attempt id (a refused capture must not
    // answer a later capture of another amount); the state machine allows one of them per payment.
    capture: (r, authRef, authorized) => once(r, 'capture', null, () => bank.capture(r, authRef, authorized)),
    void: (r, authRef) => once(r, 'void', null, () => bank.void(r, authRef)),
    lookup: (key) => ledger.lookup(key),
    report: (from, to) => ledger.report(from, to),
  };
}
