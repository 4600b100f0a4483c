// The suite's runner (`npm test`): every compiled test file in its own plain `node` process, a few
// at once, the longest kinds first. Each file is a tap test (the library prints TAP and sets the exit
// code); this replaces only tap's runner, which preloads its process-info loader hooks into every
// test process and, through NODE_OPTIONS, into every process a test spawns (the crash and cluster
// tests' servers, the CLI's runs). With coverage off nothing reads what they record, and they cost
// about a second and a half of CPU per process (docs/decisions.md, "The suite runs on its own runner").
// `npx tap <file>` still runs one file with tap's runner and its options (--grep, reporters).
//
// The unit files (those in a `unit` folder) run together in one process (group.ts): each starts
// no server, and starting a process for it cost more than running it.
//
//   node dist/test/runner.js [files…]     (no files: every dist/test/**/*.test.js)
//   TEST_JOBS=n   files at once (default: the cores + 2, at most 4; the crash and cluster files mostly wait)
//   TAP_TIMEOUT=s each file's deadline in seconds (default 600); the file reports its open handles
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST_TEST = path.dirname(fileURLToPath(import.meta.url));
const GROUP = path.join(DIST_TEST, 'group.js');
const ROOT = path.resolve(DIST_TEST, '../..');
const RESULTS = path.join(ROOT, '.tap/test-results');
const TIMEOUT_S = Number(process.env.TAP_TIMEOUT) || 600;
// At most 4 by default: that is what was measured, and more files at once open more Postgres
// connections than a default server allows (100) once several cluster files run together.
const JOBS = Math.max(1, Number(process.env.TEST_JOBS) || Math.min(os.availableParallelism() + 2, 4));

/** What one process runs: a file, or the unit files together. */
export interface Job { name: string; files: string[] }

interface Outcome { job: Job; code: number | null; signal: string | null; ms: number; output: string; timedOut: boolean }

function listTests(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'fixtures') out.push(...listTests(p)); } else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

/** 0 browser, 1 several processes, 2 other integration, 3 unit. */
function kind(f: string): number {
  if (f.includes(`${path.sep}e2e${path.sep}`)) return 0;
  if (/(crash|cluster|restart|root-folder|cli)[^/]*\.test\.js$/.test(f)) return 1;
  return f.includes(`${path.sep}integration${path.sep}`) ? 2 : 3;
}

/**
 * The order files start in: the long ones first, so the last to start are short and the cores stay
 * busy to the end. Browser files (CPU-bound) alternate with the files that start several server
 * processes (mostly waiting on them), so the ones running together do not all want the CPU at
 * once; then the other integration files, then the unit files; by name within a kind.
 */
export function startOrder(files: string[]): string[] {
  const byName = [...files].sort((a, b) => a.localeCompare(b));
  const [browser, processes, integration, unit] = [0, 1, 2, 3].map((k) => byName.filter((f) => kind(f) === k));
  const alternated: string[] = [];
  for (let i = 0; i < Math.max(browser.length, processes.length); i++) alternated.push(...[browser[i], processes[i]].filter(Boolean));
  return [...alternated, ...integration, ...unit];
}

/**
 * Whether a file may run in a group (test/group.ts): a unit file, or an integration file that
 * starts no process (not a browser, crash, cluster or CLI file, nor one that imports what starts
 * servers or other programs as processes: they would live until the group's end), never skips itself whole
 * (`t.plan(0, …)` would end the group's root), awaits no test at its top level (group.ts waits for
 * a file's top level before its tests run) and does not say `runner: alone` (a file whose tests
 * need a server of their own: they close it, or count what every test on it did).
 */
const STARTS_PROCESSES = /helpers\/(child|cluster)\.js'|\/rig\/|'node:child_process'/;

