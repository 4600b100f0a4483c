// The benchmark table lives in bench/README.md, where `npm run bench:readme` writes it; the
// top-level README keeps a short summary and the link, and no generated table.
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLE_DOC } from '../../bench/render-table.js';
import { judge, type BenchResults } from '../../bench/results.js';
import type { ScenarioFigures } from '../../bench/server-scenarios.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RENDER = fileURLToPath(new URL('../../bench/render-table.js', import.meta.url));
const count = (s: string, needle: string) => s.split(needle).length - 1;

t.test('markers in bench/README.md only; the README links it', async (t) => {
  t.equal(TABLE_DOC, 'bench/README.md');
  const bench = readFileSync(path.join(ROOT, TABLE_DOC), 'utf8');
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  t.equal(count(bench, '<!-- bench:start -->'), 1);
  t.equal(count(bench, '<!-- bench:end -->'), 1);
  t.equal(count(readme, '<!-- bench:'), 0, 'no generated table in README.md');
  const section = readme.slice(readme.indexOf('\n## Benchmarks'));
  t.match(section, '](bench/README.md)', 'the README links the results');
  t.ok(section.trim().split('\n').length <= 5, 'a short summary');
});

/** The README's summary names the run of the table in bench/README.md and quotes only its figures. */
function summaryQuotesTable(t: Test, readme: string, bench: string): void {
  const summary = readme.slice(readme.indexOf('\n## Benchmarks')).split('\n').slice(1).join(' ');
  const table = bench.slice(bench.indexOf('<!-- bench:start -->'), bench.indexOf('<!-- bench:end -->'));
  const date = /run of (\d{4}-\d\d-\d\d)/.exec(summary)?.[1];
  t.ok(date, 'the summary names the run it quotes');
  t.match(table, `_${date}T`, 'the table is of that run');
  const cells = new Set(table.split('\n').flatMap((row) => row.split('|').map((c) => c.trim())));
  const figures = summary.replace(/run of \d{4}-\d\d-\d\d/, '').match(/\d[\d,]*(?= merchant payments\/s| ms\)|\/s)/g) ?? [];
  t.ok(figures.length >= 4, `the summary quotes figures: ${figures.join(' ')}`);
  for (const f of figures) t.ok(cells.has(f.replaceAll(',', '')), `${f} is a figure of the table`);
}

t.test('the README summary quotes the table it links (a new table needs a new summary)', async (t) => {
  summaryQuotesTable(t, readFileSync(path.join(ROOT, 'README.md'), 'utf8'), readFileSync(path.join(ROOT, TABLE_DOC), 'utf8'));
});

/** A results document of a run in which nothing was measured: the table has its headers only. */
const emptyResults = (): BenchResults => ({
  schema: 1, date: '2026-01-01T00:00:00.000Z',
  machine: { cpus: 2, model: 'test', node: 'v20', platform: 'linux', totalMemMb: 1 },
  parameters: { connections: 1, seconds: 1, warmupSeconds: 0, insertConnections: 1, insertTable: 'durable', workers: [] },
  environment: { postgres: { source: 'test', version: '0', settings: {} }, redis: { source: 'none' }, uwsNative: true, backgroundCpuPct: {} },
  baselines: { uws: null, insert: null }, server: [], targets: [], flags: [], pass: true,
});

const load = (reqPerSec: number, p99: number): ScenarioFigures => ({
  reqPerSec, p50: 1, p99, requests: reqPerSec * 10, non2xx: 0, errors: 0, timeouts: 0, statusCodes: { 200: reqPerSec * 10 },
  cpuUsPerReq: 100, pgCpuUsPerReq: 50, boxCpuUsPerReq: 300, peakRssMb: 200,
});

/** A package root in a temporary directory: bench/README.md and README.md copied, a results file. */
function scratchRoot(t: Test, results: BenchResults): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-bench-doc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'bench'));
  copyFileSync(path.join(ROOT, TABLE_DOC), path.join(dir, TABLE_DOC));
  copyFileSync(path.join(ROOT, 'README.md'), path.join(dir, 'README.md'));
  const file = path.join(dir, 'results.json');
  writeFileSync(file, JSON.stringify(results));
  return { dir, file };
}

