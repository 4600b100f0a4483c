// Issue 25's scenarios that move money on objects prepared before the measured window, each
// request on an object of its own (bench/prepared.ts): the hosted checkout's card pay on pending
// payments, partial refunds of paid card payments, captures of authorized card payments.
import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { TEST_CARDS } from '../src/connectors/sandbox/cards.js';
import { measure, type LoadParams } from './load.js';
import { poolRequest, prepareMany, preparedCount, type PrepareParams, type PreparedFigures } from './prepared.js';
import { call, setupMerchant, withRss, type ScenarioFigures } from './server-child.js';

/** The sandbox bank's own success card (no card number is written outside the sandbox's list). */
export function successCard(): { number: string; exp_month: string; exp_year: string; cvc: string } {
  const number = Object.keys(TEST_CARDS).find((pan) => TEST_CARDS[pan].kind === 'success')!;
  return { number, exp_month: '12', exp_year: '34', cvc: '731' };
}

export const MONEY_SCENARIOS = ['checkout-pay', 'refunds', 'captures'] as const;
export type MoneyScenario = (typeof MONEY_SCENARIOS)[number];

/** A measured scenario on prepared objects: its load figures and what was prepared and used. */
export interface PreparedScenarioFigures extends ScenarioFigures { prepared: PreparedFigures }

export interface MoneyRunOptions {
  url: string;
  adminToken: string;
  /** The server's pid (memory and CPU are sampled for it). */
  pid: number;
  load: LoadParams;
  prepare: PrepareParams;
  /**
   * Another server process on the same database to prepare on (profile.ts: the profiled server's
   * profile then holds the measured load only); `done` is called once the preparation is over.
   */
  prepareOn?: PrepareOn;
  beforeScenario?: (name: string) => Promise<void>;
  log?: (line: string) => void;
}

export interface PrepareOn { url: string; adminToken: string; done?: () => Promise<void> }

/** A gateway merchant allowed to send card data, with a test secret key. */
async function cardMerchant(url: string, adminToken: string): Promise<{ merchantKey: string; sk: string }> {
  const m = await setupMerchant(url, adminToken);
  await call(url, adminToken, 'PATCH', `/internal/merchants/${m.id}`, { card_data_allowed: true });
  const sk = await call(url, adminToken, 'POST', `/internal/merchants/${m.id}/api-keys`, { kind: 'secret', mode: 'test' });
  return { merchantKey: m.key, sk: String(sk.key) };
}

const json = { 'content-type': 'application/json' };

/** Prepares the scenario's objects and the request that uses them; the request's objects come one per request. */
async function prepare(name: MoneyScenario, o: MoneyRunOptions, tag: string): Promise<{ ids: string[]; seconds: number; build: (id: string, n: number) => autocannon.Request }> {
  const wanted = preparedCount(o.load, o.prepare.rate);
  const url = o.prepareOn?.url ?? o.url;
  const { merchantKey, sk } = await cardMerchant(url, o.prepareOn?.adminToken ?? o.adminToken);
  const auth = { ...json, authorization: `Bearer ${sk}` };
  const cardPayment = (i: number, capture: 'automatic' | 'manual') => call(url, sk, 'POST', '/v2/payments',
    { amount: 4900, currency: 'AZN', order_id: `${name}-${i}`, card: successCard(), capture_method: capture }, { 'Idempotency-Key': `${tag}-prep-${i}` });
  const body = JSON.stringify(successCard());
  switch (name) {
    case 'checkout-pay': {
      // Merchant API payments (pending): their ids are the hosted checkout's session ids.
      const made = await prepareMany(wanted, o.prepare, async (i) => String((await call(url, merchantKey, 'POST', '/api/v2/payments',
        { amount: 4900, currency: 'AZN', order_id: `pay-${i}` }, { 'Idempotency-Key': `${tag}-prep-${i}` })).id));
      return { ...made, build: (id) => ({ method: 'POST', path: `/checkout/${id}/pay`, headers: json, body }) };
    }
    case 'refunds': {
      const made = await prepareMany(wanted, o.prepare, async (i) => {
        const p = await cardPayment(i, 'automatic');
        if (p.status !== 'succeeded') throw new Error(`refunds: prepared payment ${String(p.id)} is ${String(p.status)}, not succeeded`);
        return String(p.id);
      });
      // A partial refund of each paid payment, its key in the body as the spec has it.
      return { ...made, build: (id, n) => ({ method: 'POST', path: `/v2/payments/${id}/refund`, headers: auth, body: JSON.stringify({ amount: 100, idempotency_key: `${tag}-rf-${n}` }) }) };
    }
    case 'captures': {
      const made = await prepareMany(wanted, o.prepare, async (i) => {
        const p = await cardPayment(i, 'manual');
        if (p.status !== 'authorized') throw new Error(`captures: prepared payment ${String(p.id)} is ${String(p.status)}, not authorized`);
        return String(p.id);
      });
      return { ...made, build: (id, n) => ({ method: 'POST', path: `/v2/payments/${id}/capture`, headers: { ...auth, 'idempotency-key': `${tag}-cp-${n}` }, body: '{}' }) };
    }
  }
}

/** One scenario: prepare (not measured), wait for the machine, then warm-up and measured run over the pool. */
export async function runMoneyScenario(name: MoneyScenario, o: MoneyRunOptions): Promise<PreparedScenarioFigures> {
  const tag = `bench-${name}-${randomBytes(4).toString('hex')}`;
  const wanted = preparedCount(o.load, o.prepare.rate);
  const { ids, seconds, build } = await prepare(name, o, tag);
  await o.prepareOn?.done?.();
  o.log?.(`${name}: prepared ${ids.length} of ${wanted} in ${seconds} s (for ${o.prepare.rate} req/s)`);
  const { request, pool, used } = poolRequest(ids, build);
  await o.beforeScenario?.(name);
  const figures = await withRss(o.pid, () => measure(o.url, [request], o.load, [o.pid], pool));
  return { ...figures, prepared: { wanted, prepared: ids.length, seconds, used: used() } };
}
