// The live acquirer is not wired in this build: every call is refused with a clearly named error,
// never a fake success.
import type { Connector, ConnectorResult } from './types.js';

const refuse = async (): Promise<ConnectorResult> => ({ kind: 'error', code: 'connector_not_configured' });

export const liveConnector: Connector = {
  name: 'live',
  authorizeCard: refuse, completeChallenge: refuse, startSbp: refuse, startWallet: refuse,
  chargeWalletToken: refuse, chargeSaved: refuse, resolveExternal: refuse,
  refund: async () => ({ kind: 'error', code: 'connector_not_configured' }),
  payout: async () => ({ kind: 'error', code: 'connector_not_configured' }),
  capture: async () => ({ kind: 'error', code: 'connector_not_configured' }),
  void: async () => ({ kind: 'error', code: 'connector_not_configured' }),
  // Nothing is ever sent: every key is unknown to it.
  lookup: async () => ({ kind: 'unknown_attempt' }),
  // Nothing is ever sent, so the bank executed nothing; a wired acquirer reads its settlement file here.
  report: async () => [],
};
