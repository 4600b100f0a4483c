// Turns a results document into tables: Markdown for bench/README.md, aligned text for the terminal.
// CLI: node dist/bench/render-table.js <results.json> [target.md | -]   (npm run bench:readme -- <results.json>)
//   results.json is named explicitly (the table says which run it shows); the text between
//   <!-- bench:start --> and <!-- bench:end --> of the target (bench/README.md unless named) is
//   replaced; `-` prints the Markdown instead. The top-level README keeps only a summary and a link:
//   with the default target, the three lines under its "## Benchmarks" (README.md of the directory
//   npm runs in, when there is one) are rewritten from the same results (readme-summary.ts).
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { replaceSummary, summaryLines } from './readme-summary.js';
import { DISPATCH_HEADER, FIGURE_HEADER, TARGET_HEADER, WEBHOOK_HEADER, describeSetup, dispatchRows, figureRows, targetRows, webhookRows, type BenchResults } from './results.js';

const START = '<!-- bench:start -->';
const NUMERIC = new Set(['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'peak RSS MB', 'CPU µs/req', 'of which main thread', 'PG µs/req', 'of which bank', 'machine µs/req', 'WORKERS', 'value', ...WEBHOOK_HEADER, ...DISPATCH_HEADER]);
const END = '<!-- bench:end -->';
/** Where the results table lives (relative to the package root, where npm runs scripts). */
export const TABLE_DOC = 'bench/README.md';
/** The top-level README whose summary quotes the table (relative to the package root). */
export const SUMMARY_DOC = 'README.md';

function markdownTable(header: string[], rows: string[][]): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  const line = (cells: string[]) => `| ${cells.map(esc).join(' | ')} |`;
  const align = header.map((h) => (NUMERIC.has(h) ? '---:' : '---'));
  return [line(header), `|${align.join('|')}|`, ...rows.map(line)].join('\n');
}

export function renderMarkdown(r: BenchResults): string {
  const parts = [
    `_${describeSetup(r)}_`,
    '',
    markdownTable(FIGURE_HEADER, figureRows(r)),
    '',
  ];
  if (r.webhooks) parts.push(`Webhooks: ${webhookCaption(r)}`, '', markdownTable(WEBHOOK_HEADER, webhookRows(r)), '');
  if (r.webhooks?.dispatch) parts.push(`Webhook dispatch: ${DISPATCH_CAPTION}`, '', markdownTable(DISPATCH_HEADER, dispatchRows(r)), '');
  parts.push(markdownTable(TARGET_HEADER, targetRows(r)));
  if (r.flags.length) parts.push('', ...r.flags.map((f) => `- ⚠ ${f}`));
  parts.push('', `_Measured by \`npm run bench\` (${r.date}), rendered from its results file by \`npm run bench:readme\`: do not edit by hand._`);
  return parts.join('\n');
}

const DISPATCH_CAPTION = 'the server\'s dispatch counters over its whole run (both phases and the drain): calls to look for due deliveries ' +
  '(wake-ups) by source (notify: another thread\'s commit through LISTEN; commit: the thread\'s own; slot: a request ended; poll: the timer), ' +
  'the claim statements they became (calls during a claim coalesce into one more) and the deliveries each leased, requests by socket ' +
  '(keep-alive), and the time spent rendering and signing a body.';

function webhookCaption(r: BenchResults): string {
  const h = r.webhooks!;
  return `payment.expired deliveries to a local signature-checking receiver while merchant W creates ${h.rate}/s ` +
    `(payments expire 1 s later) and merchant B creates at full speed; latency = receiver arrival − event created_at ` +
    `for events committed during the measured window (created_at is the expiry's decision, just before its group commit: ` +
    `an upper bound of commit → receipt; bench/webhook-stages.sql splits it by stage); wait = the delivery's write, just before its commit → first attempt (the server's histogram, ` +
    `every W event, a bucket's upper bound), the rest of the latency being the request; B ratio = B's create req/s with ÷ without.`;
}

function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (NUMERIC.has(header[i]) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function renderText(r: BenchResults): string {
  const parts = [describeSetup(r), '', textTable(FIGURE_HEADER, figureRows(r)), ''];
  if (r.webhooks) parts.push(`Webhooks: ${webhookCaption(r)}`, '', textTable(WEBHOOK_HEADER, webhookRows(r)), '');
  if (r.webhooks?.dispatch) parts.push(`Webhook dispatch: ${DISPATCH_CAPTION}`, '', textTable(DISPATCH_HEADER, dispatchRows(r)), '');
  parts.push(textTable(TARGET_HEADER, targetRows(r)));
  if (r.flags.length) parts.push('', 'FLAGGED:', ...r.flags.map((f) => `  - ${f}`));
  return parts.join('\n');
}

/** Replaces the marked region of a Markdown document; throws when the markers are missing. */
export function replaceBetweenMarkers(doc: string, content: string): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END, a + START.length);
  if (a < 0 || b < 0) throw new Error(`markers ${START} ... ${END} not found`);
  return `${doc.slice(0, a + START.length)}\n${content}\n${doc.slice(b)}`;
}

function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const resultsPath = process.argv[2];
  const target = process.argv[3] ?? TABLE_DOC;
  if (!resultsPath) {
    process.stderr.write(`usage: node dist/bench/render-table.js <results.json> [target.md | -]   (target: ${TABLE_DOC})\n`);
    process.exit(2);
  }
  try {
    const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchResults;
    const md = renderMarkdown(results);
    if (target === '-') process.stdout.write(md + '\n');
    else {
      // Both documents are computed before either is written: a run the summary cannot quote changes neither.
      const summary = target === TABLE_DOC && existsSync(SUMMARY_DOC) ? replaceSummary(readFileSync(SUMMARY_DOC, 'utf8'), summaryLines(results)) : null;
      writeFileSync(target, replaceBetweenMarkers(readFileSync(target, 'utf8'), md));
      process.stdout.write(`updated ${target} from ${resultsPath}\n`);
      if (summary !== null) {
        writeFileSync(SUMMARY_DOC, summary);
        process.stdout.write(`updated the summary of ${SUMMARY_DOC} from ${resultsPath}\n`);
      }
    }
  } catch (err) {
    process.stderr.write(`render-table: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
