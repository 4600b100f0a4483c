// POST /v2/payouts (gateway, sk_test_ keys, distinct Idempotency-Keys) of 1 minor unit each to an
// IBAN, on one server child: from one balance (every payout of one merchant, mode and currency takes
// that balance's lock: the serialised path, docs/decisions.md "Payouts and balance") and from many
// balances (issue 25: one merchant per balance, request n from balance n mod B, B ≥ 2 × connections,
// so the payouts in flight at once are of distinct balances). Balances are funded by settled payments.
import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { measure, type LoadParams } from './load.js';
import { prepareMany, type PrepareParams } from './prepared.js';
import { call, setupMerchant, startServer, withRss, type ScenarioFigures, type ServerChildOptions } from './server-child.js';
import { TEST_IBANS } from '../src/connectors/sandbox/cards.js';

export interface PayoutRun {
  workers: number;
  /** One balance; null when filtered out (BENCH_ONLY). */
  create: ScenarioFigures | null;
  /** Distinct balances (absent in older results, null when filtered out). */
  distinct?: (ScenarioFigures & { balances: number; setupSeconds: number }) | null;
}

export interface PayoutOptions extends ServerChildOptions {
  load: LoadParams;
  prepare: PrepareParams;
  scenarios: { one: boolean; distinct: boolean };
  /** How many balances the distinct scenario spreads over (default 2 × connections). */
  balances?: number;
  beforeScenario?: (name: string) => Promise<void>;
  log?: (line: string) => void;
}

const BODY = JSON.stringify({ amount: 1, currency: 'AZN', destination: { type: 'iban', iban: TEST_IBANS.paid } });

/** A merchant with a test secret key and an AZN balance of `payments` settled payments of 4900. */
/**
 * A merchant whose balance is `payments` settled payments of `amount` each. The one-balance scenario
 * needs more than one payout of 1 per request it can answer (it ran out at 5,067/s with 10 × 49.00:
 * 6,120 answers were insufficient_balance), so it is funded with 10 × 4,900.00.
 */
async function fundedMerchant(url: string, adminToken: string, tag: string, payments: number, amount = 4900): Promise<string> {
  const { id, key } = await setupMerchant(url, adminToken);
  const sk = String((await call(url, adminToken, 'POST', `/internal/merchants/${id}/api-keys`, { kind: 'secret', mode: 'test' })).key);
  for (let i = 0; i < payments; i++) {
    const p = await call(url, key, 'POST', '/api/v2/payments', { amount, currency: 'AZN', order_id: `fund-${i}` }, { 'Idempotency-Key': `${tag}-${id}-fund-${i}` });
    await call(url, key, 'POST', `/api/v2/test/payments/${String(p.id)}/complete`, { outcome: 'succeeded' });
  }
  return sk;
}

/** Payouts whose request n is made with keys[n mod keys.length], each with its own Idempotency-Key. */
function payoutRequest(keys: string[], tag: string): autocannon.Request {
  const headers = (n: number) => ({ authorization: `Bearer ${keys[n % keys.length]}`, 'content-type': 'application/json', 'idempotency-key': `${tag}-${n}` });
  let seq = 0;
  return {
    method: 'POST', path: '/v2/payouts', headers: headers(0), body: BODY,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, headers: headers(n), body: BODY };
    },
  };
}

export async function runPayoutScenarios(given: PayoutOptions): Promise<PayoutRun> {
  // Statistics of the new database before each measured run (load.ts LoadParams.analyze).
  const o = { ...given, load: { ...given.load, analyze: given.databaseUrl } };
  const { server, adminToken, url } = await startServer(o);
  const pid = server.proc.pid!;
  try {
    let create: ScenarioFigures | null = null;
    if (o.scenarios.one) {
      const tag = `bench-po-${randomBytes(4).toString('hex')}`;
      const sk = await fundedMerchant(url, adminToken, tag, 10, 490_000);
      await o.beforeScenario?.('payouts');
      create = await withRss(pid, () => measure(url, [payoutRequest([sk], tag)], o.load, [pid]));
    }
    let distinct: PayoutRun['distinct'] = null;
    if (o.scenarios.distinct) {
      const tag = `bench-pd-${randomBytes(4).toString('hex')}`;
      const balances = o.balances ?? Math.max(2, 2 * o.load.connections);
      // Every balance is needed: the preparation's time budget does not apply here.
      const made = await prepareMany(balances, { ...o.prepare, budgetSeconds: 3600 }, () => fundedMerchant(url, adminToken, tag, 1));
      o.log?.(`payouts-distinct: ${made.ids.length} funded balances in ${made.seconds} s`);
      await o.beforeScenario?.('payouts-distinct');
      const figures = await withRss(pid, () => measure(url, [payoutRequest(made.ids, tag)], o.load, [pid]));
      distinct = { ...figures, balances: made.ids.length, setupSeconds: made.seconds };
    }
    return { workers: o.workers, create, distinct };
  } finally {
    await server.stop();
  }
}