t.test('bench:readme rewrites the README summary from the same run, as the check above reads it', async (t) => {
  const prepared = { wanted: 100, prepared: 100, seconds: 1, used: 50 };
  const partial = {
    baselines: { uws: load(50_000, 3), insert: { table: 'durable' as const, connections: 64, seconds: 10, rows: 120_000, failures: 0, rowsPerSecond: 12_000, p50: 3, p99: 11 } },
    server: [{
      workers: 2, startupMs: 1, create: load(5_321, 40), checkout: null, direct: load(2_345, 90), get: load(16_789, 14),
      checkoutPay: { ...load(2_100, 95), prepared }, refunds: { ...load(2_600, 60), prepared }, captures: { ...load(1_900, 70), prepared },
    }],
    multiGet: { processes: 2, workers: 1, get: load(23_456, 11) },
    payouts: { workers: 2, create: load(433, 443), distinct: { ...load(2_200, 80), balances: 200, setupSeconds: 3 } },
  };
  const { targets, flags } = judge(partial);
  const results: BenchResults = { ...emptyResults(), date: '2026-02-03T04:05:06.000Z', ...partial, targets, flags, pass: false };
  const { dir, file } = scratchRoot(t, results);
  const out = execFileSync(process.execPath, [RENDER, file], { cwd: dir, encoding: 'utf8' });
  t.match(out, 'updated the summary of README.md');
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Benchmarks'));
  t.ok(section.trim().split('\n').length <= 5, 'a short summary');
  t.match(section, '](bench/README.md)', 'the summary links the table');
  t.match(section, 'run of 2026-02-03');
  t.match(section, '5,321 merchant payments/s (p99 40 ms)');
  t.match(section, '2,345/s card payments (p99 90 ms)');
  const judged = targets.filter((x) => x.target !== 'reported');
  t.ok(judged.length < targets.length, 'the run has rows reported for information');
  t.match(section, `${judged.filter((x) => x.pass).length} of ${judged.length} targets pass`, 'information rows are not counted as targets');
  t.equal(readme.slice(0, readme.indexOf('\n## Benchmarks')), readFileSync(path.join(ROOT, 'README.md'), 'utf8').slice(0, readme.indexOf('\n## Benchmarks')), 'the rest of the README as it was');
  summaryQuotesTable(t, readme, readFileSync(path.join(dir, TABLE_DOC), 'utf8'));
});

t.test('a run the summary cannot quote changes neither document', async (t) => {
  const { dir, file } = scratchRoot(t, emptyResults());
  const before = [readFileSync(path.join(dir, 'README.md'), 'utf8'), readFileSync(path.join(dir, TABLE_DOC), 'utf8')];
  t.throws(() => execFileSync(process.execPath, [RENDER, file], { cwd: dir, encoding: 'utf8', stdio: 'pipe' }), 'render-table fails');
  t.same([readFileSync(path.join(dir, 'README.md'), 'utf8'), readFileSync(path.join(dir, TABLE_DOC), 'utf8')], before);
});

t.test('bench:readme writes into bench/README.md by default', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-bench-doc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A results document of a run in which nothing was measured: the table has its headers only.
  const results: BenchResults = {
    schema: 1, date: '2026-01-01T00:00:00.000Z',
    machine: { cpus: 2, model: 'test', node: 'v20', platform: 'linux', totalMemMb: 1 },
    parameters: { connections: 1, seconds: 1, warmupSeconds: 0, insertConnections: 1, insertTable: 'durable', workers: [] },
    environment: { postgres: { source: 'test', version: '0', settings: {} }, redis: { source: 'none' }, uwsNative: true, backgroundCpuPct: {} },
    baselines: { uws: null, insert: null }, server: [], targets: [], flags: [], pass: true,
  };
  const file = path.join(dir, 'results.json');
  const doc = path.join(dir, 'bench', 'README.md');
  mkdirSync(path.dirname(doc));
  copyFileSync(path.join(ROOT, TABLE_DOC), doc);
  writeFileSync(file, JSON.stringify(results));
  let out = '';
  try {
    out = execFileSync(process.execPath, [RENDER, file], { cwd: dir, encoding: 'utf8' });
  } catch (err) {
    t.fail(`render-table failed: ${(err as { stderr?: string }).stderr ?? err}`);
    return;
  }
  t.match(out, `updated ${TABLE_DOC}`);
  const written = readFileSync(doc, 'utf8');
  t.match(written, '_Measured by `npm run bench` (2026-01-01T00:00:00.000Z)', 'the table of that run, between the markers');
  t.equal(count(written, '<!-- bench:start -->'), 1);
});

