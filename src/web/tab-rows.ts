// How the method tabs fall into rows: never a lone tab on a row (unless there is only one), every
// row full width, the tabs of a row of one width. The tab list is a 6-column grid; a tab of a row
// of 3 spans 2 columns, of a row of 2 spans 3. Narrow pages (under 420 px, where 3 tabs of 7rem do
// not fit) use rows of 2 and, for an odd count, one row of 3 where the labels are shortest; wider
// pages use rows of 3 and 2, the rows of 3 first. Pure: the classes are styled in style.ts.

/** Row sizes, bigger rows first: `count` tabs over `rows` rows, as even as possible. */
function spread(count: number, rows: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < rows; r++) out.push(Math.floor(count / rows) + (r < count % rows ? 1 : 0));
  return out;
}

function narrowRows(labels: readonly string[]): number[] {
  const n = labels.length;
  if (n <= 3) return [n];
  const rows = new Array<number>(Math.floor(n / 2)).fill(2);
  if (n % 2 === 0) return rows;
  // The row of three goes where its longest label is shortest.
  let best = 0;
  let bestLen = Infinity;
  for (let r = 0; r < rows.length; r++) {
    const len = Math.max(...labels.slice(2 * r, 2 * r + 3).map((l) => l.length));
    if (len < bestLen) { best = r; bestLen = len; }
  }
  rows[best] = 3;
  return rows;
}

const classesOf = (rows: number[], prefix: string): string[] => rows.flatMap((size) => new Array<string>(size).fill(`${prefix}${size}`));

/** One class list per tab ("n2 w3": in a row of 2 on narrow pages, of 3 on wider ones). */
export function tabRowClasses(labels: readonly string[]): string[] {
  const narrow = classesOf(narrowRows(labels), 'n');
  const wide = classesOf(spread(labels.length, Math.ceil(labels.length / 3)), 'w');
  return labels.map((_, i) => `${narrow[i]} ${wide[i]}`);
}

/** The grid's rules for those classes (part of the page stylesheet). */
export const TAB_ROWS_CSS = `[role=tablist]{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));grid-auto-rows:1fr;gap:.375rem;margin:0 0 1rem}
.n1{grid-column:span 6}.n2{grid-column:span 3}.n3{grid-column:span 2}
@media (min-width:420px){.w1{grid-column:span 6}.w2{grid-column:span 3}.w3{grid-column:span 2}}`;
