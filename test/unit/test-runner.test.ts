// The suite's runner (test/runner.ts): its exit code is what CI trusts, so a failing file must fail
// the run and print its output, a skip's reason must be shown, and a file that never ends must be
// ended at its deadline with the processes it left behind.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { counts, groupable, jobs, skipReasons, startOrder } from '../runner.js';

const RUNNER = fileURLToPath(new URL('../runner.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/runner/${name}.test.js`, import.meta.url));
const units = [fixture('unit/first'), fixture('unit/second')];

function run(files: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [RUNNER, ...files], { env: { ...process.env, TEST_JOBS: '2', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout + stderr }));
  });
}

t.test('a whole file skipped: exit 0, shown as skipped, with its reason', async (t) => {
  const r = await run([fixture('skipped')]);
  t.equal(r.code, 0, r.out);
  t.match(r.out, /^ok +[\d.]+ s +dist\/test\/fixtures\/runner\/skipped\.test\.js +\(skipped\)$/m);
  t.match(r.out, /skipped\.test\.js: needs a server this machine lacks/);
});

t.test('every file passing: exit 0, the counts added up, the skip and its reason listed', async (t) => {
  const r = await run([fixture('passes')]);
  t.equal(r.code, 0, r.out);
  t.match(r.out, /^ok +[\d.]+ s +dist\/test\/fixtures\/runner\/passes\.test\.js +\(2 pass, 1 skip\)$/m);
  t.match(r.out, /needs something absent/);
  t.match(r.out, /1 of 1 processes passed/);
});

t.test('one failing file fails the run and its whole output is printed', async (t) => {
  const r = await run([fixture('passes'), fixture('fails')]);
  t.equal(r.code, 1);
  t.match(r.out, /^FAILED .*fails\.test\.js +\(1 pass, 1 fail\)$/m);
  t.match(r.out, /not ok \d+ - arithmetic the runner must report as failed/);
  t.match(r.out, /1 of 2 processes passed/);
  t.match(r.out, /# failed:\n# +dist\/test\/fixtures\/runner\/fails\.test\.js/);
});

t.test('a file that never ends is ended at its deadline, and the process it left behind with it', { skip: existsSync('/proc/self/stat') ? false : 'needs /proc (Linux)' }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pids = path.join(dir, 'pids');
  const r = await run([fixture('hangs')], { TAP_TIMEOUT: '2', RUNNER_FIXTURE_PIDS: pids });
  t.equal(r.code, 1);
  t.match(r.out, /^FAILED .*hangs\.test\.js/m);
  t.match(r.out, /timeout/);
  const leftover = Number(readFileSync(pids, 'utf8'));
  t.ok(leftover > 0);
  // Killed means gone or a zombie: its parent died with the file, and whoever adopted it reaps it when it will.
  let state = 'gone';
  try { state = readFileSync(`/proc/${leftover}/stat`, 'utf8').split(') ')[1][0]; } catch { /* gone */ }
  t.ok(state === 'gone' || state === 'Z', `the leftover child was killed with its file (state ${state})`);
});

t.test('counts and skip reasons are read from tap\'s own lines', async (t) => {
  t.same(counts('ok 1 - x\n# { total: 12, pass: 10, fail: 1, skip: 1 }\n# time=3ms\n'), { total: 12, pass: 10, fail: 1, skip: 1 });
  t.same(counts('no summary'), {});
  t.same(skipReasons('ok 2 - y # SKIP needs DATABASE_URL\nok 3 - z # SKIP\n    ok 1 - w # skip needs a real Redis\n'), ['needs DATABASE_URL', 'needs a real Redis']);
  t.same(skipReasons('TAP version 14\n1..0 # skipped: needs DATABASE_URL (CI sets it)\n# { total: 0, pass: 0 }\n'), ['skipped: needs DATABASE_URL (CI sets it)'], 'a whole file skipped by t.plan(0, reason)');
  t.same(skipReasons('1..3\nok 1 - a\n'), []);
});

