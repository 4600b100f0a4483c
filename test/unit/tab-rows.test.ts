// The method tabs' rows (src/web/tab-rows.ts), for every count from 1 to 8: never a row of one
// (unless one tab in all), rows of at most three, narrow pages in rows of two with at most one row
// of three, placed where its longest label is shortest.
import t from 'tap';
import { tabRowClasses } from '../../src/web/tab-rows.js';

/** Row sizes from one of the class prefixes ('n' narrow, 'w' wide): runs of a class "x3" come in threes. */
function rowsOf(classes: string[], prefix: 'n' | 'w'): number[] {
  const sizes = classes.map((c) => Number(c.split(' ').find((x) => x.startsWith(prefix))!.slice(1)));
  const rows: number[] = [];
  for (let i = 0; i < sizes.length; i += sizes[i]) {
    t.ok(sizes.slice(i, i + sizes[i]).every((x) => x === sizes[i]), `a row of ${sizes[i]} holds ${sizes[i]} tabs`);
    rows.push(sizes[i]);
  }
  return rows;
}

t.test('every count from 1 to 8', async (t) => {
  for (let n = 1; n <= 8; n++) {
    const labels = Array.from({ length: n }, (_, i) => `m${i}`);
    const classes = tabRowClasses(labels);
    t.equal(classes.length, n);
    for (const prefix of ['n', 'w'] as const) {
      const rows = rowsOf(classes, prefix);
      t.equal(rows.reduce((a, b) => a + b, 0), n, `${prefix} ${n}: every tab placed`);
      t.ok(rows.every((r) => r <= 3), `${prefix} ${n}: rows of at most three (${rows.join('/')})`);
      if (n > 1) t.ok(rows.every((r) => r >= 2), `${prefix} ${n}: no lone tab (${rows.join('/')})`);
    }
    if (n > 3) t.ok(rowsOf(classes, 'n').filter((r) => r === 3).length <= 1, `narrow ${n}: at most one row of three`);
  }
  t.same(rowsOf(tabRowClasses(['a', 'b', 'c', 'd', 'e', 'f', 'g']), 'w'), [3, 2, 2], 'seven on a wide page: 3+2+2');
});

t.test('on a narrow page the row of three goes where the labels are short', async (t) => {
  const ru = ['Карта', 'СБП', 'SberPay', 'T-Pay', 'ЮMoney', 'Apple Pay', 'Google Pay'];
  t.same(rowsOf(tabRowClasses(ru), 'n'), [3, 2, 2]);
  t.same(rowsOf(tabRowClasses(['Сохранённая карта', 'Карта', 'СБП', 'SberPay', 'T-Pay']), 'n'), [2, 3], 'not with the long label');
});
