// isoInstant writes what Date.prototype.toISOString writes, for every instant Date can hold.
import t from 'tap';
import { isoInstant, isoOrNull } from '../../src/domain/instant.js';

const expected = (ms: number): string => {
  try { return new Date(ms).toISOString(); } catch (e) { return `throws ${(e as Error).constructor.name}`; }
};
const actual = (ms: number): string => {
  try { return isoInstant(ms); } catch (e) { return `throws ${(e as Error).constructor.name}`; }
};

t.test('edges: the epoch, leap days, centuries, the four-digit years\' ends, Date\'s own range, invalid values', async (t) => {
  const cases = [
    0, -0, 1, -1, 999, 1000, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
    Date.UTC(2000, 1, 29), Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(1900, 1, 28, 12), Date.UTC(1900, 2, 1),
    Date.UTC(2100, 1, 28, 23, 59, 59, 999), Date.UTC(2100, 2, 1), Date.UTC(2024, 1, 29, 6, 7, 8, 9), Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(1600, 1, 29), Date.UTC(1969, 11, 31, 23, 59, 59, 999), Date.UTC(1, 0, 1), Date.UTC(0, 0, 1) - 1,
    253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001,
    8.64e15, -8.64e15, 8.64e15 + 1, -8.64e15 - 1, 1.5, -1.5, 1_764_770_000_000.7, Number.NaN, Infinity, -Infinity,
  ];
  for (const ms of cases) t.equal(actual(ms), expected(ms), String(ms));
});

t.test('the first and last millisecond of every month of years -10 to 10009', async (t) => {
  let wrong = 0;
  for (let y = -10; y < 10_010; y++) {
    for (let m = 0; m < 12; m++) {
      const first = Date.UTC(y, m, 1);
      for (const ms of [first, first - 1, first + 43_210_987]) if (actual(ms) !== expected(ms)) { wrong++; if (wrong < 5) t.equal(actual(ms), expected(ms), String(ms)); }
    }
  }
  t.equal(wrong, 0);
});

t.test('random instants over Date\'s whole range and over the years a payment lives in', async (t) => {
  let seed = 0x2545f491;
  const next = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 2 ** 32; };
  let wrong = 0;
  for (let i = 0; i < 200_000; i++) {
    const wide = Math.floor((next() * 2 - 1) * 8.64e15);
    const near = Math.floor(1.7e12 + next() * 1e11);
    for (const ms of [wide, near]) if (actual(ms) !== expected(ms)) { wrong++; if (wrong < 5) t.equal(actual(ms), expected(ms), String(ms)); }
  }
  t.equal(wrong, 0);
});

t.test('a day cached from one call does not leak into the next', async (t) => {
  const a = Date.UTC(2026, 11, 3, 23, 59, 59, 999);
  t.equal(isoInstant(a), '2026-12-03T23:59:59.999Z');
  t.equal(isoInstant(a + 1), '2026-12-04T00:00:00.000Z');
  t.equal(isoInstant(a), '2026-12-03T23:59:59.999Z');
  t.equal(isoOrNull(null), null);
  t.equal(isoOrNull(a), '2026-12-03T23:59:59.999Z');
});
