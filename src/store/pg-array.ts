// Array parameters as Postgres array literals, written here instead of by node-postgres. pg quotes
// every element with two regex passes (its escapeElement) whether or not the element holds a quote
// or a backslash; the ids, statuses, stamps and numbers of a grouped statement never do. Testing
// once and wrapping costs about a quarter of that (54 ns against 207 per id on the bench host;
// docs/decisions.md, "JSON columns travel as one document", its last point). The text is pg's own
// for every array of strings, numbers, booleans and nulls (test/unit/pg-array compares them);
// any other array is left for pg to write.

const NEEDS_ESCAPE = /["\\]/;

const element = (v: unknown): string | null => {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return NEEDS_ESCAPE.test(v) ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${v}"`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `"${String(v)}"`;
  return null;
};

/** One array of scalars as its literal, or the array itself when an element is not a scalar. */
function literal(xs: unknown[]): string | unknown[] {
  let out = '{';
  for (let i = 0; i < xs.length; i++) {
    const e = element(xs[i]);
    if (e === null) return xs;
    out += i === 0 ? e : `,${e}`;
  }
  return `${out}}`;
}

/** A statement's parameters with each array of scalars written as its literal; the others as they are. */
export const withArrayLiterals = (values: unknown[]): unknown[] => values.map((v) => (Array.isArray(v) ? literal(v) : v));
