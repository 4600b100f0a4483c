// Which connector serves a payment: the sandbox bank in test mode, the live acquirer in live mode.
import { liveConnector } from './live.js';
import { sandboxConnector } from './sandbox/connector.js';
import type { Connector } from './types.js';

export const connectorFor = (livemode: boolean): Connector => (livemode ? liveConnector : sandboxConnector);
export const connectorNameFor = (livemode: boolean): string => connectorFor(livemode).name;
