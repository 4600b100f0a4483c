// `npm run sim`: the seeded fault simulator (issue 22). With no arguments (or --ci) it runs the
// fixed seeds plus one random seed, 12 s of load each, about a minute and a half in all; `--seed N` replays one seed;
// `--minutes M` runs random seeds back to back for M minutes. Exit 1 when any run finds a violation.
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { grouped, knownDefect, report, summary } from './report.js';
import { runOnce, type RunResult } from './run.js';
import { shrink } from './shrink.js';
import { World } from './world.js';

/** Seeds CI always runs: each found several of issue 22's defect classes on the code before the fixes (sim/README.md). */
export const CI_SEEDS = [2, 3];
/** Seconds of load per seed in the CI budget (CI's whole run must stay under 15 minutes). */
export const CI_SECONDS = 12;

interface Args { seeds: number[]; minutes: number | null; seconds: number; clients: number; faults: boolean; examples: number; shrink: boolean; historyFile: string | null }

function parse(argv: string[]): Args {
  const a: Args = { seeds: [], minutes: null, seconds: CI_SECONDS, clients: 6, faults: true, examples: 1, shrink: false, historyFile: null };
  let secondsSet = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const val = () => {
      const n = Number(argv[++i]);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a number`);
      return n;
    };
    if (flag === '--seed') a.seeds.push(val() >>> 0);
    else if (flag === '--minutes') a.minutes = val();
    else if (flag === '--seconds') { a.seconds = val(); secondsSet = true; }
    else if (flag === '--clients') a.clients = Math.max(1, Math.floor(val()));
    else if (flag === '--examples') a.examples = Math.max(1, Math.floor(val()));
    else if (flag === '--no-faults') a.faults = false;
    else if (flag === '--shrink') a.shrink = true;
    else if (flag === '--history') a.historyFile = argv[++i] ?? null;
    else if (flag === '--ci') { /* the default */ }
    else throw new Error(`unknown argument ${flag} (--seed N, --minutes M, --seconds S, --clients C, --examples K, --no-faults, --shrink, --history FILE, --ci)`);
  }
  if (a.minutes !== null && !secondsSet) a.seconds = 60;
  return a;
}

function missing(): string | null {
  if (!process.env.DATABASE_URL) return 'DATABASE_URL is not set (the simulator needs a real Postgres to create its database on)';
  const r = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (r.error || r.status !== 0) return 'redis-server is not on PATH (the simulator starts its own on a free port)';
  return null;
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  const why = missing();
  if (why) {
    console.log(`sim: skipped: ${why}`);
    return 0;
  }
  const log = (line: string) => console.log(line);
  const results: RunResult[] = [];
  const one = async (seed: number) => {
    log(`sim: seed ${seed}, ${args.clients} clients, ${args.seconds} s of load${args.faults ? ' and faults' : ''}`);
    const r = await runOnce({ seed, seconds: args.seconds, clients: args.clients, faults: args.faults, pgUrl: process.env.DATABASE_URL!, log });
    results.push(r);
    // One JSON line per run: its ops with every try and answer, its faults and its violations.
    if (args.historyFile) {
      appendFileSync(args.historyFile, `${JSON.stringify({
        seed: r.seed, clients: r.clients, seconds: r.seconds, t0: r.history.t0, ops: r.history.ops, faults: r.history.faults,
        violations: r.violations.map((v) => ({ check: v.check, cls: v.cls, op: v.op?.id ?? null, detail: v.detail, rows: v.rows })),
      })}\n`);
    }
    for (const line of report(r, args.examples)) log(line);
  };
  if (args.minutes !== null) {
    const end = Date.now() + args.minutes * 60_000;
    let seed = args.seeds[0] ?? randomInt(1, 2 ** 31);
    while (Date.now() < end) await one(seed++);
  } else {
    for (const seed of args.seeds.length ? args.seeds : [...CI_SEEDS, randomInt(1, 2 ** 31)]) await one(seed);
  }
  if (results.length > 1) {
    const ops = results.reduce((n, r) => n + r.history.ops.length, 0);
    const reqs = results.reduce((n, r) => n + r.history.exchangeCount, 0);
    const faults = new Map<string, number>();
    for (const r of results) for (const [k, n] of r.faults) faults.set(k, (faults.get(k) ?? 0) + n);
    log(`sim: ${results.length} runs, ${ops} ops, ${reqs} requests, faults ${[...faults].map(([k, n]) => `${k}×${n}`).join(' ')}`);
    for (const r of results) log(`  ${summary(r)}`);
    for (const [cls, vs] of grouped(results.flatMap((r) => r.violations))) log(`  ${vs.length}× ${knownDefect(cls)}${cls}`);
  }
  const failed = results.filter((r) => r.violations.length);
  const known = [...new Set(results.flatMap((r) => r.violations.map((v) => knownDefect(v.cls).trim())).filter(Boolean))].sort();
  if (known.length) log(`sim: issue 22's known lies found: ${known.join(' ')}`);
  if (failed.length && args.shrink) {
    const found = await shrink(failed[0], { faults: args.faults, pgUrl: process.env.DATABASE_URL!, log });
    if (found) {
      const { smallest: r, cls } = found;
      log(`sim: smallest run showing "${cls}": seed ${r.seed}, ${r.clients} clients, ${r.history.ops.length} ops`);
      for (const line of report({ ...r, violations: r.violations.filter((v) => v.cls === cls) }, 1)) log(line);
    }
  }
  if (failed.length) log(`sim: FAILED: seeds ${failed.map((r) => r.seed).join(', ')} (replay one with npm run sim -- --seed N)`);
  else log('sim: every answer was true of the final state');
  return failed.length ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`sim: ${signal}: stopping the servers and Redis, dropping the database`);
    void Promise.all([...World.open].map((w) => w.close())).finally(() => process.exit(130));
  });
}

main().then((code) => process.exit(code), (err) => {
  console.error(`sim: crashed: ${(err as Error).stack ?? err}`);
  process.exit(2);
});
