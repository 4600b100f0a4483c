// CPU profile of the server under one benchmark scenario: starts the server child with --cpu-prof,
// runs the scenario as `npm run bench` does, stops the server gracefully so every thread writes its
// profile, then prints the top self-time entries of each profile.
// CLI: node dist/bench/profile.js create|direct|checkout-pay|refunds|captures|get|get2|webhooks [profile-dir=/tmp/prof-<scenario>]
//      (env as run.ts, BENCH_PROFILE=0 to run unprofiled; for create, direct, checkout-pay and get, BENCH_WORKERS'
//      first value is the worker count). direct and checkout-pay profile the card payment path: the gateway's
//      direct payment, and the hosted checkout's pay on payments that a second, unprofiled server process
//      on the same database prepared (and stopped) before the load, so the profile holds the load only;
//      refunds and captures likewise, on payments paid (or authorized) by that second process.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAll } from './children.js';
import { countPostgres } from './cpu.js';
import { formatSummary, summarise } from './cpuprofile-top.js';
import { deleteRedisKeys, resolvePostgres, resolveRedis } from './environment.js';
import { stopLoad, type LoadFigures } from './load.js';
import { stopPaced } from './paced-load.js';
import { prepareParams } from './prepared.js';
import { MONEY_FIELDS, runMultiProcessGet, runServerScenarios, startServer } from './server-scenarios.js';
import { runWebhookScenario } from './webhook-scenario.js';

const SCENARIOS = ['create', 'direct', 'checkout-pay', 'refunds', 'captures', 'get', 'get2', 'webhooks'];
const scenario = process.argv[2] ?? '';
if (!SCENARIOS.includes(scenario)) {
  process.stderr.write(`usage: node dist/bench/profile.js ${SCENARIOS.join('|')} [profile-dir]\n`);
  process.exit(2);
}
const dir = path.resolve(process.argv[3] ?? `/tmp/prof-${scenario}`);
const load = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 100),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
};
// BENCH_PROFILE=0: the same run without the profiler (its CPU µs/req without the profiler's overhead).
const profiling = process.env.BENCH_PROFILE !== '0';
const runId = `bench_${randomBytes(4).toString('hex')}`;
const stopAll = () => { stopLoad(); stopPaced(); killAll(); };

type Common = { databaseUrl: string; redisUrl: string | null; kvPrefix: string; dataDir: string; nodeArgs: string[] };

const describe = (what: string, r: LoadFigures): string =>
  `${what}: ${r.reqPerSec} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, ` +
  `CPU ${r.cpuUsPerReq} µs/req (main thread ${r.mainCpuUsPerReq ?? '-'}; Postgres ${r.pgCpuUsPerReq ?? '-'}, machine ${r.boxCpuUsPerReq ?? '-'})`;

async function runScenario(c: Common): Promise<string> {
  if (scenario === 'create') {
    const workers = Number((process.env.BENCH_WORKERS ?? '1').split(',')[0]) || 1;
    const r = (await runServerScenarios({ ...c, workers, load, createOnly: true })).create!;
    return describe(`create (WORKERS=${workers}, profiled)`, r);
  }
  if (scenario === 'direct') {
    const workers = Number((process.env.BENCH_WORKERS ?? '1').split(',')[0]) || 1;
    const r = (await runServerScenarios({ ...c, workers, load, scenarios: { create: false, get: false, direct: true } })).direct!;
    return describe(`direct card payment (WORKERS=${workers}, profiled)`, r);
  }
  if (scenario === 'checkout-pay' || scenario === 'refunds' || scenario === 'captures') {
    const workers = Number((process.env.BENCH_WORKERS ?? '1').split(',')[0]) || 1;
    const { nodeArgs: _profiled, ...plain } = c;
    const helper = await startServer({ ...plain, workers });
    let stopped = false;
    const done = async () => { if (!stopped) { stopped = true; await helper.server.stop(); } };
    try {
      const r = (await runServerScenarios({
        ...c, workers, load, scenarios: { create: false, get: false, [scenario]: true }, prepare: prepareParams(),
        prepareOn: { url: helper.url, adminToken: helper.adminToken, done }, log: (l) => process.stderr.write(`${l}\n`),
      }))[MONEY_FIELDS[scenario]]!;
      return describe(`${scenario} (WORKERS=${workers}, profiled; ${r.prepared.prepared} payments prepared by another process, ${r.prepared.used} used)`, r);
    } finally {
      await done();
    }
  }
  if (scenario === 'get') {
    const workers = Number((process.env.BENCH_WORKERS ?? '1').split(',')[0]) || 1;
    const r = (await runServerScenarios({ ...c, workers, load, scenarios: { create: false, get: true } })).get!;
    return describe(`get (WORKERS=${workers}, profiled)`, r);
  }
  if (scenario === 'get2') {
    const r = (await runMultiProcessGet({ ...c, workers: Number(process.env.BENCH_GET2_WORKERS ?? 1), load })).get;
    return describe('get2 (2 processes, profiled)', r);
  }
  const h = await runWebhookScenario({
    ...c, workers: Number(process.env.BENCH_WEBHOOK_WORKERS ?? 2), load, drainSeconds: 15,
    rate: Number(process.env.BENCH_WEBHOOK_RATE ?? 1000), pacer: process.env.BENCH_WEBHOOK_PACER === 'autocannon' ? 'autocannon' : 'steady',
  });
  const d = h.deliveries;
  return `webhooks (WORKERS=${h.workers}, profiled): B ${h.alone.reqPerSec} → ${h.withWebhooks.reqPerSec} req/s, ` +
    `${d.perSecond} deliveries/s, ${d.received}/${d.expected} received, p50 ${d.p50} ms, p99 ${d.p99} ms, expiry lag p99 ${d.expiryLagP99} ms`;
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  const pg = await resolvePostgres();
  countPostgres(pg.serverPid);
  const redis = await resolveRedis();
  const db = `${runId}_prof`;
  const kvPrefix = `bench:${runId}:`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-data-'));
  const guard = setTimeout(stopAll, (2 * (load.seconds + load.warmupSeconds) + prepareParams().budgetSeconds + 180) * 1000);
  try {
    const line = await runScenario({ databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, nodeArgs: profiling ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [] });
    process.stdout.write(`${line}\n\n`);
  } finally {
    clearTimeout(guard);
    await pg.dropDatabase(db).catch(() => {});
    if (redis.url) await deleteRedisKeys(redis.url, kvPrefix).catch(() => {});
    await pg.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (!profiling) return;
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f)).sort();
  if (!files.length) throw new Error(`no .cpuprofile written to ${dir} (did the server exit gracefully?)`);
  for (const f of files) process.stdout.write(formatSummary(summarise(path.join(dir, f), 15)) + '\n\n');
}

// On a signal: stop the load and the children; main's finally then drops the database and keys.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => { stopAll(); setTimeout(() => process.exit(130), 15_000).unref(); });
}
main().then(() => process.exit(0), (err) => {
  process.stderr.write(`profile: ${(err as Error).stack ?? err}\n`);
  killAll();
  process.exit(1);
});