export function groupable(file: string, text: string): boolean {
  if (kind(file) === 3) return file.includes(`${path.sep}unit${path.sep}`);
  return kind(file) === 2 && !STARTS_PROCESSES.test(text) && !/\bt\.plan\(/.test(text) && !/^await t\.test\(/m.test(text) && !/runner: alone\b/.test(text);
}

/**
 * The processes to start, in order (startOrder): the groupable unit files as one job and the
 * groupable integration files as `lanes` jobs (by name, in turn), all started before the
 * integration files that run alone (each group is longer than any of them); every other file alone.
 */
export function jobs(files: string[], root = ROOT, lanes = JOBS, read = (f: string) => readFileSync(f, 'utf8')): Job[] {
  const ordered = startOrder(files);
  const alone = (f: string): Job => ({ name: path.relative(root, f), files: [f] });
  const inGroup = new Set(ordered.filter((f) => groupable(f, read(f))));
  const units = ordered.filter((f) => inGroup.has(f) && kind(f) === 3);
  const integration = ordered.filter((f) => inGroup.has(f) && kind(f) === 2);
  const named = (fs: string[], label: string): Job => ({ name: `${path.relative(root, path.dirname(fs[0]))}${label} (${fs.length} files in one process)`, files: fs });
  const n = Math.min(lanes, Math.floor(integration.length / 2));
  const groups = [
    ...Array.from({ length: n }, (_, i) => named(integration.filter((_, j) => j % n === i), n > 1 ? `, group ${i + 1} of ${n}` : '')),
    ...(units.length > 1 ? [named(units, '')] : []),
  ];
  const grouped = new Set(groups.flatMap((g) => g.files));
  const single = ordered.filter((f) => !grouped.has(f)).map(alone);
  const at = single.findIndex((j) => kind(j.files[0]) >= 2);
  single.splice(at < 0 ? single.length : at, 0, ...groups);
  return single;
}

/** The root's counts line of a tap file (`# { total: 12, pass: 11, skip: 1 }`). */
export function counts(output: string): Record<string, number> {
  const line = output.match(/^# \{ (total: .*) \}$/m)?.[1] ?? '';
  return Object.fromEntries([...line.matchAll(/(\w+): (\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

/**
 * Why a file or its tests were skipped, as tap printed it: a whole file's `1..0 # reason` (from
 * `t.plan(0, reason)`), or a test's `# SKIP reason`.
 */
export function skipReasons(output: string): string[] {
  const whole = [...output.matchAll(/^\s*1\.\.0 # (.*)$/gm)].map((m) => m[1]);
  const tests = [...output.matchAll(/# SKIP\b:? ?(.*)$/gim)].map((m) => m[1]);
  return [...new Set([...whole, ...tests].map((r) => r.trim()).filter(Boolean))];
}

const children = new Set<ChildProcess>();
function killAll(): void {
  for (const c of children) { try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* already gone */ } }
}

function runJob(job: Job): Promise<Outcome> {
  const started = Date.now();
  // Its own process group, so a timeout or an interrupted run takes the servers it started with it.
  const child = spawn(process.execPath, job.files.length === 1 ? job.files : [GROUP, ...job.files], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TAP_TIMEOUT: String(TIMEOUT_S) },
  });
  children.add(child);
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (d: Buffer) => chunks.push(d));
  child.stderr!.on('data', (d: Buffer) => chunks.push(d));
  let timedOut = false;
  // tap ends the file itself at TAP_TIMEOUT and lists what was still open; this is the backstop.
  const timer = setTimeout(() => { timedOut = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, (TIMEOUT_S + 30) * 1000);
  return new Promise((resolve) => {
    // Whatever the file left behind in its group (a server it spawned and did not stop) goes with
    // it: else a leftover holding the output pipe would keep the file open until the deadline.
    child.on('exit', () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* none left */ } });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ job, code, signal, ms: Date.now() - started, output: Buffer.concat(chunks).toString(), timedOut });
    });
  });
}

function save(o: Outcome): void {
  const to = path.join(RESULTS, `${o.job.name.replace(/ \(.*$/, '').replace(/, /g, '-').replace(/ /g, '-')}.tap`);
  mkdirSync(path.dirname(to), { recursive: true });
  writeFileSync(to, o.output);
}

async function main(): Promise<number> {
  const given = process.argv.slice(2);
  const files = given.length ? given.map((f) => path.resolve(f)) : listTests(DIST_TEST);
  const all = jobs(files);
  const started = Date.now();
  const queue = [...all];
  const failed: Outcome[] = [];
  const totals: Record<string, number> = {};
  const skipped: string[] = [];
  console.log(`# ${files.length} files in ${all.length} processes, ${Math.min(JOBS, all.length)} at once, ${TIMEOUT_S} s each at most`);
  const lane = async (): Promise<void> => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const o = await runJob(job);
      save(o);
      const c = counts(o.output);
      for (const [k, v] of Object.entries(c)) totals[k] = (totals[k] ?? 0) + v;
      const ok = o.code === 0 && !o.timedOut;
      const name = job.name;
      const reasons = skipReasons(o.output);
      if (reasons.length) skipped.push(`${name}: ${reasons.join('; ')}`);
      const what = c.total === 0 && reasons.length ? 'skipped' : `${c.pass ?? 0} pass${c.fail ? `, ${c.fail} fail` : ''}${c.skip ? `, ${c.skip} skip` : ''}`;
      console.log(`${ok ? 'ok    ' : 'FAILED'} ${(o.ms / 1000).toFixed(1).padStart(6)} s  ${name}  (${what})`);
      if (!ok) {
        failed.push(o);
        const why = o.timedOut ? `killed after ${TIMEOUT_S + 30} s` : o.signal ? `ended by ${o.signal}` : `exit code ${o.code}`;
        console.log(`# ---- ${name} (${why}): its whole output ----\n${o.output}\n# ---- end of ${name} ----`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, all.length) }, lane));
  const took = ((Date.now() - started) / 1000).toFixed(0);
  if (skipped.length) console.log(`# skips, with their reasons:\n${skipped.map((s) => `#   ${s}`).join('\n')}`);
  console.log(`# ${all.length - failed.length} of ${all.length} processes passed in ${took} s; asserts: ${JSON.stringify(totals)}`);
  if (failed.length) console.log(`# failed:\n${failed.map((o) => `#   ${o.job.name}`).join('\n')}`);
  return failed.length ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => { killAll(); process.exit(130); });
  process.exitCode = await main();
}
