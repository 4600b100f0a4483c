// CPU profile of the server during the create scenario: starts the server child with
// --cpu-prof, runs POST /api/v2/payments load (same parameters as `npm run bench`), stops the
// server gracefully so every thread writes its profile, then prints the top self-time entries.
// CLI: node dist/bench/profile-create.js [profile-dir=/tmp/prof]   (env BENCH_WORKERS: first value)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAll } from './children.js';
import { formatSummary, summarise } from './cpuprofile-top.js';
import { deleteRedisKeys, resolvePostgres, resolveRedis } from './environment.js';
import { stopLoad } from './load.js';
import { runServerScenarios } from './server-scenarios.js';

const dir = path.resolve(process.argv[2] ?? '/tmp/prof');
const workers = Number((process.env.BENCH_WORKERS ?? '1').split(',')[0]) || 1;
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
  const guard = setTimeout(() => { stopLoad(); killAll(); }, (load.seconds + load.warmupSeconds + 120) * 1000);
  try {
    const run = await runServerScenarios({
      workers, databaseUrl: await pg.createDatabase(db), redisUrl: redis.url, kvPrefix, dataDir, load,
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], createOnly: true,
    });
    const c = run.create;
    process.stdout.write(`create (WORKERS=${workers}, profiled): ${c.reqPerSec} req/s, p50 ${c.p50} ms, p99 ${c.p99} ms, non-2xx ${c.non2xx}\n\n`);
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

// On a signal: stop the load and the server; main's finally then drops the database and keys.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    stopLoad();
    killAll();
    setTimeout(() => process.exit(130), 15_000).unref();
  });
}
main().then(() => process.exit(0), (err) => {
  process.stderr.write(`profile-create: ${(err as Error).stack ?? err}\n`);
  killAll();
  process.exit(1);
});
