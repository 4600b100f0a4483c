// Scenario 3: the payments server as a child process (one WORKERS value, one fresh database),
// measured on POST /api/v2/payments (distinct Idempotency-Keys), POST /v2/payments/checkout (the
// gateway's checkout session, same shape of load, reported as a ratio to the merchant API's create),
// POST /v2/payments (card, automatic capture), the money-moving scenarios of money-scenarios.ts
// (checkout pay, refunds, captures: on objects prepared before their window) and GET /api/v2/payments/{id};
// and GET /api/v2/payments/{id} again with two server processes on one database (the production
// shape), the load spread over both.
import { randomBytes } from 'node:crypto';
import { measure, measureTimed, type LoadFigures, type LoadParams } from './load.js';
import { MONEY_SCENARIOS, runMoneyScenario, successCard, type MoneyScenario, type PrepareOn, type PreparedScenarioFigures } from './money-scenarios.js';
import { prepareParams, type PrepareParams } from './prepared.js';
import { call, setupMerchant, startServer, withRss, type ScenarioFigures, type ServerChildOptions } from './server-child.js';
import type autocannon from 'autocannon';

export { call, setupMerchant, startServer, withRss, type ScenarioFigures, type ServerChildOptions } from './server-child.js';

export interface ServerScenarioOptions extends ServerChildOptions {
  load: LoadParams;
  /** Run only the create scenario (profiling). */
  createOnly?: boolean;
  /** Which scenarios to measure (default: create, checkout, get). */
  scenarios?: { create: boolean; get: boolean; checkout?: boolean; direct?: boolean } & Partial<Record<MoneyScenario, boolean>>;
  /** How the money scenarios prepare their objects (default: prepareParams() of the run's create rate). */
  prepare?: PrepareParams;
  /** Prepare them through another server on the same database (profiling). */
  prepareOn?: PrepareOn;
  /** Awaited before each measured scenario ('create', 'get', 'get2'), e.g. to wait for an idle machine. */
  beforeScenario?: (name: string) => Promise<void>;
  log?: (line: string) => void;
}

export interface ServerRun {
  workers: number;
  startupMs: number;
  /** Null when the create scenario was filtered out (BENCH_ONLY). */
  create: ScenarioFigures | null;
  /**
   * The create measured again after the money scenarios, on the same server and grown database:
   * the money paths are judged against the mean of both windows (money-targets.ts). Null or absent
   * when no money scenario ran, or create was filtered out.
   */
  createAfter?: ScenarioFigures | null;
  /** POST /v2/payments/checkout; null when filtered out. */
  checkout?: ScenarioFigures | null;
  /** POST /v2/payments (card 4242…, automatic capture: create and sandbox charge); null when filtered out. */
  direct?: ScenarioFigures | null;
  /** POST /checkout/{id}/pay with the success card on pending payments made before the window (issue 25). */
  checkoutPay?: PreparedScenarioFigures | null;
  /** POST /v2/payments/{id}/refund, partial, one per paid card payment made before the window. */
  refunds?: PreparedScenarioFigures | null;
  /** POST /v2/payments/{id}/capture, one per authorized card payment made before the window. */
  captures?: PreparedScenarioFigures | null;
  get: ScenarioFigures | null;
  /** Scenarios that could not be prepared or run (flagged). */
  failures?: string[];
}

/** The ServerRun field of each money scenario. */
export const MONEY_FIELDS: Record<MoneyScenario, 'checkoutPay' | 'refunds' | 'captures'> = { 'checkout-pay': 'checkoutPay', refunds: 'refunds', captures: 'captures' };

/** GET /api/v2/payments/{id} with `processes` server processes (WORKERS each) on one database. */
export interface MultiProcessGet {
  processes: number;
  workers: number;
  get: ScenarioFigures;
}

async function seedPayments(url: string, key: string, tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, j) => call(url, key, 'POST', '/api/v2/payments',
      { amount: 4900, currency: 'AZN', order_id: `seed-${i + j}` }, { 'Idempotency-Key': `${tag}-seed-${i + j}` }));
    for (const p of await Promise.all(batch)) ids.push(String(p.id));
  }
  return ids;
}

/** The JSON body of the n-th create of a run. */
export const createBody = (n: number): string => JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}` });

/** POST /api/v2/payments for autocannon, each request with its own Idempotency-Key (`<tag>-<n>`). */
export function createRequest(key: string, tag: string): autocannon.Request {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/api/v2/payments', headers,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-${n}` }, body: createBody(n) };
    },
  };
}

/** POST /v2/payments/checkout for autocannon with a gateway secret key, each with its own Idempotency-Key. */
export function checkoutRequest(key: string, tag: string): autocannon.Request {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/v2/payments/checkout', headers,
    setupRequest: (req) => {
      const n = seq++;
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-cs-${n}` }, body: JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}` }) };
    },
  };
}

/** POST /v2/payments with the sandbox's success card and automatic capture, each with its own Idempotency-Key. */
export function directRequest(key: string, tag: string): autocannon.Request {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let seq = 0;
  return {
    method: 'POST', path: '/v2/payments', headers,
    setupRequest: (req) => {
      const n = seq++;
      const card = successCard();
      return { ...req, headers: { ...headers, 'idempotency-key': `${tag}-dp-${n}` }, body: JSON.stringify({ amount: 4900, currency: 'AZN', order_id: `order-${n}`, card }) };
    },
  };
}

/**
 * GET /api/v2/payments/{id} over existing payments, one id per connection: connection i reads
 * payment i from server i mod n, so the reads that meet in one statement are of distinct ids, as
 * with many clients. Each connection's request is fixed, so autocannon builds it once, as for the
 * hello baseline; a per-request `setupRequest` makes autocannon rebuild it from its whole option
 * set on every send, which cost it about 15 µs of CPU per request on 2 cores, taken from the
 * servers (2026-11-26, two processes on one database: 0.18× → 0.34× hello).
 */
