// Our array literals are node-postgres's own text for every array of scalars, and any other array
// is left to it.
import t from 'tap';
import { createRequire } from 'node:module';
import { withArrayLiterals } from '../../src/store/pg-array.js';

const pgUtils = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };

t.test('the same text as pg for strings, numbers, booleans and nulls', async (t) => {
  const cases: unknown[][] = [
    [], ['pay_abc', 'pay_def'], ['', 'NULL', 'null', ' spaced ', 'a,b', '{braces}', 'quote " inside', 'back \\ slash', '\\"both\\"', 'é 🙂\nnewline'],
    [1, -2, 3.5, 1e21, 2 ** 53 + 2, Number.NaN, Infinity, 0, -0], [true, false], [null, undefined, 'x', null],
    ['2026-12-03T16:00:00.000Z', null], [2n ** 70n, -(3n ** 40n)],
  ];
  for (const c of cases) t.equal(withArrayLiterals([c])[0], pgUtils.prepareValue(c), JSON.stringify(c, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));
});

t.test('random strings over the characters a literal treats specially', async (t) => {
  const alphabet = ['a', 'Z', '0', '"', '\\', ',', '{', '}', ' ', '\n', 'N', 'é', '🙂'];
  let seed = 7;
  const next = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  let wrong = 0;
  for (let i = 0; i < 5000; i++) {
    const xs = Array.from({ length: 1 + Math.floor(next() * 6) }, () => (next() < 0.1 ? null : Array.from({ length: Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('')));
    if (withArrayLiterals([xs])[0] !== pgUtils.prepareValue(xs)) wrong++;
  }
  t.equal(wrong, 0);
});

t.test('arrays holding anything else, and values that are not arrays, are left as they are', async (t) => {
  const nested = [['a'], ['b']];
  const dates = [new Date(0)];
  const objects = [{ a: 1 }];
  const buffers = [Buffer.from('x')];
  const [a, b, c, d, e, f, g] = withArrayLiterals([nested, dates, objects, buffers, 'text', 5, null]);
  t.equal(a, nested);
  t.equal(b, dates);
  t.equal(c, objects);
  t.equal(d, buffers);
  t.same([e, f, g], ['text', 5, null]);
});
