// The top-level README's three-line summary of the results table, written by `npm run bench:readme`
// with the table itself, so that the two always quote the same run. test/unit/bench-table-place.test.ts
// checks what this writes: the run's date ("run of YYYY-MM-DD") and figures that are cells of the table.
import type { LoadFigures } from './load.js';
import type { BenchResults } from './results.js';

export const SUMMARY_HEADING = '## Benchmarks';
export const SUMMARY_LINK = 'The scenarios, `npm run bench`, the generated table, how to read it and the scale-out runs: [bench/README.md](bench/README.md).';
/** The test reads at least this many figures in the summary. */
export const MIN_FIGURES = 4;

const n = (v: number): string => Math.round(v).toLocaleString('en-US');
const rateOf = (what: string, f: LoadFigures | null | undefined): string | null => (f ? `${n(f.reqPerSec)}/s ${what} (p99 ${n(f.p99)} ms)` : null);
const list = (xs: string[]): string => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** The summary's three lines for a results document; throws when it has too few figures to quote. */
export function summaryLines(r: BenchResults): string[] {
  // The largest WORKERS value: issue 25's targets are judged there.
  const s = [...r.server].sort((a, b) => b.workers - a.workers)[0];
  const money = [
    rateOf('card payments', s?.direct), rateOf('hosted checkout payments', s?.checkoutPay), rateOf('partial refunds', s?.refunds),
    rateOf('captures', s?.captures), rateOf('payouts from distinct balances', r.payouts?.distinct),
  ].filter((x): x is string => x !== null);
  const verbs = [
    s?.create ? `creates ${n(s.create.reqPerSec)} merchant payments/s (p99 ${n(s.create.p99)} ms)` : null,
    money.length ? `takes ${list(money)}` : null,
    s?.get ? `reads ${n(s.get.reqPerSec)}/s by id (p99 ${n(s.get.p99)} ms)` : null,
  ].filter((x): x is string => x !== null);
  let figures = 2 * (money.length + (s?.create ? 1 : 0) + (s?.get ? 1 : 0));
  const parts = verbs.length ? [`one process (WORKERS=${s!.workers}) ${verbs.join('; ')}`] : [];
  const m = r.multiGet;
  if (m) {
    parts.push(`two processes on one database read ${n(m.get.reqPerSec)}/s by id (p99 ${n(m.get.p99)} ms)`);
    figures += 2;
  }
  if (figures < MIN_FIGURES) throw new Error(`the run of ${r.date} has ${figures} figures for the README summary, at least ${MIN_FIGURES} needed: render a full run`);
  // The rows reported for information (target 'reported') are not targets: they are left out of the count.
  const judged = r.targets.filter((t) => t.target !== 'reported');
  const passed = judged.filter((t) => t.pass).length;
  const date = r.date.slice(0, 10);
  const flagged = r.flags.length ? ` The run was flagged (${r.flags.length === 1 ? 'one flag' : `${r.flags.length} flags`}, listed under the table).` : '';
  return [
    `On 2 cores shared with Postgres, Redis and the load generator (run of ${date}), ${parts.join('; ')}.`,
    `${passed} of ${judged.length} targets pass against the same run's baselines; each miss, its measured reason and what is next: see the link.${flagged}`,
    SUMMARY_LINK,
  ];
}

/** The README with the section under "## Benchmarks" (up to the next "## " heading) replaced by the lines. */
export function replaceSummary(readme: string, lines: string[]): string {
  const a = readme.indexOf(`\n${SUMMARY_HEADING}\n`);
  if (a < 0) throw new Error(`no "${SUMMARY_HEADING}" section in the README`);
  const start = a + SUMMARY_HEADING.length + 2;
  const next = readme.indexOf('\n## ', start);
  const rest = next < 0 ? '' : readme.slice(next);
  return `${readme.slice(0, start)}\n${lines.join('\n')}\n${rest}`;
}
