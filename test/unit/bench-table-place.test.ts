// The benchmark table lives in bench/README.md, where `npm run bench:readme` writes it; the
// top-level README keeps a short summary and the link, and no generated table.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLE_DOC } from '../../bench/render-table.js';
import type { BenchResults } from '../../bench/results.js';

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

t.test('the README summary quotes the table it links (a new table needs a new summary)', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const summary = readme.slice(readme.indexOf('\n## Benchmarks')).split('\n').slice(1).join(' ');
  const bench = readFileSync(path.join(ROOT, TABLE_DOC), 'utf8');
  const table = bench.slice(bench.indexOf('<!-- bench:start -->'), bench.indexOf('<!-- bench:end -->'));
  const date = /run of (\d{4}-\d\d-\d\d)/.exec(summary)?.[1];
  t.ok(date, 'the summary names the run it quotes');
  t.match(table, `_${date}T`, 'the table is of that run');
  const cells = new Set(table.split('\n').flatMap((row) => row.split('|').map((c) => c.trim())));
  const figures = summary.replace(/run of \d{4}-\d\d-\d\d/, '').match(/\d[\d,]*(?= merchant payments\/s| ms\)|\/s)/g) ?? [];
  t.ok(figures.length >= 4, `the summary quotes figures: ${figures.join(' ')}`);
  for (const f of figures) t.ok(cells.has(f.replaceAll(',', '')), `${f} is a figure of the table`);
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