t.test('browser files alternate with those of several processes, then the other integration files, then the unit files', async (t) => {
  const files = ['unit/a', 'integration/b', 'integration/x-crash', 'e2e/c', 'e2e/d', 'e2e/e', 'integration/y-cluster'].map((f) => `dist/test/${f}.test.js`);
  t.same(startOrder(files).map((f) => f.slice('dist/test/'.length, -'.test.js'.length)),
    ['e2e/c', 'integration/x-crash', 'e2e/d', 'integration/y-cluster', 'e2e/e', 'integration/b', 'unit/a']);
});

t.test('the unit files run in one process, before the other integration files', async (t) => {
  const files = ['unit/a', 'integration/b', 'integration/x-crash', 'e2e/c', 'unit/z'].map((f) => `/r/dist/test/${f}.test.js`);
  const read = () => '';
  t.same(jobs(files, '/r', 4, read).map((j) => j.name), ['dist/test/e2e/c.test.js', 'dist/test/integration/x-crash.test.js', 'dist/test/unit (2 files in one process)', 'dist/test/integration/b.test.js']);
  t.same(jobs(files, '/r', 4, read)[2].files, ['/r/dist/test/unit/a.test.js', '/r/dist/test/unit/z.test.js']);
  t.same(jobs(['/r/dist/test/unit/a.test.js'], '/r', 4, read).map((j) => j.name), ['dist/test/unit/a.test.js'], 'one unit file runs alone');
  const r = await run(units);
  t.equal(r.code, 0, r.out);
  t.match(r.out, /^ok +[\d.]+ s +dist\/test\/fixtures\/runner\/unit \(2 files in one process\) +\(7 pass\)$/m);
  t.match(r.out, /1 of 1 processes passed/);
});

t.test('a failure in a group fails the run, and its output names the file', async (t) => {
  const r = await run(units, { RUNNER_FIXTURE_FAIL: '1' });
  t.equal(r.code, 1);
  t.match(r.out, /^FAILED .*unit \(2 files in one process\) +\(6 pass, 1 fail\)$/m);
  t.match(r.out, /not ok \d+ - arithmetic a failing group must report/);
  t.match(r.out, /fileName: dist\/test\/fixtures\/runner\/unit\/second\.test\.js/);
});

t.test('integration files that start no process share groups, as many as the lanes; the others run alone', async (t) => {
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
  const files = names.map((n) => `/r/dist/test/integration/${n}.test.js`);
  const texts: Record<string, string> = {
    g: "import { startCluster } from '../helpers/cluster.js';",
    h: "if (!PG_URL) {\n    t.plan(0, 'skipped: needs DATABASE_URL');\n}",
    i: "// runner: alone (it counts every request the server saw)",
    f: "import { spawn } from 'node:child_process';",
  };
  const read = (f: string) => texts[path.basename(f, '.test.js')] ?? "const s = await startTestServer(t);\nt.test('x', async () => {});";
  const all = jobs(files, '/r', 2, read);
  t.same(all.map((j) => j.name), [
    'dist/test/integration, group 1 of 2 (3 files in one process)', 'dist/test/integration, group 2 of 2 (2 files in one process)',
    'dist/test/integration/f.test.js', 'dist/test/integration/g.test.js', 'dist/test/integration/h.test.js', 'dist/test/integration/i.test.js',
  ]);
  t.same(all[0].files.map((f) => path.basename(f, '.test.js')), ['a', 'c', 'e'], 'by name, in turn');
  t.notOk(groupable('/r/dist/test/integration/s.test.js', "await t.test('first', async () => {});"), 'a file awaiting a test at its top level runs alone');
  t.notOk(groupable('/r/dist/test/e2e/p-browser.test.js', ''), 'a browser file runs alone');
  t.notOk(groupable('/r/dist/test/integration/x-cluster.test.js', ''), 'a cluster file runs alone');
  t.ok(groupable('/r/dist/test/unit/u.test.js', 'await t.test("x", async () => {})'), 'a unit file is grouped');
});

t.test('a grouped integration file shares the default server with the next; a server of its own settings is closed after it', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL (the fixtures start servers)' }, async (t) => {
  const r = await run([fixture('integration/shares-a'), fixture('integration/shares-b')], { TEST_JOBS: '1' });
  t.equal(r.code, 0, r.out);
  t.match(r.out, /^ok +[\d.]+ s +dist\/test\/fixtures\/runner\/integration \(2 files in one process\)/m);
});
