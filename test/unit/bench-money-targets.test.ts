// Issue 25's targets in the bench's PASS/MISS table, and the pool of prepared objects the money
// scenarios use up one per request.
import t from 'tap';
import { poolRequest, prepareMany, preparedCount } from '../../bench/prepared.js';
import { figureRows, judge, type BenchResults } from '../../bench/results.js';
import type { ScenarioFigures, ServerRun } from '../../bench/server-scenarios.js';
import type { WebhookRun } from '../../bench/webhook-scenario.js';

const load = (reqPerSec: number, p99: number, pg = 100): ScenarioFigures => ({
  reqPerSec, p50: 1, p99, requests: reqPerSec * 10, non2xx: 0, errors: 0, timeouts: 0, statusCodes: { 200: reqPerSec * 10 },
  cpuUsPerReq: 200, pgCpuUsPerReq: pg, boxCpuUsPerReq: 400, peakRssMb: 200,
});
const prepared = { wanted: 1000, prepared: 1000, seconds: 2, used: 900 };
const baselines: BenchResults['baselines'] = {
  uws: null, insert: { table: 'durable', connections: 64, seconds: 10, rows: 100_000, failures: 0, rowsPerSecond: 10_000, p50: 3, p99: 11 },
};
const result = (targets: ReturnType<typeof judge>['targets'], check: string) => targets.find((x) => x.check === check);

t.test('each money path against the same run\'s create, with the direct payment\'s p99 and Postgres CPU', async (t) => {
  const server: ServerRun[] = [{
    workers: 2, startupMs: 1, create: load(5000, 40, 100), get: null,
    direct: load(2100, 99, 300), checkoutPay: { ...load(1999, 200), prepared },
    refunds: { ...load(2000, 50), prepared }, captures: { ...load(3000, 50), prepared },
  }];
  const payouts = { workers: 2, create: load(400, 400), distinct: { ...load(2500, 80), balances: 200, setupSeconds: 1 } };
  const { targets, flags } = judge({ baselines, server, payouts, webhooks: null, multiGet: null });
  t.same(flags, []);
  t.match(result(targets, 'create req/s ÷ baseline B rows/s'), { value: 0.5, target: '≥ 0.7', pass: false });
  t.match(result(targets, 'direct payment req/s ÷ create req/s'), { workers: 2, value: 0.42, target: '≥ 0.4', pass: true });
  t.match(result(targets, 'direct payment p99 (ms)'), { value: 99, target: '< 100', pass: true });
  t.match(result(targets, 'direct payment PG µs/req ÷ create PG µs/req'), { value: 3, target: '≤ 3', pass: true });
  t.match(result(targets, 'checkout pay req/s ÷ create req/s'), { value: 0.4, pass: false }, '1999 is under 0.4 × 5000');
  t.match(result(targets, 'refund req/s ÷ create req/s'), { value: 0.4, pass: true });
  t.match(result(targets, 'capture req/s ÷ create req/s'), { value: 0.6, pass: true });
  t.match(result(targets, 'payouts, 200 balances, req/s ÷ create req/s'), { value: 0.5, target: '≥ 0.4', pass: true });
  t.match(result(targets, 'payouts, one balance, req/s ÷ create req/s (info)'), { value: 0.08, target: 'reported', pass: true });
  t.notOk(result(targets, 'direct payment PG µs/req without the bank\'s ÷ create PG µs/req (info)'), 'no engine-only row when the bank was not measured');
});

