// A JSON column sent as one document (src/store/jsonb-list.ts) stores what a jsonb[] array literal
// stored, element for element: SQL NULL stays NULL, the JSON null stays a JSON null, and the order
// is the order sent.
import t from 'tap';
import pg from 'pg';
import { jsonbArrayOf, jsonbList } from '../../src/store/jsonb-list.js';
import { PG_URL, testPool } from '../helpers/env.js';

if (!PG_URL) t.plan(0, 'skipped: needs DATABASE_URL (Postgres reads the document; CI sets it)');
else {
  const db: pg.Pool = testPool(PG_URL, 1);
  t.teardown(() => db.end());

  // Both ways at once: $1 as the driver's jsonb[] literal, $2 as one document; each element's text,
  // its SQL nullness and its position come back side by side.
  const compare = async (texts: (string | null)[]) => {
    const { rows } = await db.query<{ o: number; a: string | null; b: string | null; a_null: boolean; b_null: boolean }>({
      text: `SELECT a.o::int AS o, a.v::text AS a, b.v::text AS b, a.v IS NULL AS a_null, b.v IS NULL AS b_null
             FROM unnest($1::jsonb[]) WITH ORDINALITY AS a(v, o) FULL JOIN unnest(${jsonbArrayOf('$2')}) WITH ORDINALITY AS b(v, o) ON a.o = b.o
             ORDER BY 1`,
      values: [texts, jsonbList(texts)],
    });
    return rows;
  };

  t.test('objects, strings with quotes and backslashes, the JSON null, SQL NULL, numbers, arrays', async (t) => {
    const texts = [
      JSON.stringify({ brand: 'visa', last4: '4242', holder: 'O\'Brien "Jr." \\ back', nested: { a: [1, 2, { b: null }] } }),
      null,
      JSON.stringify(null),
      JSON.stringify('a "quoted" \\ string with\nnewline and é 🙂'),
      JSON.stringify(2 ** 45 + 0.5),
      JSON.stringify([]),
      JSON.stringify({}),
      null,
    ];
    const rows = await compare(texts);
    t.equal(rows.length, texts.length);
    for (const r of rows) {
      t.equal(r.b, r.a, `element ${r.o}: the same value`);
      t.equal(r.b_null, r.a_null, `element ${r.o}: the same SQL nullness`);
    }
    t.equal(rows[1].b_null, true, 'SQL NULL stays NULL');
    t.equal(rows[2].b, 'null', 'the JSON null stays a JSON null, not SQL NULL');
    t.equal(rows[2].b_null, false);
  });

  t.test('a group\'s order is kept over many elements, and an empty group is an empty array', async (t) => {
    const texts = Array.from({ length: 500 }, (_, i) => (i % 7 === 3 ? null : JSON.stringify({ i, s: `"${i}"` })));
    const rows = await compare(texts);
    t.equal(rows.length, 500);
    t.equal(rows.filter((r) => r.a !== r.b || r.a_null !== r.b_null).length, 0, 'every element in its place');
    const { rows: empty } = await db.query({ text: `SELECT cardinality(${jsonbArrayOf('$1')}) AS n`, values: [jsonbList([])] });
    t.equal(Number(empty[0].n), 0);
  });
}
