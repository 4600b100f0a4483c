// Renders the error catalogue as the Markdown table in docs/errors.md (`npm run docs:errors`).
// A test fails when the two disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { ERRORS } from './errors.js';

export const START = '<!-- errors:start -->';
export const END = '<!-- errors:end -->';

export function renderErrorTable(): string {
  const rows = Object.entries(ERRORS).map(([code, d]) =>
    `| \`${code}\` | ${d.status} | ${d.type} | ${d.retryable ? 'yes' : 'no'} | ${d.retired ? '(retired: never answered any more) ' : ''}${d.en} |`);
  return ['| code | HTTP | type | retry | message (en) |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function replaceTable(doc: string): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error('docs/errors.md has no errors:start/end markers');
  return `${doc.slice(0, a + START.length)}\n${renderErrorTable()}\n${doc.slice(b)}`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const file = process.argv[2] ?? 'docs/errors.md';
  writeFileSync(file, replaceTable(readFileSync(file, 'utf8')));
  console.log(`updated ${file}`);
}