t.test('with a create window after the money paths, they are judged against the mean of both windows', async (t) => {
  const server: ServerRun[] = [{
    workers: 2, startupMs: 1, create: load(6000, 40, 90), createAfter: { ...load(4000, 60, 110), non2xx: 2, statusCodes: { 200: 39_998, 503: 2 } }, get: null,
    direct: load(2100, 99, 310), refunds: { ...load(1900, 50), prepared },
  }];
  const payouts = { workers: 2, create: null, distinct: { ...load(2500, 80), balances: 200, setupSeconds: 1 } };
  const { targets, flags } = judge({ baselines, server, payouts, webhooks: null, multiGet: null });
  t.match(result(targets, 'create req/s ÷ baseline B rows/s'), { value: 0.6 }, 'the create target stays on the first window');
  t.match(result(targets, 'create p99 (ms)'), { value: 40 });
  t.match(result(targets, 'create req/s after the money paths ÷ before (info)'), { value: 0.67, target: 'reported' });
  t.match(result(targets, 'direct payment req/s ÷ create req/s'), { value: 0.42, pass: true }, '2100 ÷ 5000, where the first window alone gives 0.35');
  t.match(result(targets, 'refund req/s ÷ create req/s'), { value: 0.38, pass: false });
  t.match(result(targets, 'direct payment PG µs/req ÷ create PG µs/req'), { value: 3.1, pass: false }, '310 ÷ 100');
  t.match(result(targets, 'payouts, 200 balances, req/s ÷ create req/s'), { value: 0.5 });
  t.match(flags, [/WORKERS=2 create \(after\): 2 non-2xx/]);
  const rows = figureRows({ baselines, server, webhooks: null, multiGet: null } as unknown as BenchResults);
  t.ok(rows.some((r) => r[0] === 'POST /api/v2/payments again, after the money paths, WORKERS=2' && r[1] === '4000'), 'the second window has its row in the table');
});

t.test('the direct payment\'s Postgres without the sandbox bank\'s backends is reported beside the judged total', async (t) => {
  const server: ServerRun[] = [{ workers: 2, startupMs: 1, create: load(5000, 40, 100), get: null, direct: { ...load(2100, 99, 380), bankPgCpuUsPerReq: 95 } }];
  const { targets } = judge({ baselines, server, webhooks: null, multiGet: null });
  t.match(result(targets, 'direct payment PG µs/req ÷ create PG µs/req'), { value: 3.8, pass: false }, 'the total is what is judged');
  t.match(result(targets, 'direct payment PG µs/req without the bank\'s ÷ create PG µs/req (info)'), { value: 2.85, target: 'reported', pass: true });
});

t.test('a scenario that did not run, used up its prepared objects or failed requests is flagged', async (t) => {
  const server: ServerRun[] = [{
    workers: 1, startupMs: 1, create: null, get: null,
    refunds: { ...load(2000, 50), ranOut: true, prepared }, captures: { ...load(10, 50), non2xx: 3, statusCodes: { 200: 97, 409: 3 }, prepared },
    failures: ['checkout-pay did not run: no prepared object left for the run'],
  }];
  const { targets, flags } = judge({ baselines, server, webhooks: null, multiGet: null });
  t.notOk(result(targets, 'refund req/s ÷ create req/s'), 'no ratio without the create of the same run');
  t.match(flags, [/WORKERS=1 checkout-pay did not run/, /WORKERS=1 refund: used all 1000 prepared objects/, /WORKERS=1 capture: 3 non-2xx/]);
});

t.test('webhooks: p99 under 100 ms, nothing lost or duplicated', async (t) => {
  const deliveries = {
    perSecond: 990, received: 11_990, expected: 12_000, duplicates: 2, signatureFailures: 0, malformed: 0,
    p50: 20, p99: 120, max: 300, expiryLagP99: 50, drainMs: 100, complete: false,
  };
  const phase = load(1000, 50);
  const webhooks = { workers: 2, rate: 1000, pacer: 'steady', createRatio: 0.9, totalCreateRatio: 1.1, deliveries, alone: phase, withWebhooks: phase, paced: phase } as unknown as WebhookRun;
  const { targets } = judge({ baselines, server: [], webhooks, multiGet: null });
  t.match(result(targets, 'webhooks: p99 commit → delivery (ms)'), { value: 120, target: '< 100', pass: false });
  t.match(result(targets, 'webhooks: events lost (expected − received)'), { value: 10, target: '= 0', pass: false });
  t.match(result(targets, 'webhooks: duplicate deliveries'), { value: 2, target: '= 0', pass: false });
  t.match(result(targets, 'webhooks: B create req/s with ÷ without'), { target: '≥ 0.85', pass: true });
});

