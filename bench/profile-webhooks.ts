// CPU profile of the server during the webhook scenario (both phases): starts the server child with
// --cpu-prof, runs the scenario as `npm run bench` does, stops the server gracefully so every thread
// writes its profile, then prints the top self-time entries of each profile.
// CLI: node dist/bench/profile-webhooks.js [profile-dir=/tmp/prof-webhooks]   (env as run.ts)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAll } from './children.js';
import { formatSummary, summarise } from './cpuprofile-top.js';
import { deleteRedisKeys, resolvePostgres, resolveRedis } from './environment.js';
import { stopLoad } from './load.js';
import { stopPaced } from './paced-load.js';
import { runWebhookScenario } from './webhook-scenario.js';

const dir = path.resolve(process.argv[2] ?? '/tmp/prof-webhooks');
const load = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 100),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
};
const runId = `bench_${randomBytes(4).toString('hex')}`;

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  const pg = await resolvePostgres();
  const redis = await resolveRedis();
  const db = `${runId}_prof`;
  const kvPrefix = `bench:${runId}:`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-data-'));
  const guard = setTimeout(() => { stopLoad(); stopPaced(); killAll(); }, (2 * (load.seconds + load.warmupSeconds) + 180) * 1000);
  try {
    const h = await runWebhookScenario({
      workers: Number(process.env.BENCH_WEBHOOK_WORKERS ?? 2), databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load,
      rate: Number(process.env.BENCH_WEBHOOK_RATE ?? 1000), pacer: process.env.BENCH_WEBHOOK_PACER === 'autocannon' ? 'autocannon' : 'steady',
      drainSeconds: 15, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    });
    const d = h.deliveries;
    process.stdout.write(`webhooks (WORKERS=${h.workers}, profiled): B ${h.alone.reqPerSec} → ${h.withWebhooks.reqPerSec} req/s, ` +
      `${d.perSecond} deliveries/s, ${d.received}/${d.expected} received, p50 ${d.p50} ms, p99 ${d.p99} ms, expiry lag p99 ${d.expiryLagP99} ms\n\n`);
  } finally {
    clearTimeout(guard);
    await pg.dropDatabase(db).catch(() => {});
    if (redis.url) await deleteRedisKeys(redis.url, kvPrefix).catch(() => {});
    await pg.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f)).sort();
  if (!files.length) throw new Error(`no .cpuprofile written to ${dir} (did the server exit gracefully?)`);
  for (const f of files) process.stdout.write(formatSummary(summarise(path.join(dir, f), 15)) + '\n\n');
}

// On a signal: stop the load and the children; main's finally then drops the database and keys.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    stopLoad();
    stopPaced();
    killAll();
    setTimeout(() => process.exit(130), 15_000).unref();
  });
}
main().then(() => process.exit(0), (err) => {
  process.stderr.write(`profile-webhooks: ${(err as Error).stack ?? err}\n`);
  killAll();
  process.exit(1);
});
