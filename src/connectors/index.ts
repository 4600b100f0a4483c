// Which connector serves a payment: the sandbox bank in test mode, the live acquirer in live mode.
// Connectors are built once per worker with what they need (the sandbox bank keeps its ledger in
// Postgres); their names are known without building them.
import type pg from 'pg';
import { liveConnector } from './live.js';
import { createSandboxConnector } from './sandbox/connector.js';
import { SandboxLedger } from './sandbox/ledger.js';
import type { Connector } from './types.js';

export type Connectors = (livemode: boolean) => Connector;

export function createConnectors(db: pg.Pool): Connectors {
  const sandbox = createSandboxConnector(new SandboxLedger(db));
  return (livemode) => (livemode ? liveConnector : sandbox);
}

/** Every connector once, for work across all of them (reconciliation asks each for its report). */
export function allConnectors(db: pg.Pool): Connector[] {
  return [createSandboxConnector(new SandboxLedger(db)), liveConnector];
}

export const connectorNameFor = (livemode: boolean): string => (livemode ? liveConnector.name : 'sandbox');