function measureGets(bases: string[], key: string, ids: string[], load: LoadParams, pids: number[]): Promise<LoadFigures> {
  const urls = Array.from({ length: load.connections }, (_, i) => `${bases[i % bases.length]}/api/v2/payments/${ids[i % ids.length]}`);
  return measureTimed(urls, undefined, load, { headers: { authorization: `Bearer ${key}` } }, pids).then((t) => t.figures);
}

/** As many payments as connections (at least 100), so no two connections read the same one. */
const getIds = (load: LoadParams): number => Math.max(100, load.connections);

export async function runServerScenarios(given: ServerScenarioOptions): Promise<ServerRun> {
  // Statistics of the new database before each measured run (load.ts LoadParams.analyze).
  const o = { ...given, load: { ...given.load, analyze: given.databaseUrl } };
  const want: NonNullable<ServerScenarioOptions['scenarios']> = o.createOnly ? { create: true, get: false, checkout: false } : o.scenarios ?? { create: true, get: true, checkout: true };
  // The hosted checkout's per-address limit (600/min) would refuse a load that all comes from 127.0.0.1.
  const { server, adminToken, url, startupMs } = await startServer(o, { PUBLIC_RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const { key } = await setupMerchant(url, adminToken);
    const tag = `bench-${randomBytes(4).toString('hex')}`;
    const pid = server.proc.pid!;
    let create: ScenarioFigures | null = null;
    if (want.create) {
      await o.beforeScenario?.('create');
      create = await withRss(pid, () => measure(url, [createRequest(key, tag)], o.load, [pid]));
    }
    let checkout: ScenarioFigures | null = null;
    if (want.checkout) {
      const merchant = await setupMerchant(url, adminToken);
      const sk = await call(url, adminToken, 'POST', `/internal/merchants/${merchant.id}/api-keys`, { kind: 'secret', mode: 'test' });
      await o.beforeScenario?.('checkout');
      checkout = await withRss(pid, () => measure(url, [checkoutRequest(String(sk.key), tag)], o.load, [pid]));
    }
    let direct: ScenarioFigures | null = null;
    if (want.direct) {
      const merchant = await setupMerchant(url, adminToken);
      await call(url, adminToken, 'PATCH', `/internal/merchants/${merchant.id}`, { card_data_allowed: true });
      const sk = await call(url, adminToken, 'POST', `/internal/merchants/${merchant.id}/api-keys`, { kind: 'secret', mode: 'test' });
      await o.beforeScenario?.('direct');
      direct = await withRss(pid, () => measure(url, [directRequest(String(sk.key), tag)], o.load, [pid]));
    }
    const money: Partial<Pick<ServerRun, 'checkoutPay' | 'refunds' | 'captures'>> = {};
    const failures: string[] = [];
    for (const name of MONEY_SCENARIOS) {
      if (!want[name]) continue;
      const prepare = o.prepare ?? prepareParams(create?.reqPerSec);
      try {
        money[MONEY_FIELDS[name]] = await runMoneyScenario(name, { url, adminToken, pid, load: o.load, prepare, prepareOn: o.prepareOn, beforeScenario: o.beforeScenario, log: o.log });
      } catch (err) {
        // One scenario that could not be prepared or run does not cost the whole run: it is flagged.
        failures.push(`${name} did not run: ${(err as Error).message.split('\n')[0]}`);
        o.log?.(failures[failures.length - 1]);
        money[MONEY_FIELDS[name]] = null;
      }
    }
    // The create again, after the paths it is the yardstick of: the machine's speed drifts over a
    // run and the database has grown, so the money paths are judged against both windows' mean.
    let createAfter: ScenarioFigures | null = null;
    if (create && (direct || checkout || Object.values(money).some(Boolean))) {
      await o.beforeScenario?.('create (after)');
      createAfter = await withRss(pid, () => measure(url, [createRequest(key, `${tag}-after`)], o.load, [pid]));
    }
    if (!want.get) return { workers: o.workers, startupMs, create, createAfter, checkout, direct, ...money, failures, get: null };

    const ids = await seedPayments(url, key, tag, getIds(o.load));
    await o.beforeScenario?.('get');
    const get = await withRss(pid, () => measureGets([url], key, ids, o.load, [pid]));
    return { workers: o.workers, startupMs, create, createAfter, checkout, direct, ...money, failures, get };
  } finally {
    await server.stop();
  }
}

/**
 * Two server processes (WORKERS each) on one database, as in production behind a load balancer:
 * autocannon spreads its connections over both in turn. CPU per request is that of both processes.
 */
export async function runMultiProcessGet(given: Omit<ServerScenarioOptions, 'createOnly' | 'scenarios' | 'prepare'>, processes = 2): Promise<MultiProcessGet> {
  const o = { ...given, load: { ...given.load, analyze: given.databaseUrl } };
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    for (let i = 0; i < processes; i++) servers.push(await startServer(o));
    const { key } = await setupMerchant(servers[0].url, servers[0].adminToken);
    const tag = `bench-${randomBytes(4).toString('hex')}`;
    const ids = await seedPayments(servers[0].url, key, tag, getIds(o.load));
    const pids = servers.map((s) => s.server.proc.pid!);
    await o.beforeScenario?.('get2');
    const get = await withRss(pids, () => measureGets(servers.map((s) => s.url), key, ids, o.load, pids));
    return { processes, workers: o.workers, get };
  } finally {
    await Promise.all(servers.map((s) => s.server.stop()));
  }
}
