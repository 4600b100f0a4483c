// A column of JSON values for a grouped statement's unnest(), sent as one JSON document instead of
// a jsonb[] array literal. In an array literal every element is quoted again: node-postgres escapes
// each quote and backslash of each JSON text (its escapeElement), about 1.4-2.2 µs for a 200-byte
// card view on the bench host, and 8 % of a worker's busy time in a card payment run
// (docs/decisions.md, "JSON columns travel as one document"). Here an element is only wrapped.
//
// Each element is `{"v":json}`, and SQL NULL is `{}`: `e -> 'v'` gives the JSON value back (the
// jsonb `null` included) and SQL NULL for the missing key, so the column keeps exactly what a
// jsonb[] literal stored. (Not `[json]` and `null` with `e -> 0`: Postgres keeps a bare scalar as a
// one-element array, so `'null'::jsonb -> 0` is the JSON null, not SQL NULL.)

/** The parameter: each element's JSON text (as JSON.stringify wrote it) or null for SQL NULL, in order. */
export function jsonbList(texts: (string | null)[]): string {
  let out = '[';
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    out += (i === 0 ? '' : ',') + (t === null ? '{}' : `{"v":${t}}`);
  }
  return `${out}]`;
}

/** The SQL for such a parameter as a jsonb[], element for element in the order sent. */
export const jsonbArrayOf = (param: string): string =>
  `ARRAY(SELECT t.e -> 'v' FROM jsonb_array_elements(${param}::jsonb) WITH ORDINALITY AS t(e, o) ORDER BY t.o)`;
