// A timestamptz read as epoch milliseconds straight from Postgres' text form, without a Date per
// value (pg's default parser built one per column per row: ~4 % of the main thread on GET). Used
// by the grouped payment reads through the query's own `types`, so no other query changes.
import pg from 'pg';

const defaultParser = pg.types.getTypeParser(1184);
const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);
const isDigit = (s: string, i: number): boolean => { const c = s.charCodeAt(i); return c >= 48 && c <= 57; };

/**
 * 'YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]' (DateStyle ISO, any session time zone) to epoch ms,
 * fractions truncated to the millisecond as pg's parser does; anything else (BC, infinity, years
 * past 9999) goes through pg's own parser.
 */
export function timestamptzMs(s: string): number {
  if (s.length < 22 || s[4] !== '-' || s[7] !== '-' || s[10] !== ' ' || s[13] !== ':' || s[16] !== ':') return fallback(s);
  let i = 19;
  let ms = 0;
  if (s[i] === '.') {
    i++;
    for (let scale = 100; isDigit(s, i); i++, scale = Math.floor(scale / 10)) ms += digit(s, i) * scale;
  }
  const sign = s[i] === '+' ? 1 : s[i] === '-' ? -1 : 0;
  if (sign === 0 || !isDigit(s, i + 1) || !isDigit(s, i + 2)) return fallback(s);
  let offset = two(s, i + 1) * 3600;
  i += 3;
  if (s[i] === ':') { offset += two(s, i + 1) * 60; i += 3; }
  if (s[i] === ':') { offset += two(s, i + 1); i += 3; }
  if (i !== s.length) return fallback(s);
  const utc = Date.UTC(two(s, 0) * 100 + two(s, 2), two(s, 5) - 1, two(s, 8), two(s, 11), two(s, 14), two(s, 17), ms);
  return utc - sign * offset * 1000;
}

function fallback(s: string): number {
  const v = defaultParser(s) as Date | string;
  return v instanceof Date ? v.getTime() : Date.parse(v);
}

/** pg `types` for one query: timestamptz as epoch ms, every other type as pg parses it. */
export const MS_TIMESTAMPS = {
  getTypeParser: (oid: number, format?: string) =>
    (oid === 1184 && format !== 'binary' ? timestamptzMs : pg.types.getTypeParser(oid, format as 'text')) as (v: string) => unknown,
};
