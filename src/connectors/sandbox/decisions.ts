// The sandbox bank's decisions: a deterministic acquirer for anyone integrating. Outcomes are driven
// by the test cards, by its own pages (3-D Secure ACS, SBP bank, wallets) and by the test helpers.
// Pure apart from fresh references: what it must remember between two calls travels in its
// reference. The connector (connector.ts) puts its ledger in front, so a repeated idempotency key
// gets the first decision again.
import { prefixedId } from '../../domain/ids.js';
import type { BankOperations, CaptureResult, ConnectorResult, PayoutResult, RefundResult } from '../types.js';
import { TEST_CARDS } from './cards.js';

// Twelve letters and digits from the ids' pooled random bytes (a randomBytes call per reference
// was 4-5 % of a worker's busy time under card payments).
const ref = (kind: string) => prefixedId(`sbx_${kind}`, 12);

/** Pages of the sandbox bank, under the service's public base URL. */
export const sandboxPaths = {
  acs: (paymentId: string) => `/sandbox/3ds/${encodeURIComponent(paymentId)}`,
  sbp: (paymentId: string) => `/sandbox/sbp/${encodeURIComponent(paymentId)}`,
  wallet: (paymentId: string) => `/sandbox/wallet/${encodeURIComponent(paymentId)}`,
};

/** A refund of an amount whose last three digits are 666 (1666, 10666, …) is refused by the sandbox bank. */
export const refusesRefund = (amount: number): boolean => amount % 1000 === 666;

/** A capture of an amount whose last three digits are 666 is refused, like a refund; a void never is. */
export const refusesCapture = (amount: number): boolean => amount % 1000 === 666;

/**
 * The sandbox bank refuses a payout to one of its declining test cards (4000000000000002, …), or
 * to an IBAN or SBP phone whose last three digits are 666 (docs/sandbox.md); it pays every other.
 */
export function refusesPayout(type: 'card' | 'iban' | 'sbp', account: string): boolean {
  if (type === 'card') return TEST_CARDS[account]?.kind === 'decline';
  return account.endsWith('666');
}

export const sandboxDecisions: BankOperations = {
  async authorizeCard(r, card) {
    const scenario = TEST_CARDS[card.pan];
    if (r.livemode && scenario) return { kind: 'error', code: 'test_card_in_live_mode' };
    if (!scenario) return { kind: 'failed', ref: ref('card'), code: 'card_declined' };
    if (scenario.kind === 'decline') return { kind: 'failed', ref: ref('card'), code: scenario.code };
    const token = ref('tok');
    if (scenario.kind === 'success') return { kind: 'succeeded', ref: ref('card'), country: scenario.country, token };
    const attempt = ref(scenario.afterPass === 'success' ? '3dsok' : `3ds-${scenario.afterPass}`);
    const creq = Buffer.from(JSON.stringify({ messageType: 'CReq', messageVersion: '2.2.0', acsTransID: attempt })).toString('base64url');
    return { kind: 'three_ds', ref: attempt, acsUrl: r.baseUrl + sandboxPaths.acs(r.paymentId), creq, country: scenario.country, token };
  },

  async completeChallenge(_r, attempt, cres) {
    if (cres !== 'Y') return { kind: 'failed', ref: attempt, code: 'authentication_failed' };
    const m = /^sbx_3ds-([a-z_]+)_/.exec(attempt);
    if (m) return { kind: 'failed', ref: attempt, code: m[1] as 'card_declined' };
    return { kind: 'succeeded', ref: attempt, country: null, token: null };
  },

  async startSbp(r, memberId) {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    const attempt = ref('sbp');
    const page = `${r.baseUrl}${sandboxPaths.sbp(r.paymentId)}?ref=${attempt}`;
    return { kind: 'qr', ref: attempt, payload: page, deeplink: memberId ? `${page}&member=${memberId}` : page };
  },

  async startWallet(r, wallet) {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    const attempt = ref(wallet);
    return { kind: 'redirect', ref: attempt, url: `${r.baseUrl}${sandboxPaths.wallet(r.paymentId)}?ref=${attempt}&wallet=${wallet}` };
  },

  async chargeWalletToken(r, token) {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    if (/decline/i.test(token)) return { kind: 'failed', ref: ref('wlt'), code: 'card_declined' };
    return { kind: 'succeeded', ref: ref('wlt'), country: null, token: null };
  },

  async chargeSaved(r, token) {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    if (!token.startsWith('sbx_tok_')) return { kind: 'failed', ref: ref('rec'), code: 'card_declined' };
    return { kind: 'succeeded', ref: ref('rec'), country: null, token: null };
  },

  async refund(r, _chargeRef): Promise<RefundResult> {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    if (refusesRefund(r.amount)) return { kind: 'failed', ref: ref('rfd'), code: 'refund_declined' };
    return { kind: 'succeeded', ref: ref('rfd') };
  },

  async payout(r, to): Promise<PayoutResult> {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    if (refusesPayout(to.type, to.account)) return { kind: 'failed', ref: ref('po'), code: 'payout_declined' };
    return { kind: 'succeeded', ref: ref('po') };
  },

  async capture(r, _authRef, authorized): Promise<CaptureResult> {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    if (refusesCapture(r.amount)) return { kind: 'failed', ref: ref('cap'), code: 'capture_declined' };
    return { kind: 'succeeded', ref: ref('cap'), released: Math.max(0, authorized - r.amount) };
  },

  async void(r): Promise<CaptureResult> {
    if (r.livemode) return { kind: 'error', code: 'connector_not_configured' };
    return { kind: 'succeeded', ref: ref('void'), released: r.amount };
  },

  async resolveExternal(_r, attempt, decision): Promise<ConnectorResult> {
    if (decision === 'approve') return { kind: 'succeeded', ref: attempt, country: null, token: null };
    return { kind: 'failed', ref: attempt, code: 'card_declined' };
  },
};