t.test('prepared objects: enough for the rate and the requests in flight, made with bounded concurrency, used once each', async (t) => {
  t.equal(preparedCount({ connections: 100, seconds: 10, warmupSeconds: 2 }, 1000), 12_200);
  t.equal(preparedCount({ connections: 100, seconds: 1, warmupSeconds: 0 }, 10), 400, 'at least 4 per connection');
  let inFlight = 0;
  let most = 0;
  const made = await prepareMany(50, { rate: 1, concurrency: 4, budgetSeconds: 60 }, async (i) => {
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    return `id${i}`;
  });
  t.equal(made.ids.length, 50);
  t.equal(most, 4, 'never more than the concurrency in flight');
  const none = await prepareMany(50, { rate: 1, concurrency: 4, budgetSeconds: 0 }, async (i) => `id${i}`);
  t.equal(none.ids.length, 0, 'nothing is started once the budget is spent');

  const { request, pool, used } = poolRequest(['a', 'b', 'c'], (id, n) => ({ method: 'POST', path: `/x/${id}`, body: String(n) }));
  t.equal(pool.remaining(), 3);
  const paths = [0, 1, 2].map(() => request.setupRequest!({ ...request }, {}).path);
  t.same(paths, ['/x/a', '/x/b', '/x/c']);
  t.equal(used(), 3);
  t.equal(pool.remaining(), 0, 'measure() asks autocannon for no more than what is left');
});

t.test('a run during which the host stole more than 10 % of the CPUs is flagged by name', async (t) => {
  const server: ServerRun[] = [{ workers: 2, startupMs: 1, create: { ...load(5000, 40), stealPct: 9.9 }, get: null, direct: { ...load(2100, 99, 300), stealPct: 12.5 } }];
  const { flags } = judge({ baselines, server, webhooks: null, multiGet: null });
  t.same(flags, ['the host took 12.5% of the CPUs (steal) during "POST /v2/payments (card, automatic capture), WORKERS=2": its figures and ratios are the host\'s, not the server\'s']);
  const rows = figureRows({ baselines, server, webhooks: null, multiGet: null } as unknown as BenchResults);
  t.same(rows.map((r) => r[0]), ['B: pg INSERT autocommit (durable, 64 conns), rows/s', 'POST /api/v2/payments, WORKERS=2', 'POST /v2/payments (card, automatic capture), WORKERS=2'], 'the table names the runs as the flags do, baseline B first without A');
});

t.test('a later WORKERS value\'s creates are judged against baseline B measured just before its server', async (t) => {
  const again = { ...baselines.insert!, rowsPerSecond: 5_000, rows: 50_000 };
  const server: ServerRun[] = [
    { workers: 1, startupMs: 1, create: load(7500, 40), get: null },
    { workers: 2, startupMs: 1, create: load(4000, 40), get: null },
  ];
  const { targets } = judge({ baselines: { ...baselines, insertBefore: { 2: again } }, server, webhooks: null, multiGet: null });
  const ratio = targets.filter((x) => x.check === 'create req/s ÷ baseline B rows/s');
  t.match(ratio, [{ workers: 1, value: 0.75, pass: true }, { workers: 2, value: 0.8, pass: true }], 'W1 on the first B (10,000), W2 on its own (5,000), not 0.4 on the first');
  const rows = figureRows({ baselines: { ...baselines, insertBefore: { 2: again } }, server, webhooks: null, multiGet: null } as unknown as BenchResults);
  t.same(rows.slice(0, 2).map((r) => [r[0], r[1]]), [
    ['B: pg INSERT autocommit (durable, 64 conns), rows/s', '10000'],
    ['B again, just before WORKERS=2: pg INSERT autocommit (durable, 64 conns), rows/s', '5000'],
  ], 'both baselines have their row, in the order measured');
  const { flags } = judge({ baselines: { ...baselines, insertBefore: { 2: { ...again, failures: 3 } } }, server, webhooks: null, multiGet: null });
  t.match(flags, ['baseline B before WORKERS=2: 3 failed inserts']);
});
